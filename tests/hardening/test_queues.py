"""Celery queues by kind (config/settings.py CELERY_TASK_ROUTES): each task lands on its queue, and
a chat turn is answered while the ingest pool is busy with a long document, about as fast as when
it is idle (within 1.5×): the chat pool never waits behind the ingest."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from typing import Any

import pytest
from celery import current_app

from research.chat.models import Turn
from research.models import Document
from tests.hardening.hosts import broker_url
from tests.hardening.workers import start_worker, stop_workers, wait_for

NOTE = b"# Quokka desk note\n\nThe desk expects the quokka index to close at 4,217 points by March.\n"
QUESTION = "Where will the quokka index close?"
WORDS = ["rupee", "yield", "inflation", "liquidity", "repo", "policy", "credit", "deposit", "banking", "margin"]


def test_each_task_is_routed_to_its_queue() -> None:
    route = current_app.amqp.router.route
    queues = {
        name: route({}, name)["queue"].name
        for name in [
            "research.ingest_document",
            "research.chat_turn_run",
            "briefs.tasks.brief_run_execute",
            "briefs.tasks.brief_run_scheduled",
            "reviews.tasks.review_task_resume",
            "research.documents_ingest_sweep",
            "evaluation.run_execute",
            "core.tasks.worker_probe_complete",
        ]
    }
    assert queues == {
        "research.ingest_document": "ingest",
        "research.chat_turn_run": "chat",
        "briefs.tasks.brief_run_execute": "briefs",
        "briefs.tasks.brief_run_scheduled": "briefs",
        "reviews.tasks.review_task_resume": "briefs",
        "research.documents_ingest_sweep": "default",
        "evaluation.run_execute": "default",
        "core.tasks.worker_probe_complete": "default",
    }
    assert [q.name for q in current_app.conf.task_queues] == ["ingest", "chat", "briefs", "default"]


def _send(task_name: str, *args: Any) -> None:
    """Publish as the app does (its routing), to the pools' own broker database (tests/hardening/hosts.py)."""
    with current_app.connection_for_write(broker_url()) as connection:
        current_app.tasks[task_name].apply_async(args, connection=connection)


@pytest.fixture
def pools(transactional_db: Any) -> Iterator[None]:
    env = {"CELERY_BROKER_URL": broker_url(), "RESEARCH_EMBED_CACHE_DIR": ""}
    ingest = start_worker("pool-ingest", "ingest", **env, RESEARCH_EMBED_THREADS="1")
    chat = start_worker("pool-chat", "chat", **env)
    try:
        yield
    finally:
        stop_workers(ingest, chat)


def _turn_seconds(analyst: Any, monkeypatch: pytest.MonkeyPatch) -> float:
    from research.chat.services import chat_message_post

    with monkeypatch.context() as patch:
        patch.setattr("research.chat.services._enqueue_or_flag", lambda turn: None)
        turn = chat_message_post(user=analyst, question=QUESTION)
    started = time.monotonic()
    _send("research.chat_turn_run", turn.pk)
    wait_for(lambda: not Turn.objects.get(pk=turn.pk).is_active, 60, "the chat turn")
    seconds = time.monotonic() - started
    answered = Turn.objects.get(pk=turn.pk)
    assert answered.status in {"done", "escalated"} and "4,217" in answered.answer, (answered.status, answered.answer)
    return seconds


@pytest.mark.worker
@pytest.mark.quiet  # a latency ratio: another test's load on the shared cores would decide it
@pytest.mark.timeout(240)
def test_a_chat_turn_is_answered_while_the_ingest_queue_is_busy(
    pools: None, analyst: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from research.services import UploadFile, document_upload

    def upload(name: str, data: bytes) -> int:
        with monkeypatch.context() as patch:
            patch.setattr("research.services._enqueue_ingest_flagging", lambda document: None)
            document = document_upload(user=analyst, files=[UploadFile(name=name, data=data)]).created[0]
        _send("research.ingest_document", document.pk)
        return int(document.pk)

    note = upload("quokka.md", NOTE)
    wait_for(lambda: Document.objects.get(pk=note).status == "done", 90, "the note")
    _turn_seconds(analyst, monkeypatch)  # the chat worker's first turn loads its models
    idle = [_turn_seconds(analyst, monkeypatch) for _ in range(3)]

    rng = __import__("random").Random(50)
    paragraphs = [" ".join(rng.choice(WORDS) for _ in range(120)) for _ in range(300)]
    long_id = upload("long-report.md", ("# Long report\n\n" + "\n\n".join(paragraphs)).encode())

    def embedding() -> bool:
        document = Document.objects.get(pk=long_id)
        return document.status == "processing" and document.progress >= 10

    wait_for(embedding, 90, "the ingest pool to be embedding the long document")
    busy = [_turn_seconds(analyst, monkeypatch) for _ in range(3)]
    assert Document.objects.get(pk=long_id).status == "processing"  # still busy after the last turn
    idle_s, busy_s = statistics.median(idle), statistics.median(busy)
    print(f"chat turn median: idle {idle_s:.3f} s, ingest busy {busy_s:.3f} s ({busy_s / idle_s:.2f}x)", idle, busy)
    assert busy_s <= 1.5 * idle_s, (idle, busy)
    wait_for(lambda: Document.objects.get(pk=long_id).status == "done", 120, "the long document")
