"""Scheduled briefs: exactly one run per schedule slot, and the catch-up of a slot beat missed.

Beat (one PeriodicTask per watchlist, ``briefs.schedules``) calls :func:`brief_run_for_schedule`;
the brief sweep calls :func:`brief_schedules_catch_up`. Both start the run of a *slot*, the latest
scheduled instant at or before now, and the database admits one run per watchlist and slot: beat
re-sending a slot after a restart, or the sweep racing beat, gets "already_ran", never a second
brief."""

from __future__ import annotations

import datetime as dt
import logging
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from briefs import services
from briefs.models import BriefRun
from briefs.schedules import TASK, schedule_name, watchlist_latest_slot
from core.audit import audit_record
from portfolios.models import Watchlist

logger = logging.getLogger(__name__)


def brief_run_for_slot(*, watchlist: Watchlist, slot: dt.datetime, via: str) -> str:
    """Start the scheduled run of ``slot`` as the watchlist's owner: ``run <id>``, or why not."""
    since = watchlist.brief_schedule_since
    if since is not None and slot < since:
        logger.info("scheduled brief skipped for watchlist %s: slot %s precedes the schedule", watchlist.pk, slot)
        return "before_schedule"
    try:
        run = services.brief_run_start(
            user=watchlist.owner, watchlist_id=watchlist.pk, trigger=BriefRun.Trigger.SCHEDULE, slot=slot
        )
    except services.SlotAlreadyRan as exc:
        logger.info("scheduled brief for watchlist %s, slot %s: already ran (%s)", watchlist.pk, slot, via)
        audit_record(
            actor=None,
            action="brief_run.slot_already_ran",
            subject=exc.run or watchlist,
            after={"watchlist": watchlist.pk, "slot": slot.isoformat(), "via": via},
        )
        return "already_ran"
    except services.RunAlreadyActive as exc:
        logger.info("scheduled brief skipped for watchlist %s: %s", watchlist.pk, exc)
        return "already_active"
    except ValidationError as exc:  # no tickers: nothing to brief
        logger.info("scheduled brief skipped for watchlist %s: %s", watchlist.pk, exc)
        return "invalid"
    return f"run {run.pk}"


def brief_run_for_schedule(*, watchlist_id: int, now: dt.datetime | None = None) -> str:
    """What beat's entry does: start the run of the watchlist's latest slot at or before ``now``."""
    watchlist = services.watchlist_for_schedule(watchlist_id)
    if watchlist is None:
        return "disabled"
    slot = watchlist_latest_slot(watchlist, now or timezone.now())
    if slot is None:
        return "disabled"  # no weekday chosen
    return brief_run_for_slot(watchlist=watchlist, slot=slot, via="beat")


def slot_to_catch_up(
    *, now: dt.datetime, slot: dt.datetime | None, since: dt.datetime | None, tz: str, mode: str, grace: dt.timedelta
) -> bool:
    """Whether a slot with no run is caught up now: beat has had its grace, the schedule was on at
    the slot, and (``same_day``) the slot is on the watchlist's local today."""
    if slot is None or mode == "off" or now < slot + grace:
        return False
    if since is not None and slot < since:
        return False  # switched on (or retimed) after the slot: it was never promised
    zone = ZoneInfo(tz)
    return slot.astimezone(zone).date() == now.astimezone(zone).date()


def _served(watchlist: Watchlist, slot: dt.datetime) -> bool:
    """The slot has its run, or beat would have skipped it: a run was active at the slot (beat's
    entry finds it and skips), or one was started since (the owner already has a brief)."""
    runs = BriefRun.objects.filter(watchlist=watchlist)
    return runs.filter(
        Q(slot=slot) | Q(created_at__gte=slot) | Q(status__in=BriefRun.ACTIVE) | Q(finished_at__gt=slot)
    ).exists()


def brief_schedules_catch_up(*, now: dt.datetime | None = None) -> dict[str, int]:
    """Start the run of each enabled schedule's latest slot that beat missed (it was down, or its
    message was lost), per ``BRIEF_SCHEDULE_CATCH_UP``. Safe to repeat: one run per slot."""
    mode = settings.BRIEF_SCHEDULE_CATCH_UP
    if mode == "off":
        return {"caught_up": 0}
    now = now or timezone.now()
    grace = dt.timedelta(seconds=settings.BRIEF_SCHEDULE_CATCH_UP_GRACE_SECONDS)
    on_beat = set(PeriodicTask.objects.filter(task=TASK, enabled=True).values_list("name", flat=True))
    started = 0
    for watchlist in Watchlist.objects.filter(brief_enabled=True).select_related("owner"):
        if schedule_name(watchlist.pk) not in on_beat:
            continue
        slot = watchlist_latest_slot(watchlist, now)
        # A schedule from before brief_schedule_since was recorded: its last edit bounds it.
        since = watchlist.brief_schedule_since or watchlist.updated_at
        if not slot_to_catch_up(now=now, slot=slot, since=since, tz=watchlist.timezone, mode=mode, grace=grace):
            continue
        assert slot is not None
        if _served(watchlist, slot):
            continue
        if brief_run_for_slot(watchlist=watchlist, slot=slot, via="catch_up").startswith("run "):
            logger.info("caught up the missed brief of watchlist %s for %s", watchlist.pk, slot)
            started += 1
    return {"caught_up": started}
