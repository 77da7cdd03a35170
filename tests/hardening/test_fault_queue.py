"""Faults of the work queue, induced on the real embedded Redis the test session uses.

- Redis stopped (SIGSTOP: the socket accepts and nothing answers): each write answers within 2 s
  with 503 "saved, will run when the queue is back", its row saved — no hang, no 500.
- Redis killed (SIGKILL) while a document, a chat question and a brief are sent: each is saved and
  answered 503; when Redis is back, each kind's sweep sends it, a real worker completes each
  exactly once, and nothing stays queued."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from config import embedded
from tests.briefs.conftest import feeds, smtp_inbox, watchlist  # noqa: F401  (the brief's fixtures)
from tests.hardening.workers import wait_for
from tests.reviews.conftest import make_task  # noqa: F401  (a review task on the probe graph)

NOTE = b"# Desk note\n\nThe desk expects operating margins of 21 per cent in the second quarter.\n"


def _socket() -> Path:
    return Path(settings.REDIS_URL.removeprefix("unix://").split("?")[0])


def _redis_pid() -> int:
    client = redis.Redis(unix_socket_path=str(_socket()))
    try:
        return int(client.info("server")["process_id"])
    finally:
        client.close()


@pytest.fixture
def redis_stopped() -> Iterator[None]:
    pid = _redis_pid()
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


@pytest.fixture
def redis_killed() -> Iterator[None]:
    sock = _socket()
    os.kill(_redis_pid(), signal.SIGKILL)
    owned = embedded._started_redis.pop(sock, None)
    if owned is not None:
        owned.wait(timeout=10)  # reap it
    wait_for(lambda: not embedded._redis_alive(sock), 10, "Redis to be gone")
    yield
    if not embedded._redis_alive(sock):
        embedded.start_redis(sock)


def _timed(call: Any) -> tuple[Any, float]:
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


@pytest.mark.worker
@pytest.mark.timeout(120)
def test_writes_answer_503_within_2_s_with_the_row_saved_while_redis_is_stopped(
    transactional_db: Any,
    analyst: Any,
    reviewer: Any,
    make_task: Any,  # noqa: F811
    redis_stopped: None,
) -> None:
    from briefs.models import BriefRun
    from portfolios.services import watchlist_create
    from research.chat.models import Turn
    from research.models import Document
    from reviews.models import ReviewTask

    api = APIClient()
    api.force_login(analyst)
    decider = APIClient()
    decider.force_login(reviewer)
    stalled = watchlist_create(user=analyst, name="Stalled queue", tickers=["INFY.NS"], recipients=[])
    task = make_task(kind=ReviewTask.Kind.CHAT_ESCALATION)

    chat, chat_s = _timed(lambda: api.post("/api/v1/chat", {"question": "What is 6 * 7?"}, format="json"))
    upload, upload_s = _timed(
        lambda: api.post(
            "/api/v1/research/documents", {"files": [SimpleUploadedFile("note.md", NOTE)]}, format="multipart"
        )
    )
    start, start_s = _timed(lambda: api.post("/api/v1/briefs/runs", {"watchlist_id": stalled.pk}, format="json"))
    decide, decide_s = _timed(
        lambda: decider.post(f"/api/v1/reviews/tasks/{task.pk}/decide", {"outcome": "approve"}, format="json")
    )

    answers = {"chat": chat, "upload": upload, "brief": start, "decision": decide}
    assert {name: r.status_code for name, r in answers.items()} == {
        "chat": 503,
        "upload": 503,
        "brief": 503,
        "decision": 503,
    }
    assert {name: r.json()["error"] for name, r in answers.items()} == dict.fromkeys(answers, "queue_unavailable")
    seconds = {"chat": chat_s, "upload": upload_s, "brief": start_s, "decision": decide_s}
    assert max(seconds.values()) < 2.0, seconds
    assert Turn.objects.get(pk=chat.json()["id"]).status == "queued"
    assert Document.objects.get(pk=upload.json()["created"][0]["id"]).status == "queued"
    assert BriefRun.objects.get(pk=start.json()["id"]).status == "queued"
    assert ReviewTask.objects.get(pk=task.pk).resume_state == "queued"


@pytest.mark.worker
@pytest.mark.timeout(300)
def test_a_document_a_question_and_a_brief_sent_while_redis_was_killed_complete_once_when_it_returns(
    celery_worker: Any,
    analyst: Any,
    watchlist: Any,  # noqa: F811
    feeds: Any,  # noqa: F811
    smtp_inbox: Any,  # noqa: F811
    settings: Any,
    redis_killed: None,
) -> None:
    from briefs.models import Brief, BriefRun
    from briefs.services import brief_runs_sweep
    from research.agent.verify.claims import render_text
    from research.chat.models import Turn
    from research.chat.services import chat_turns_sweep
    from research.models import Chunk, Document
    from research.services import document_ingest_sweep

    api = APIClient()
    api.force_login(analyst)
    upload, upload_s = _timed(
        lambda: api.post(
            "/api/v1/research/documents", {"files": [SimpleUploadedFile("desk-note.md", NOTE)]}, format="multipart"
        )
    )
    chat, chat_s = _timed(lambda: api.post("/api/v1/chat", {"question": "What is 12 * 3?"}, format="json"))
    start, start_s = _timed(lambda: api.post("/api/v1/briefs/runs", {"watchlist_id": watchlist.pk}, format="json"))
    assert [upload.status_code, chat.status_code, start.status_code] == [503, 503, 503]
    assert max(upload_s, chat_s, start_s) < 2.0, (upload_s, chat_s, start_s)
    document_id, turn_id, run_id = upload.json()["created"][0]["id"], chat.json()["id"], start.json()["id"]

    embedded.start_redis(_socket())  # Redis is back; the worker reconnects by itself
    settings.INGEST_REQUEUE_AFTER_SECONDS = 0
    settings.CHAT_REQUEUE_AFTER_SECONDS = 0
    settings.BRIEF_RUN_REQUEUE_AFTER_SECONDS = 0
    time.sleep(0.05)  # the rows' timestamps are now older than "0 seconds ago"
    # What beat does every minute:
    assert document_ingest_sweep() == {"requeued": 1, "reset_from_processing": 0}
    assert chat_turns_sweep() == {"requeued": 1, "reset_from_running": 0}
    assert brief_runs_sweep() == {"requeued": 1, "resumed": 0}

    wait_for(lambda: Document.objects.get(pk=document_id).status == "done", 120, "the document")
    wait_for(lambda: Turn.objects.get(pk=turn_id).status == "done", 60, "the chat answer")
    wait_for(lambda: BriefRun.objects.get(pk=run_id).status == "awaiting_review", 120, "the brief at its gate")

    document = Document.objects.get(pk=document_id)
    assert document.chunk_count >= 1
    assert Chunk.objects.filter(document_id=document_id).count() == document.chunk_count  # stored once
    answered = Turn.objects.get(pk=turn_id)
    assert render_text(answered.answer, answered.claims) == "Result: 36.00 [Calculated: 12 * 3]"  # by hand
    assert BriefRun.objects.filter(watchlist=watchlist).count() == 1
    assert Brief.objects.filter(run_id=run_id).count() == 1
    # Nothing left behind, and nothing sent twice:
    assert document_ingest_sweep() == {"requeued": 0, "reset_from_processing": 0}
    assert chat_turns_sweep() == {"requeued": 0, "reset_from_running": 0}
    assert brief_runs_sweep() == {"requeued": 0, "resumed": 0}
