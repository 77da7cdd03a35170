"""The chat's conversation list: beside every conversation, searchable by title or any question
asked, newest first, 25 at a time, and only the user's own."""

from __future__ import annotations

import re
from typing import Any

import pytest

from research.chat.models import Conversation, Turn

pytestmark = pytest.mark.django_db


def _titles(html: str) -> list[str]:
    return re.findall(
        r"<a href=\"/research/chat/[0-9a-f-]+/\"[^>]*>([^<]+)</a>", html.split('id="conversation-list"')[1]
    )


def test_sidebar_searches_pages_and_is_private(client: Any, analyst: Any, make_user: Any) -> None:
    for i in range(30):
        Conversation.objects.create(owner=analyst, title=f"Talk {i:02d}")
    repo = Conversation.objects.create(owner=analyst, title="Rates")
    Turn.objects.create(conversation=repo, index=1, question="What was the repo rate in June?")
    Conversation.objects.create(owner=make_user("analyst"), title="Someone else's repo chat")
    client.force_login(analyst)

    page = client.get("/research/chat/").content.decode()
    assert len(_titles(page)) == 25 and _titles(page)[0] == "Rates"  # newest first
    assert "Older conversations" in page
    found = client.get("/research/chat/conversations/", {"q": "repo"}).content.decode()
    assert _titles(found) == ["Rates"]  # matched by a question, not the title; not another user's
    older = client.get("/research/chat/conversations/", {"page": 2}).content.decode()
    assert len(_titles(older)) == 6
    none = client.get("/research/chat/conversations/", {"q": "zzz"}).content.decode()
    assert "No conversation mentions “zzz”" in none


def test_conversation_page_has_the_sidebar_with_the_current_one_marked(client: Any, analyst: Any) -> None:
    conversation = Conversation.objects.create(owner=analyst, title="Rates")
    client.force_login(analyst)
    html = client.get(conversation.get_absolute_url()).content.decode()
    assert 'data-testid="conversation-sidebar"' in html and 'aria-current="page">Rates</a>' in html
