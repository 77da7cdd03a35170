from django.urls import path

from research import chat_views

app_name = "research-chat"

urlpatterns = [
    path("", chat_views.chat_index, name="index"),
    path("<uuid:conversation_id>/", chat_views.chat_conversation, name="conversation"),
    path("<uuid:conversation_id>/ask/", chat_views.chat_ask, name="ask"),
    path("<uuid:conversation_id>/trace/", chat_views.chat_trace, name="trace"),
    path("turns/<int:turn_id>/", chat_views.chat_turn, name="turn"),
    path("turns/<int:turn_id>/cancel/", chat_views.chat_turn_cancel_view, name="turn-cancel"),
]
