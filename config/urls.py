from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic.base import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from home import exports as home_exports
from home import views as home_views

handler403 = "core.views.error_403"
handler404 = "core.views.error_404"
handler500 = "core.views.error_500"

api_v1 = [
    path("", include("core.api_urls")),
    path("reviews/", include("reviews.api_urls")),
    path("", include("portfolios.api_urls")),  # --- portfolios ---
    path("research/", include("research.api_urls")),  # --- research ---
    path("", include("research.chat.api_urls")),  # --- research agent (chat) ---
    path("", include("briefs.api_urls")),  # --- briefs ---
    path("", include("evaluation.api_urls")),  # --- evaluation ---
]

urlpatterns = [
    path("", home_views.index, name="dashboard"),
    path("home/", include("home.urls")),
    # Browsers ask for /favicon.ico on pages that name no icon (the admin, the API docs).
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    path("settings/", include("core.urls")),
    path("accounts/", include("allauth.urls")),
    path("admin/", admin.site.urls),
    path("research/chat/", include("research.chat.urls")),  # --- research agent (chat) ---
    path("research/", include("research.urls")),
    path("briefs/<int:brief_id>/export.<str:fmt>", home_exports.brief_export, name="brief-export"),
    path("briefs/", include("briefs.urls")),
    path("portfolios/", include("portfolios.urls")),
    path("reviews/", include("reviews.urls")),
    path("evaluation/", include("evaluation.urls")),
    path("api/v1/", include(api_v1)),
    # hardening: the schema and its docs are for signed-in users (SPECTACULAR_SETTINGS
    # SERVE_PERMISSIONS); the docs page sends a browser to the login page. The split Swagger view
    # serves its start-up script as a file, which the Content-Security-Policy allows.
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", login_required(SpectacularSwaggerSplitView.as_view(url_name="api-schema")), name="api-docs"),
]
