from django.urls import path

from briefs import views

app_name = "briefs"

urlpatterns = [
    path("", views.index, name="index"),
    path("watchlists/<int:watchlist_id>/", views.watchlist_detail, name="watchlist"),
    path("watchlists/<int:watchlist_id>/run/", views.run_start, name="run-start"),
    path("runs/<int:run_id>/", views.run_detail, name="run"),
    path("<int:brief_id>/", views.brief_detail, name="brief"),
    path("<int:brief_id>/delivered/", views.delivery_detail, name="delivery"),
    path("<int:brief_id>/delivered/email.html", views.delivery_email, name="delivery-email"),
]
