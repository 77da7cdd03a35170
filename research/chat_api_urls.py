from django.urls import path

from research import chat_apis

urlpatterns = [
    path("chat", chat_apis.ChatPostApi.as_view(), name="api-chat"),
    path("chat/turns/<int:turn_id>", chat_apis.ChatTurnGetApi.as_view(), name="api-chat-turn"),
    path("chat/turns/<int:turn_id>/cancel", chat_apis.ChatTurnCancelApi.as_view(), name="api-chat-turn-cancel"),
    path("trace/<uuid:conversation_id>", chat_apis.ChatTraceGetApi.as_view(), name="api-chat-trace"),
]
