"""Per-watchlist beat schedules (django-celery-beat): one PeriodicTask per watchlist, kept in step
with the watchlist's brief_enabled / brief_time / brief_weekdays / timezone."""

from __future__ import annotations

import json
from typing import Any

from django_celery_beat.models import CrontabSchedule, PeriodicTask

TASK = "briefs.tasks.brief_run_scheduled"


def schedule_name(watchlist_id: int) -> str:
    return f"morning-brief-watchlist-{watchlist_id}"


def brief_schedule_sync(*, watchlist: Any) -> PeriodicTask | None:
    """Create, update or disable the watchlist's beat entry (e.g. 07:00 Mon–Fri, its timezone)."""
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
    task, _ = PeriodicTask.objects.update_or_create(
        name=name,
        defaults={
            "task": TASK,
            "crontab": crontab,
            "interval": None,
            "args": json.dumps([watchlist.pk]),
            "enabled": True,
        },
    )
    return task
