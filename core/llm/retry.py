"""Bounded retries for a model call: a rate limit (429), a server error (5xx, a dropped connection)
or a timeout is tried again after an exponential, jittered wait — at most ``LLM_MAX_ATTEMPTS``
calls, waits capped at ``LLM_RETRY_MAX_SECONDS`` — and then raised, so the caller's graceful path
(the extractive answer, the deterministic planner, a reviewer) takes over. A bad request is never
retried: the same request would fail the same way. The reply says how many calls it took.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable
from typing import Any

from core.llm import LLMError, LLMProvider, LLMResponse

RETRYABLE = frozenset({"rate_limited", "server_error", "timeout"})


def backoff_seconds(attempt: int, base: float, cap: float, jitter: Callable[[], float] = random.random) -> float:
    """The wait after failed call ``attempt`` (1-based): ``base × 2^(attempt−1)``, capped, then
    scaled by a factor in [0.5, 1) so that clients that failed together do not retry together."""
    return min(cap, base * 2 ** (attempt - 1)) * (0.5 + jitter() / 2)


def pause(seconds: float) -> None:
    """The wait between attempts (one name, so a test can record the waits instead)."""
    time.sleep(seconds)


class RetryingProvider:
    """``provider`` with bounded retries; the same interface (:class:`core.llm.LLMProvider`)."""

    def __init__(
        self,
        provider: LLMProvider,
        *,
        attempts: int,
        base_seconds: float,
        max_seconds: float,
    ) -> None:
        self.provider, self.attempts = provider, max(1, attempts)
        self.base_seconds, self.max_seconds = base_seconds, max_seconds
        self.name, self.model = provider.name, provider.model

    def complete(self, **kwargs: Any) -> LLMResponse:
        for attempt in range(1, self.attempts + 1):
            try:
                reply = self.provider.complete(**kwargs)
            except LLMError as exc:
                exc.attempts = attempt
                if exc.code not in RETRYABLE or attempt == self.attempts:
                    raise
                pause(backoff_seconds(attempt, self.base_seconds, self.max_seconds))
                continue
            return dataclasses.replace(reply, attempts=attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")
