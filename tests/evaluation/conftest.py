"""Evaluation fixtures: run a suite subset through the real runner (real Postgres, the product's
agents on the shipped snapshot data) and read back what it stored."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def evaluate(db: Any) -> Callable[..., Any]:
    """``evaluate(suite, *tags_or_ids, engine=...)`` → the finished EvalRun (executed in-process)."""
    from evaluation.runner import execute
    from evaluation.services import eval_run_start

    def run(suite: str, *selectors: str, engine: str = "deterministic") -> Any:
        started = eval_run_start(user=None, suite=suite, engine=engine, tags=list(selectors), trigger="command")
        execute(started.pk)
        started.refresh_from_db()
        assert started.status == "done", started.error
        return started

    return run
