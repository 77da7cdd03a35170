from django.urls import path

from reviews import apis

urlpatterns = [
    path("tasks", apis.ReviewTaskListApi.as_view(), name="api-review-tasks"),
    path("tasks/<int:task_id>", apis.ReviewTaskDetailApi.as_view(), name="api-review-task"),
    path("tasks/<int:task_id>/decide", apis.ReviewTaskDecideApi.as_view(), name="api-review-task-decide"),
]
