from django.urls import path

from evaluation import apis

urlpatterns = [
    path("evaluate", apis.EvaluateApi.as_view(), name="api-evaluate"),
    path("evaluate/<int:run_id>", apis.EvaluateDetailApi.as_view(), name="api-evaluate-detail"),
]
