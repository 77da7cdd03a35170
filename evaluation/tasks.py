"""Celery task: take a run id, execute the run (a run no longer queued is skipped)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="evaluation.run_execute")
def evaluation_run_execute(run_id: int) -> str:
    from evaluation.runner import execute

    return execute(run_id)
