"""Fault: a Celery worker killed with SIGKILL in the middle of a chat turn.

Induced for real: a worker (Anthropic mode against the local fake API, which holds its answer)
is killed while the turn's planner waits on the model. The turn is left "running" and its message
unacknowledged (acks_late): a redelivery would find the turn claimed and skip it. The sweep puts a
turn running for longer than CHAT_RUNNING_STALE_SECONDS back in the queue; a new worker answers it,
once, and nothing is lost (the question, the conversation, one final status, at most one review)."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings

from research.chat.models import Turn
from research.chat.services import chat_message_post, chat_turns_sweep
from research.tasks import chat_turn_run
from tests.hardening.workers import start_worker, stop_workers, wait_for
from tests.research.fake_llm import FakeLLMServer, fake_llm_server

QUEUE = "adk-kill-test"
QUESTION = "Give me your view on emerging market sentiment this quarter"  # no fast-path rule: the model plans


def _worker(fake: FakeLLMServer, name: str, queues: str) -> subprocess.Popen[bytes]:
    return start_worker(
        name, queues, ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake.url, LLM_TIMEOUT_SECONDS="60"
    )


@pytest.fixture
def fake() -> Iterator[FakeLLMServer]:
    with fake_llm_server() as server:
        yield server


@pytest.mark.worker
@pytest.mark.timeout(240)
def test_a_turn_whose_worker_is_killed_is_answered_once_after_the_sweep(
    transactional_db: Any, analyst: Any, fake: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.delay = 45.0  # the model "thinks" long enough to be killed mid-call
    first = _worker(fake, "doomed", QUEUE)
    second = None
    try:
        # Enqueued by hand, on the test's queue only: outside a test transaction the commit hook
        # would publish to the default queue, where another test's worker may be listening.
        monkeypatch.setattr("research.chat.services._enqueue_or_flag", lambda turn: None)
        turn = chat_message_post(user=analyst, question=QUESTION)
        monkeypatch.undo()
        chat_turn_run.apply_async((turn.pk,), queue=QUEUE)
        wait_for(lambda: fake.requests, 60, "the planner's model call")
        assert Turn.objects.get(pk=turn.pk).status == Turn.Status.RUNNING
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)

        fake.delay = 0.0  # the next worker gets a fast (failing) model: the agent falls back
        second = _worker(fake, "rescuer", f"chat,{QUEUE}")  # the sweep sends to the chat queue
        time.sleep(3)  # anything redelivered would find the turn claimed and skip it
        assert Turn.objects.get(pk=turn.pk).status == Turn.Status.RUNNING  # stuck without the sweep

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(settings, "CHAT_RUNNING_STALE_SECONDS", 0)
            patch.setattr(settings, "CHAT_REQUEUE_AFTER_SECONDS", 0)
            assert chat_turns_sweep() == {"requeued": 1, "reset_from_running": 1}
        wait_for(lambda: not Turn.objects.get(pk=turn.pk).is_active, 120, "the turn to finish")
        final = Turn.objects.get(pk=turn.pk)
        assert final.status in {Turn.Status.DONE, Turn.Status.ESCALATED}, (final.status, final.error)
        assert final.question == QUESTION and Turn.objects.filter(conversation=final.conversation).count() == 1
        from reviews.models import ReviewTask

        assert ReviewTask.objects.filter(thread_id__startswith=final.conversation.thread_id).count() <= 1
        assert chat_turns_sweep() == {"requeued": 0, "reset_from_running": 0}
    finally:
        stop_workers(first, second)
