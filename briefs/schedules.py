"""Per-watchlist beat schedules (django-celery-beat): one PeriodicTask per watchlist, kept in step
with the watchlist's brief_enabled / brief_time / brief_weekdays / timezone; and the schedule's
slots (the instants a scheduled brief is for)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from typing import Any
from zoneinfo import ZoneInfo

from django.utils import timezone
from django_celery_beat.models import CrontabSchedule, PeriodicTask

from portfolios.models import Watchlist

TASK = "briefs.tasks.brief_run_scheduled"


def schedule_name(watchlist_id: int) -> str:
    return f"morning-brief-watchlist-{watchlist_id}"


def brief_schedule_sync(*, watchlist: Any) -> PeriodicTask | None:
    """Create, update or disable the watchlist's beat entry (e.g. 07:00 Mon–Fri, its timezone).

    When the schedule is switched on or retimed, the watchlist's ``brief_schedule_since`` is set to
    now: a slot before that moment was never promised, so it is neither caught up nor served."""
    name = schedule_name(watchlist.pk)
    if not watchlist.brief_enabled or not watchlist.brief_weekdays:
        PeriodicTask.objects.filter(name=name).update(enabled=False)
        return None
    # Cron counts Sunday as 0; the watchlist counts Monday as 0.
    days = ",".join(str((d + 1) % 7) for d in sorted(set(watchlist.brief_weekdays)))
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute=str(watchlist.brief_time.minute),
        hour=str(watchlist.brief_time.hour),
        day_of_week=days,
        day_of_month="*",
        month_of_year="*",
        timezone=watchlist.timezone,
    )
    existing = PeriodicTask.objects.filter(name=name).first()
    changed = existing is None or not existing.enabled or existing.crontab_id != crontab.pk
    defaults: dict[str, Any] = {
        "task": TASK,
        "crontab": crontab,
        "interval": None,
        "args": json.dumps([watchlist.pk]),
        "enabled": True,
    }
    if changed:
        # Beat counts the next run from last_run_at: kept from the old timing, a new time earlier
        # in the day would look overdue and fire at once for a slot that was never promised.
        defaults["last_run_at"] = None
    task, _ = PeriodicTask.objects.update_or_create(name=name, defaults=defaults)
    if changed:
        since = timezone.now()
        Watchlist.objects.filter(pk=watchlist.pk).update(brief_schedule_since=since)
        watchlist.brief_schedule_since = since
    return task


def slot_instant(day: dt.date, at: dt.time, zone: ZoneInfo) -> dt.datetime:
    """The UTC instant of wall time ``at`` on ``day`` in ``zone``. A wall time that occurs twice
    (clocks going back) or never (clocks going forward) is taken at its earliest reading, so
    whenever beat fires for that day, the slot is at or before it."""
    wall = dt.datetime.combine(day, at.replace(tzinfo=None))
    readings = (wall.replace(tzinfo=zone, fold=fold).astimezone(dt.UTC) for fold in (0, 1))
    return min(readings)


def latest_slot(now: dt.datetime, *, at: dt.time, weekdays: Iterable[int], tz: str) -> dt.datetime | None:
    """The latest scheduled instant at or before ``now`` (aware) for a brief at local time ``at``
    on ``weekdays`` (Monday = 0) in time zone ``tz``, in UTC; None when no weekday is chosen."""
    days = set(weekdays)
    if not days:
        return None
    zone = ZoneInfo(tz)
    today = now.astimezone(zone).date()
    for back in range(8):  # a week and a day: today's slot may still be ahead, last week's is not
        day = today - dt.timedelta(days=back)
        if day.weekday() in days:
            instant = slot_instant(day, at, zone)
            if instant <= now:
                return instant
    return None


def watchlist_latest_slot(watchlist: Any, now: dt.datetime) -> dt.datetime | None:
    return latest_slot(now, at=watchlist.brief_time, weekdays=watchlist.brief_weekdays, tz=watchlist.timezone)
