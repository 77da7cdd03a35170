from django.urls import path

from research import apis

urlpatterns = [
    path("documents", apis.DocumentListCreateApi.as_view(), name="api-documents"),
    path("documents/<int:document_id>", apis.DocumentDetailApi.as_view(), name="api-document"),
    path("search", apis.DocumentSearchApi.as_view(), name="api-document-search"),
]
