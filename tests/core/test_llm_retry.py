"""Bounded retries for model calls (core/llm/retry.py), through ``get_llm`` and the real Anthropic
adapter against a local fake API: 429, 5xx and timeouts are retried with a doubling, capped wait;
a bad request is not; the last failure is raised for the caller's graceful path."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import override_settings

from core.llm import LLMError, get_llm
from core.llm import retry as retry_module
from core.llm.retry import backoff_seconds
from tests.research.fake_llm import FakeLLMServer, anthropic_error, anthropic_text, fake_llm_server

ASK: dict[str, Any] = {"system": "", "messages": [{"role": "user", "content": "repo rate?"}], "max_tokens": 20}


@pytest.fixture
def claude() -> Iterator[FakeLLMServer]:
    with (
        fake_llm_server() as server,
        override_settings(
            ANTHROPIC_API_KEY="k",
            ANTHROPIC_BASE_URL=server.url,
            GOOGLE_API_KEY="",
            LLM_MAX_ATTEMPTS=3,
            LLM_RETRY_BASE_SECONDS=0.5,
            LLM_RETRY_MAX_SECONDS=4.0,
            LLM_TIMEOUT_SECONDS=1.0,
        ),
    ):
        yield server


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr(retry_module, "pause", slept.append)
    return slept


@pytest.mark.parametrize(
    ("attempt", "jitter", "expected"),
    [
        (1, 0.0, 0.25),  # 0.5 s, halved by the lowest jitter
        (1, 1.0, 0.5),
        (2, 1.0, 1.0),
        (3, 0.5, 1.5),  # 2 s × 0.75
        (4, 1.0, 4.0),  # 4 s: at the cap
        (6, 1.0, 4.0),  # 16 s, capped at 4
    ],
)
def test_the_wait_doubles_is_capped_and_jittered(attempt: int, jitter: float, expected: float) -> None:
    assert backoff_seconds(attempt, 0.5, 4.0, jitter=lambda: jitter) == pytest.approx(expected)


def test_rate_limit_and_server_error_are_retried_then_the_answer_is_kept(
    claude: FakeLLMServer, waits: list[float]
) -> None:
    claude.script((429, anthropic_error(429)), (503, anthropic_error(503)), (200, anthropic_text("Held at 6.50%.")))
    reply = get_llm("planner").complete(**ASK)  # type: ignore[union-attr]
    assert (reply.text, reply.attempts, len(claude.requests)) == ("Held at 6.50%.", 3, 3)
    assert len(waits) == 2 and 0.25 <= waits[0] < 0.5 and 0.5 <= waits[1] < 1.0


def test_three_failures_raise_the_last_error_for_the_graceful_path(claude: FakeLLMServer, waits: list[float]) -> None:
    claude.default = (500, anthropic_error(500))
    with pytest.raises(LLMError) as failed:
        get_llm("synthesis").complete(**ASK)  # type: ignore[union-attr]
    assert (failed.value.code, failed.value.attempts, len(claude.requests), len(waits)) == ("server_error", 3, 3, 2)


def test_a_bad_request_is_not_retried(claude: FakeLLMServer, waits: list[float]) -> None:
    claude.default = (400, anthropic_error(400))
    with pytest.raises(LLMError) as failed:
        get_llm("planner").complete(**ASK)  # type: ignore[union-attr]
    assert (failed.value.code, failed.value.attempts, len(claude.requests), waits) == ("bad_response", 1, 1, [])


def test_a_timeout_is_retried(claude: FakeLLMServer, waits: list[float]) -> None:
    claude.delay = 1.5  # past the 1 s timeout: every call times out
    with pytest.raises(LLMError) as failed:
        get_llm("planner").complete(**ASK)  # type: ignore[union-attr]
    assert (failed.value.code, failed.value.attempts, len(waits)) == ("timeout", 3, 2)


def test_one_attempt_means_no_retry(claude: FakeLLMServer, waits: list[float], settings: Any) -> None:
    settings.LLM_MAX_ATTEMPTS = 1
    claude.default = (429, anthropic_error(429))
    with pytest.raises(LLMError) as failed:
        get_llm("planner").complete(**ASK)  # type: ignore[union-attr]
    assert (failed.value.attempts, len(claude.requests), waits) == (1, 1, [])
