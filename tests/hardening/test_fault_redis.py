"""Fault: Redis (the Celery broker and the cache) stopped while analysts submit chat messages.

Induced for real: the embedded Redis the test session uses is shut down. The page and the API
say the queue is unavailable and the question is saved (the API with 503 and the saved turn);
nothing answers 500 (the rate limiter fails open). When Redis is back, the sweep sends the saved
turns and a real worker answers them."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.conf import settings
from django.test import Client
from rest_framework.test import APIClient

from config import embedded
from core.tasks import QUEUE_DOWN_NOTICE
from research.chat.models import Turn
from research.chat.services import chat_turns_sweep


def _socket() -> Any:
    from pathlib import Path

    return Path(settings.REDIS_URL.removeprefix("unix://").split("?")[0])


@pytest.fixture
def redis_down() -> Iterator[None]:
    sock = _socket()
    client = redis.Redis(unix_socket_path=str(sock))
    try:
        client.shutdown(save=True)  # a real stop, whoever started it
    except redis.ConnectionError:
        pass  # SHUTDOWN closes the connection it came on
    finally:
        client.close()
    owned = embedded._started_redis.pop(sock, None)
    if owned is not None:
        owned.wait(timeout=10)  # reap it: it stopped on SHUTDOWN
    assert not embedded._redis_alive(sock)
    yield
    if not embedded._redis_alive(sock):
        embedded.start_redis(sock)


@pytest.mark.worker
@pytest.mark.timeout(180)
def test_chat_posted_while_redis_is_down_is_saved_said_and_answered_later(
    celery_worker: Any, analyst: Any, redis_down: None, settings: Any
) -> None:
    page = Client()
    page.force_login(analyst)
    posted = page.post("/research/chat/", {"question": "What is 12 * 3?"}, follow=True)
    assert posted.status_code == 200
    assert QUEUE_DOWN_NOTICE in posted.content.decode()

    api = APIClient()
    api.force_login(analyst)
    response = api.post("/api/v1/chat", {"question": "What is 7 + 5?"}, format="json")
    assert response.status_code == 503, response.content[:300]  # saved; runs when the queue is back
    assert response.json()["notice"] == QUEUE_DOWN_NOTICE and response.json()["status"] == "queued"
    assert Turn.objects.filter(status=Turn.Status.QUEUED).count() == 2

    embedded.start_redis(_socket())  # Redis is back; the worker reconnects by itself
    settings.CHAT_REQUEUE_AFTER_SECONDS = 0
    assert chat_turns_sweep() == {"requeued": 2, "reset_from_running": 0}
    deadline = time.monotonic() + 90
    while Turn.objects.exclude(status=Turn.Status.DONE).exists() and time.monotonic() < deadline:
        time.sleep(0.3)
    answers = dict(Turn.objects.values_list("question", "status"))
    assert answers == {"What is 12 * 3?": "done", "What is 7 + 5?": "done"}
    assert chat_turns_sweep() == {"requeued": 0, "reset_from_running": 0}  # nothing left, nothing twice
