from django.urls import path

from research.chat import apis

urlpatterns = [
    path("chat", apis.ChatPostApi.as_view(), name="api-chat"),
    path("chat/turns/<int:turn_id>", apis.ChatTurnGetApi.as_view(), name="api-chat-turn"),
    path("chat/turns/<int:turn_id>/cancel", apis.ChatTurnCancelApi.as_view(), name="api-chat-turn-cancel"),
    path("trace/<uuid:conversation_id>", apis.ChatTraceGetApi.as_view(), name="api-chat-trace"),
]
