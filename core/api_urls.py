from django.urls import path

from core import apis

urlpatterns = [
    path("health", apis.HealthApi.as_view(), name="api-health"),
    path("health/live", apis.HealthLiveApi.as_view(), name="api-health-live"),
    path("me", apis.MeApi.as_view(), name="api-me"),
    path("tokens", apis.ApiTokenListCreateApi.as_view(), name="api-tokens"),
    path("tokens/<int:token_id>/revoke", apis.ApiTokenRevokeApi.as_view(), name="api-token-revoke"),
]
