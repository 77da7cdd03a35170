from django.urls import path

from evaluation import views

app_name = "evaluation"

urlpatterns = [
    path("", views.index, name="index"),
    path("run/", views.run_start, name="start"),
    path("runs/<int:run_id>/", views.run_detail, name="run"),
    path("runs/<int:run_id>/delete/", views.run_delete, name="delete"),
    path("cases/<int:case_pk>/", views.case_detail, name="case"),
    path("diff/", views.run_diff, name="diff"),
]
