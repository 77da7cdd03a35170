"""Per-watchlist beat schedule, and the scheduled task refusing a second active run."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

pytestmark = pytest.mark.django_db


def test_schedule_follows_the_watchlist(analyst: Any) -> None:
    from django_celery_beat.models import PeriodicTask

    from briefs.schedules import schedule_name
    from portfolios.services import watchlist_create, watchlist_update

    w = watchlist_create(user=analyst, name="US megacaps", tickers=["AAPL", "MSFT"], timezone="America/New_York",
                         brief_enabled=True, brief_time=dt.time(7, 0), brief_weekdays=[0, 1, 2, 3, 4])  # fmt: skip
    task = PeriodicTask.objects.get(name=schedule_name(w.pk))
    assert task.enabled and json.loads(task.args) == [w.pk] and task.task == "briefs.tasks.brief_run_scheduled"
    assert (task.crontab.hour, task.crontab.minute, task.crontab.day_of_week) == ("7", "0", "1,2,3,4,5")
    assert str(task.crontab.timezone) == "America/New_York"
    watchlist_update(user=analyst, watchlist_id=w.pk, brief_time=dt.time(6, 30), brief_weekdays=[6])
    task.refresh_from_db()
    assert (task.crontab.hour, task.crontab.minute, task.crontab.day_of_week) == ("6", "30", "0")
    watchlist_update(user=analyst, watchlist_id=w.pk, brief_enabled=False)
    task.refresh_from_db()
    assert not task.enabled


def test_scheduled_run_skips_when_one_is_active(analyst: Any, django_capture_on_commit_callbacks: Any) -> None:
    from briefs.models import BriefRun
    from briefs.tasks import brief_run_scheduled
    from portfolios.services import watchlist_create

    w = watchlist_create(user=analyst, name="Banks", tickers=["SBIN.NS"], brief_enabled=True)
    with django_capture_on_commit_callbacks(execute=False):
        assert brief_run_scheduled(w.pk).startswith("run ")
        assert brief_run_scheduled(w.pk) == "already_active"
    assert BriefRun.objects.filter(watchlist=w).count() == 1
    assert BriefRun.objects.get(watchlist=w).trigger == "schedule"
