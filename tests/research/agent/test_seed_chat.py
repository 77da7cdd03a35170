"""`manage.py seed_chat` adds the demo conversation once (idempotent)."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from research.chat.models import Conversation

pytestmark = pytest.mark.django_db


def test_seed_chat_is_idempotent(mpc_corpus: dict[str, Any], make_user: Any) -> None:
    analyst = make_user("analyst", email="analyst@alphadesk.local")
    out = StringIO()
    call_command("seed_chat", stdout=out)
    conversation = Conversation.objects.get(owner=analyst)
    assert [t.status for t in conversation.turns.order_by("index")] == ["done", "done", "done"]
    call_command("seed_chat", stdout=out)
    assert Conversation.objects.filter(owner=analyst).count() == 1
    assert "already present" in out.getvalue()


def test_seed_chat_waits_for_the_corpus(mpc_corpus: dict[str, Any], make_user: Any) -> None:
    from research.models import Document

    # make demo queues the corpus for the worker: one document still waiting (rolled back after the test)
    Document.objects.filter(pk=Document.objects.order_by("pk").values("pk")[:1]).update(status="queued")
    analyst = make_user("analyst", email="analyst@alphadesk.local")
    out = StringIO()
    call_command("seed_chat", stdout=out)
    assert "still being ingested" in out.getvalue()
    assert not Conversation.objects.filter(owner=analyst).exists()
