"""Celery task: take a run id, execute the run (a run no longer queued is skipped)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="evaluation.run_execute")  # services.RUN_EXECUTE_TASK
def evaluation_run_execute(run_id: int) -> str:
    from evaluation.runner import execute

    return execute(run_id)


@shared_task(name="evaluation.runs_sweep")
def evaluation_runs_sweep() -> int:
    """Beat: re-send evaluation runs a broker outage left queued."""
    from evaluation.services import eval_runs_sweep

    return eval_runs_sweep()
