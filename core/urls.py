from django.urls import path

from core import views

urlpatterns = [
    path("", views.account_settings, name="settings"),
    path("tokens/<int:token_id>/revoke/", views.api_token_revoke_view, name="api-token-revoke"),
]
