"""Celery tasks: take an id, call a service or the runner (idempotent: each checks state first)."""

from __future__ import annotations

import logging

from celery import shared_task

from briefs import runs, services
from briefs.models import BriefRun

logger = logging.getLogger(__name__)


@shared_task(name=services.RUN_EXECUTE_TASK)  # "briefs.tasks.brief_run_execute"
def brief_run_execute(run_id: int) -> str:
    return runs.brief_run_execute(run_id=run_id)


@shared_task(name="briefs.tasks.brief_run_scheduled")
def brief_run_scheduled(watchlist_id: int) -> str:
    """The beat entry of one watchlist: start its run as the owner, unless one is active."""
    watchlist = services.watchlist_for_schedule(watchlist_id)
    if watchlist is None:
        return "disabled"
    try:
        run = services.brief_run_start(
            user=watchlist.owner, watchlist_id=watchlist.pk, trigger=BriefRun.Trigger.SCHEDULE
        )
    except services.RunAlreadyActive as exc:
        logger.info("scheduled brief skipped for watchlist %s: %s", watchlist_id, exc)
        return "already_active"
    return f"run {run.pk}"


@shared_task(name="briefs.tasks.brief_runs_sweep")
def brief_runs_sweep() -> dict[str, int]:
    """Re-send runs a lost message or a dead worker left queued or silent (beat, every minute)."""
    return services.brief_runs_sweep()
