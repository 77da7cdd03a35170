from django.urls import path

from reviews import views

app_name = "reviews"

urlpatterns = [
    path("", views.index, name="index"),
    path("<int:task_id>/", views.detail, name="detail"),
    path("<int:task_id>/decide/", views.decide, name="decide"),
    path("audit/", views.audit, name="audit"),
    path("audit/export.csv", views.audit_export, name="audit-export"),
]
