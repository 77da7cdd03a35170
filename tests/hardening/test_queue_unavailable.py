"""The work queue unreachable: every write saves its row and answers 503 "saved, will run when the
queue is back" (never a 500); each kind's sweep sends what is still waiting, once it is back.

The broker is made unreachable for real — Celery is pointed at a socket nobody listens on — and
the sweeps are checked on rows dated by hand. (tests/hardening/test_fault_queue.py stops and kills
the real Redis with a worker running.)"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from celery import current_app
from django.db import OperationalError
from django.utils import timezone
from rest_framework.test import APIClient

from core.api_errors import exception_handler
from core.tasks import enqueue
from evaluation.models import EvalRun
from tests.reviews.conftest import make_task  # noqa: F401  (a review task on the probe graph)

SAVED_NOTICE = "The work queue is unavailable right now: what you sent is saved and will run when the queue is back."


def _recorder(sent: list[tuple[Any, ...]]) -> Any:
    """``enqueue`` that records each message instead of sending it (and says the queue took it)."""

    def record(*message: Any) -> bool:
        sent.append(message)
        return True

    return record


@pytest.fixture
def broker_unreachable(tmp_path: Any) -> Iterator[None]:
    conf = current_app.conf
    before = conf.broker_url, conf.broker_write_url
    conf.broker_url = conf.broker_write_url = f"redis+socket://{tmp_path / 'nobody-listens.sock'}"
    try:
        yield
    finally:
        conf.broker_url, conf.broker_write_url = before


def test_enqueue_says_false_at_once_when_the_broker_is_unreachable(broker_unreachable: None) -> None:
    started = time.monotonic()
    assert enqueue("research.chat_turn_run", 1) is False
    assert time.monotonic() - started < 2.0


def test_enqueue_of_a_misspelt_task_is_a_bug_not_an_outage() -> None:
    with pytest.raises(KeyError):
        enqueue("research.no_such_task", 1)


@pytest.mark.django_db(transaction=True)
def test_writes_answer_503_with_the_row_saved_when_the_queue_is_down(
    broker_unreachable: None,
    analyst: Any,
    reviewer: Any,
    make_task: Any,  # noqa: F811
) -> None:
    from briefs.models import BriefRun
    from portfolios.services import watchlist_create
    from research.chat.models import Turn
    from research.models import Document
    from reviews.models import ReviewTask

    api = APIClient()
    api.force_login(analyst)

    chat = api.post("/api/v1/chat", {"question": "What is 12 * 3?"}, format="json")
    assert chat.status_code == 503, chat.content[:300]
    assert chat.json()["error"] == "queue_unavailable" and chat.json()["detail"] == SAVED_NOTICE
    assert chat["Retry-After"] == "60"
    assert Turn.objects.get(pk=chat.json()["id"]).status == "queued"

    note = b"# Desk note\n\nThe desk expects margins of 21 per cent in the second quarter.\n"
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = api.post(
        "/api/v1/research/documents", {"files": [SimpleUploadedFile("desk-note.md", note)]}, format="multipart"
    )
    assert upload.status_code == 503, upload.content[:300]
    saved = upload.json()["created"]
    assert [d["filename"] for d in saved] == ["desk-note.md"]
    assert Document.objects.get(pk=saved[0]["id"]).status == "queued"

    watchlist = watchlist_create(user=analyst, name="Queue down", tickers=["INFY.NS"], recipients=[])
    start = api.post("/api/v1/briefs/runs", {"watchlist_id": watchlist.pk}, format="json")
    assert start.status_code == 503, start.content[:300]
    assert BriefRun.objects.get(pk=start.json()["id"]).status == "queued"

    task = make_task(kind=ReviewTask.Kind.CHAT_ESCALATION)
    decider = APIClient()
    decider.force_login(reviewer)
    decided = decider.post(f"/api/v1/reviews/tasks/{task.pk}/decide", {"outcome": "approve"}, format="json")
    assert decided.status_code == 503, decided.content[:300]
    task.refresh_from_db()
    assert (task.state, task.resume_state) == ("approved", "queued")

    evaluate = api.post("/api/v1/evaluate", {"suite": "calculator"}, format="json")
    assert evaluate.status_code == 503, evaluate.content[:300]
    assert EvalRun.objects.get(pk=evaluate.json()["id"]).status == "queued"


@pytest.mark.django_db
def test_the_evaluation_sweep_sends_runs_left_queued(analyst: Any, monkeypatch: Any) -> None:
    from evaluation.services import eval_runs_sweep

    now = timezone.now()

    def run(suite: str, trigger: str, minutes_ago: float) -> int:
        made = EvalRun.objects.create(suite=suite, trigger=trigger, requested_by=analyst)
        EvalRun.objects.filter(pk=made.pk).update(created_at=now - timedelta(minutes=minutes_ago))
        return made.pk

    lost = run("calculator", "api", 5)
    run("research", "api", 0.5)  # just started: its message is on its way
    run("briefs", "command", 5)  # the command runs its own run, with no message
    sent: list[tuple[Any, ...]] = []
    monkeypatch.setattr("evaluation.services.enqueue", _recorder(sent))
    assert eval_runs_sweep(now=now) == 1
    assert sent == [("evaluation.run_execute", lost)]


@pytest.mark.django_db(transaction=True)
def test_uploading_a_waiting_document_again_sends_it_again(analyst: Any, monkeypatch: Any) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    sent: list[tuple[Any, ...]] = []
    monkeypatch.setattr("research.services.enqueue", _recorder(sent))
    api = APIClient()
    api.force_login(analyst)
    note = b"# Waiting note\n\nA line to ingest.\n"
    first = api.post("/api/v1/research/documents", {"files": [SimpleUploadedFile("wait.md", note)]}, format="multipart")
    assert first.status_code == 201
    document_id = first.json()["created"][0]["id"]
    again = api.post("/api/v1/research/documents", {"files": [SimpleUploadedFile("wait.md", note)]}, format="multipart")
    assert again.status_code == 200 and [d["id"] for d in again.json()["duplicates"]] == [document_id]
    assert sent == [("research.ingest_document", document_id), ("research.ingest_document", document_id)]


@pytest.mark.django_db
def test_the_ingest_sweep_sends_waiting_and_silent_documents_once(analyst: Any, monkeypatch: Any) -> None:
    from research.models import Document
    from research.services import document_ingest_sweep

    now = timezone.now()

    def document(title: str, status: str, minutes_ago: float) -> int:
        doc = Document.objects.create(
            owner=analyst,
            title=title,
            kind="markdown",
            filename=f"{title}.md",
            size_bytes=9,
            content_hash=title,
            status=status,
        )
        Document.objects.filter(pk=doc.pk).update(updated_at=now - timedelta(minutes=minutes_ago))
        return doc.pk

    lost = document("lost", "queued", 5)  # sent 5 minutes ago, never started: the broker lost it
    just_sent = document("just-sent", "queued", 0.5)
    dead = document("dead", "processing", 10)  # no progress line for 10 minutes: its worker died
    working = document("working", "processing", 1)
    document("done", "done", 60)
    sent: list[tuple[Any, ...]] = []
    monkeypatch.setattr("research.services.enqueue", _recorder(sent))

    assert document_ingest_sweep(now=now) == {"requeued": 2, "reset_from_processing": 1}
    assert sorted(sent) == sorted([("research.ingest_document", lost), ("research.ingest_document", dead)])
    assert Document.objects.get(pk=dead).status == "queued"
    assert Document.objects.get(pk=dead).status_message == "The worker stopped; ingesting again"
    assert Document.objects.get(pk=working).status == "processing"
    assert Document.objects.get(pk=just_sent).status == "queued"
    sent.clear()
    assert document_ingest_sweep(now=now + timedelta(seconds=30)) == {"requeued": 0, "reset_from_processing": 0}
    assert sent == []  # each waits its turn again before the next send


@pytest.mark.django_db
def test_an_ingestion_is_claimed_by_one_task_its_own_redelivery_or_a_successor_of_a_silent_one(
    analyst: Any,
) -> None:
    from research.models import Document
    from research.services import _ingest_claim

    doc = Document.objects.create(owner=analyst, title="claimed", kind="markdown", filename="c.md", size_bytes=9)
    assert _ingest_claim(doc.pk, "task-1") is True
    assert _ingest_claim(doc.pk, "task-2") is False  # the sweep's or a re-upload's message: busy
    assert _ingest_claim(doc.pk, "task-1") is True  # the same message redelivered: its worker died
    Document.objects.filter(pk=doc.pk).update(updated_at=timezone.now() - timedelta(minutes=6))
    assert _ingest_claim(doc.pk, "task-2") is True  # its holder has been silent past INGEST_STALE_SECONDS
    Document.objects.filter(pk=doc.pk).update(status="done")
    assert _ingest_claim(doc.pk, "task-3") is False


@pytest.mark.django_db
def test_a_turn_taken_back_from_a_dead_worker_says_so(analyst: Any, monkeypatch: Any) -> None:
    from django.test import Client

    from research.chat.models import Conversation, Turn
    from research.chat.services import chat_turns_sweep

    conversation = Conversation.objects.create(owner=analyst, title="Restarted")
    turn = Turn.objects.create(
        conversation=conversation,
        index=0,
        question="What is 2 + 2?",
        status="running",
        started_at=timezone.now() - timedelta(minutes=10),
    )
    Turn.objects.filter(pk=turn.pk).update(created_at=timezone.now() - timedelta(minutes=10))
    monkeypatch.setattr("research.chat.services.enqueue", lambda *message: True)
    assert chat_turns_sweep() == {"requeued": 1, "reset_from_running": 1}
    turn.refresh_from_db()
    assert (turn.status, turn.restarts) == ("queued", 1)
    page = Client()
    page.force_login(analyst)
    html = page.get(conversation.get_absolute_url()).content.decode()
    assert "The worker answering this stopped, so it is being answered again." in html


def test_a_database_outage_answers_503_and_does_not_promise_the_input_was_saved() -> None:
    response = exception_handler(OperationalError("the database system is shutting down"), {"view": None})
    assert response is not None and response.status_code == 503
    assert response.data == {
        "error": "database_unavailable",
        "detail": "The database is unavailable right now; what you sent may not have been saved. "
        "Try again in a minute.",
    }
    assert "lost" not in str(exception_handler(RuntimeError("boom"), {"view": None}).data)  # type: ignore[union-attr]
