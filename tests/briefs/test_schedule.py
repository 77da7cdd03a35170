"""Per-watchlist beat schedule, and the scheduled task refusing a second active run."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.utils import timezone

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
    from briefs.services import brief_run_start
    from briefs.tasks import brief_run_scheduled
    from portfolios.models import Watchlist
    from portfolios.services import watchlist_create

    w = watchlist_create(user=analyst, name="Banks", tickers=["SBIN.NS"], brief_enabled=True,
                         brief_weekdays=[0, 1, 2, 3, 4, 5, 6])  # fmt: skip
    # Switched on long ago: whichever slot the real clock gives was promised.
    Watchlist.objects.filter(pk=w.pk).update(brief_schedule_since=timezone.now() - dt.timedelta(days=30))
    with django_capture_on_commit_callbacks(execute=False):
        manual = brief_run_start(user=analyst, watchlist_id=w.pk)
        assert brief_run_scheduled(w.pk) == "already_active"
        BriefRun.objects.filter(pk=manual.pk).update(status="delivered")
        # Beat's own entry (the real clock): the run names the slot it serves.
        assert brief_run_scheduled(w.pk).startswith("run ")
        assert brief_run_scheduled(w.pk) == "already_ran"  # the same slot sent again
    scheduled = BriefRun.objects.get(watchlist=w, trigger="schedule")
    assert scheduled.slot is not None and scheduled.slot <= timezone.now()
    assert BriefRun.objects.filter(watchlist=w).count() == 2


def test_demo_command_schedules_enabled_watchlists(analyst: Any) -> None:
    from io import StringIO

    from django.core.management import call_command
    from django_celery_beat.models import PeriodicTask

    from portfolios.models import Watchlist

    Watchlist.objects.create(owner=analyst, name="On", tickers=["AAPL"], brief_enabled=True)
    Watchlist.objects.create(owner=analyst, name="Off", tickers=["AAPL"], brief_enabled=False)
    out = StringIO()
    call_command("seed_briefs", stdout=out)
    call_command("seed_briefs", stdout=out)  # idempotent
    assert "1 watchlist brief schedule(s) installed." in out.getvalue()
    assert PeriodicTask.objects.filter(task="briefs.tasks.brief_run_scheduled", enabled=True).count() == 1


def test_no_path_from_verifier_to_delivery_skips_the_gate() -> None:
    from briefs.agent.graph import build_graph

    edges = {(e.source, e.target) for e in build_graph().get_graph().edges}
    assert {s for s, t in edges if t == "deliver"} == {"gate"}
    assert {t for s, t in edges if s == "verifier"} == {"gate", "regenerate"}
    assert {t for s, t in edges if s == "regenerate"} == {"supervisor"}
    assert {t for s, t in edges if s == "supervisor"} == {"data_agent", "news_agent", "writer", "finish"}
