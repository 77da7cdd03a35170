from django.urls import path

from research.chat import views

app_name = "research-chat"

urlpatterns = [
    path("", views.chat_index, name="index"),
    path("conversations/", views.chat_sidebar, name="sidebar"),
    path("<uuid:conversation_id>/", views.chat_conversation, name="conversation"),
    path("<uuid:conversation_id>/ask/", views.chat_ask, name="ask"),
    path("<uuid:conversation_id>/trace/", views.chat_trace, name="trace"),
    path("<uuid:conversation_id>/export.<str:fmt>", views.chat_export, name="export"),
    path("turns/<int:turn_id>/", views.chat_turn, name="turn"),
    path("turns/<int:turn_id>/cancel/", views.chat_turn_cancel_view, name="turn-cancel"),
]
