from django.urls import path

from research import views

app_name = "research"

urlpatterns = [
    path("", views.index, name="index"),
    path("upload/", views.upload, name="upload"),
    path("documents/details/", views.document_details, name="document-details"),
    path("documents/<int:document_id>/", views.document, name="document"),
    path("documents/<int:document_id>/status/", views.document_status, name="document-status"),
    path("documents/<int:document_id>/file/", views.document_file, name="document-file"),
    path("documents/<int:document_id>/delete/", views.document_remove, name="document-delete"),
]
