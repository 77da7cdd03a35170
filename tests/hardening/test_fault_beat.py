"""Fault: Celery beat killed just after it sent a watchlist's morning brief, then started again.

Induced for real: a real ``celery beat`` (django-celery-beat's database scheduler) sends the slot to
a real worker, and is killed with SIGKILL as soon as the run exists — before it has written the
entry's last run time back to the database. Started again, beat finds the slot due and sends it a
second time; the database admits one run per watchlist and slot, so the second start is refused
("already_ran", audited) and exactly one run exists."""

from __future__ import annotations

import datetime as dt
import signal
import time
from typing import Any

import pytest

from tests.hardening.workers import start_beat, stop_workers, wait_for


@pytest.mark.worker
@pytest.mark.timeout(240)
def test_beat_killed_after_sending_a_slot_and_restarted_leaves_one_run_for_that_slot(
    celery_worker: Any, analyst: Any
) -> None:
    from django_celery_beat.models import PeriodicTask

    from briefs.models import BriefRun
    from briefs.schedules import schedule_name
    from core.models import AuditEvent
    from portfolios.models import Watchlist
    from portfolios.services import watchlist_create

    # A schedule that has run for days, its slot at the next minute: beat has started (and written its
    # entries once) before the slot is due, as on any morning. Django-celery-beat writes the last run
    # time back only every few minutes, so a beat killed just after sending leaves yesterday's there.
    now = dt.datetime.now(dt.UTC)
    ahead = 2 if now.second > 54 else 1  # beat needs ~2 s to start
    slot = (now + dt.timedelta(minutes=ahead)).replace(second=0, microsecond=0)
    watchlist = watchlist_create(
        user=analyst,
        name="Beat fault",
        tickers=["INFY.NS"],
        recipients=[],
        timezone="UTC",
        brief_enabled=True,
        brief_time=slot.time(),
        brief_weekdays=range(7),
    )
    yesterday = slot - dt.timedelta(days=1)
    Watchlist.objects.filter(pk=watchlist.pk).update(brief_schedule_since=yesterday - dt.timedelta(hours=1))
    PeriodicTask.objects.filter(name=schedule_name(watchlist.pk)).update(last_run_at=yesterday)
    first = second = None
    try:
        first = start_beat("first")
        wait_for(lambda: BriefRun.objects.filter(watchlist=watchlist).exists(), 150, "beat to send the slot")
        first.send_signal(signal.SIGKILL)  # before it writes the entry's last run time back
        first.wait(timeout=10)

        second = start_beat("second")
        refused = AuditEvent.objects.filter(action="brief_run.slot_already_ran")
        wait_for(refused.exists, 40, "the restarted beat to send the same slot again")
        time.sleep(1)  # anything else it sent has reached the worker
    finally:
        stop_workers(first, second)

    runs = list(BriefRun.objects.filter(watchlist=watchlist).values_list("trigger", "slot"))
    assert runs == [("schedule", slot)]
    assert refused.count() == 1
