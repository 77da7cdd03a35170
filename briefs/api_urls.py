from django.urls import path

from briefs import apis

urlpatterns = [
    path("briefs/runs", apis.BriefRunListCreateApi.as_view(), name="api-brief-runs"),
    path("briefs/runs/<int:run_id>", apis.BriefRunDetailApi.as_view(), name="api-brief-run"),
    path("briefs", apis.BriefListApi.as_view(), name="api-briefs"),
    path("briefs/<int:brief_id>", apis.BriefDetailApi.as_view(), name="api-brief"),
]
