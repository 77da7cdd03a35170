"""Celery tasks: take an id, call a service or the runner (idempotent: each checks state first)."""

from __future__ import annotations

from celery import shared_task

from briefs import recovery, runs, scheduled, services


@shared_task(name=services.RUN_EXECUTE_TASK)  # "briefs.tasks.brief_run_execute"
def brief_run_execute(run_id: int) -> str:
    return runs.brief_run_execute(run_id=run_id)


@shared_task(name="briefs.tasks.brief_run_scheduled")
def brief_run_scheduled(watchlist_id: int) -> str:
    """The beat entry of one watchlist: start the run of its latest slot as the owner, unless that
    slot already has its run or another run is active."""
    return scheduled.brief_run_for_schedule(watchlist_id=watchlist_id)


@shared_task(name="briefs.tasks.brief_runs_sweep")
def brief_runs_sweep() -> dict[str, int]:
    """Beat, every BRIEF_SWEEP_SECONDS: re-send runs a lost message or a dead worker left queued or
    silent; end or resume runs left awaiting review after their decision; catch up missed slots."""
    counts = services.brief_runs_sweep()
    counts.update(recovery.brief_runs_unblock())
    counts.update(scheduled.brief_schedules_catch_up())
    return counts
