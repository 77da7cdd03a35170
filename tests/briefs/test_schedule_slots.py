"""Exactly one brief per schedule slot, and the catch-up of a slot beat missed.

Every instant below is written by hand (UTC) from the zone's offset on that date: Asia/Kolkata is
UTC+05:30 all year; America/New_York is UTC-5 (EST) and UTC-4 (EDT) from 2024-03-10 02:00 to
2024-11-03 02:00 local; America/Los_Angeles is UTC-7 (PDT) in April 2025."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import IntegrityError, transaction

from briefs.schedules import latest_slot

UTC = dt.UTC
WEEKDAYS = [0, 1, 2, 3, 4]
EVERY_DAY = [0, 1, 2, 3, 4, 5, 6]


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("now", "time", "weekdays", "tz", "slot"),
    [
        # New York, 07:00 Monday to Friday, across the start of daylight saving time (Sun 10 March 2024).
        ("2024-03-08 12:30", "07:00", WEEKDAYS, "America/New_York", "2024-03-08 12:00"),  # Fri 07:30 EST
        ("2024-03-09 15:00", "07:00", WEEKDAYS, "America/New_York", "2024-03-08 12:00"),  # Saturday
        ("2024-03-10 15:00", "07:00", WEEKDAYS, "America/New_York", "2024-03-08 12:00"),  # Sunday, now EDT
        ("2024-03-11 10:30", "07:00", WEEKDAYS, "America/New_York", "2024-03-08 12:00"),  # Mon 06:30 EDT
        ("2024-03-11 11:00", "07:00", WEEKDAYS, "America/New_York", "2024-03-11 11:00"),  # Mon 07:00 EDT sharp
        # ... and its end (Sun 3 November 2024): Friday's slot was EDT, Monday's is EST.
        ("2024-11-04 11:59", "07:00", WEEKDAYS, "America/New_York", "2024-11-01 11:00"),
        ("2024-11-04 12:00", "07:00", WEEKDAYS, "America/New_York", "2024-11-04 12:00"),
        # Kolkata, 07:00 local = 01:30 UTC.
        ("2025-04-03 01:30", "07:00", WEEKDAYS, "Asia/Kolkata", "2025-04-03 01:30"),  # Thursday, on time
        ("2025-04-03 01:29", "07:00", WEEKDAYS, "Asia/Kolkata", "2025-04-02 01:30"),  # a minute early
        # Just before midnight: 23:59 IST = 18:29 UTC; Saturday 00:00 IST and Monday 00:01 IST.
        ("2025-04-04 18:30", "23:59", WEEKDAYS, "Asia/Kolkata", "2025-04-04 18:29"),
        ("2025-04-06 18:31", "23:59", WEEKDAYS, "Asia/Kolkata", "2025-04-04 18:29"),
        # Los Angeles, Friday 23:30 PDT is Saturday 06:30 UTC.
        ("2025-04-05 07:00", "23:30", WEEKDAYS, "America/Los_Angeles", "2025-04-05 06:30"),
        # Sundays only, 07:00 New York: the Sunday clocks went forward counts, in EDT.
        ("2024-03-17 10:00", "07:00", [6], "America/New_York", "2024-03-10 11:00"),
        # 02:30 never happens on 10 March 2024 in New York: the earliest reading, 06:30 UTC.
        ("2024-03-10 08:00", "02:30", EVERY_DAY, "America/New_York", "2024-03-10 06:30"),
        ("2024-03-10 06:00", "02:30", EVERY_DAY, "America/New_York", "2024-03-09 07:30"),
        # 01:30 happens twice on 3 November 2024: the first (EDT) one.
        ("2024-11-03 06:45", "01:30", EVERY_DAY, "America/New_York", "2024-11-03 05:30"),
    ],
)
def test_latest_slot_by_hand(now: str, time: str, weekdays: list[int], tz: str, slot: str) -> None:
    found = latest_slot(at(now), at=dt.time.fromisoformat(time), weekdays=weekdays, tz=tz)
    assert found == at(slot)
    assert found is not None and found.utcoffset() == dt.timedelta(0)


def test_no_weekday_no_slot() -> None:
    assert latest_slot(at("2025-04-03 12:00"), at=dt.time(7), weekdays=[], tz="Asia/Kolkata") is None


@pytest.fixture
def kolkata(analyst: Any) -> Any:
    """Brief at 07:00 IST (01:30 UTC) Monday to Friday, switched on on 1 April 2025."""
    from portfolios.models import Watchlist
    from portfolios.services import watchlist_create

    w = watchlist_create(user=analyst, name="Banks", tickers=["SBIN.NS"], brief_enabled=True,
                         brief_time=dt.time(7, 0), brief_weekdays=WEEKDAYS, timezone="Asia/Kolkata")  # fmt: skip
    Watchlist.objects.filter(pk=w.pk).update(brief_schedule_since=at("2025-04-01 00:00"))
    return w


@pytest.mark.django_db
def test_a_slot_sent_twice_gives_one_run(kolkata: Any) -> None:
    from briefs.models import BriefRun
    from briefs.scheduled import brief_run_for_schedule
    from core.models import AuditEvent

    assert BriefRun.objects.count() == 0
    first = brief_run_for_schedule(watchlist_id=kolkata.pk, now=at("2025-04-03 01:30:02"))  # beat, on time
    assert first.startswith("run ")
    run = BriefRun.objects.get()
    assert (run.slot, run.trigger) == (at("2025-04-03 01:30"), "schedule")
    # Beat killed a second after sending, restarted: the same slot is sent while the run is active ...
    assert brief_run_for_schedule(watchlist_id=kolkata.pk, now=at("2025-04-03 01:30:40")) == "already_ran"
    # ... and again after it ended (only the slot's own constraint can refuse it then).
    BriefRun.objects.filter(pk=run.pk).update(status="delivered")
    assert brief_run_for_schedule(watchlist_id=kolkata.pk, now=at("2025-04-03 02:10")) == "already_ran"
    assert BriefRun.objects.count() == 1
    assert AuditEvent.objects.filter(action="brief_run.slot_already_ran", subject_id=str(run.pk)).count() == 2
    # The next weekday's slot is a new one.
    assert brief_run_for_schedule(watchlist_id=kolkata.pk, now=at("2025-04-04 01:30:01")).startswith("run ")
    assert BriefRun.objects.count() == 2
    # The database refuses a second run for a slot whatever the code does.
    with pytest.raises(IntegrityError), transaction.atomic():
        BriefRun.objects.create(watchlist=kolkata, trigger="schedule", status="failed", slot=at("2025-04-03 01:30"))


@pytest.mark.django_db
def test_beat_does_not_serve_a_slot_from_before_the_schedule(kolkata: Any) -> None:
    from briefs.models import BriefRun
    from briefs.scheduled import brief_run_for_schedule
    from portfolios.models import Watchlist

    # Switched on at 10:00 IST with a 07:00 brief: beat firing at once must not brief 07:00.
    Watchlist.objects.filter(pk=kolkata.pk).update(brief_schedule_since=at("2025-04-03 04:30"))
    assert brief_run_for_schedule(watchlist_id=kolkata.pk, now=at("2025-04-03 04:30:05")) == "before_schedule"
    assert BriefRun.objects.count() == 0


@pytest.mark.django_db
def test_the_sweep_catches_up_a_missed_slot_once(kolkata: Any, settings: Any) -> None:
    from briefs.models import BriefRun
    from briefs.scheduled import brief_run_for_schedule, brief_schedules_catch_up

    settings.BRIEF_SCHEDULE_CATCH_UP, settings.BRIEF_SCHEDULE_CATCH_UP_GRACE_SECONDS = "same_day", 120
    # A minute after the slot beat still has its grace: nothing yet.
    assert brief_schedules_catch_up(now=at("2025-04-03 01:31")) == {"caught_up": 0}
    assert BriefRun.objects.count() == 0
    # Beat was down at 07:00 IST; at 08:30 IST the sweep starts the slot's run.
    assert brief_schedules_catch_up(now=at("2025-04-03 03:00")) == {"caught_up": 1}
    run = BriefRun.objects.get()
    assert (run.slot, run.trigger, run.status) == (at("2025-04-03 01:30"), "schedule", "queued")
    assert brief_schedules_catch_up(now=at("2025-04-03 03:01")) == {"caught_up": 0}
    BriefRun.objects.filter(pk=run.pk).update(status="delivered")
    assert brief_schedules_catch_up(now=at("2025-04-03 05:00")) == {"caught_up": 0}
    # Beat back up, re-sending the slot late: still one run.
    assert brief_run_for_schedule(watchlist_id=kolkata.pk, now=at("2025-04-03 03:02")) == "already_ran"
    assert BriefRun.objects.count() == 1


@pytest.mark.django_db
def test_no_catch_up_when_off_on_another_day_or_before_the_schedule(kolkata: Any, settings: Any) -> None:
    from briefs.models import BriefRun
    from briefs.scheduled import brief_schedules_catch_up
    from portfolios.models import Watchlist

    settings.BRIEF_SCHEDULE_CATCH_UP_GRACE_SECONDS = 120
    settings.BRIEF_SCHEDULE_CATCH_UP = "off"
    assert brief_schedules_catch_up(now=at("2025-04-03 03:00")) == {"caught_up": 0}
    settings.BRIEF_SCHEDULE_CATCH_UP = "same_day"
    # 00:30 IST on Friday: Thursday's slot is yesterday's, locally.
    assert brief_schedules_catch_up(now=at("2025-04-03 19:00")) == {"caught_up": 0}
    # Switched on at 10:00 IST: the 07:00 slot was never promised.
    Watchlist.objects.filter(pk=kolkata.pk).update(brief_schedule_since=at("2025-04-03 04:30"))
    assert brief_schedules_catch_up(now=at("2025-04-03 04:31")) == {"caught_up": 0}
    # Switched off: nothing.
    Watchlist.objects.filter(pk=kolkata.pk).update(brief_schedule_since=at("2025-04-01 00:00"), brief_enabled=False)
    assert brief_schedules_catch_up(now=at("2025-04-03 03:00")) == {"caught_up": 0}
    assert BriefRun.objects.count() == 0
    # The control: the same watchlist, on, same day, after the grace.
    Watchlist.objects.filter(pk=kolkata.pk).update(brief_enabled=True)
    assert brief_schedules_catch_up(now=at("2025-04-03 03:00")) == {"caught_up": 1}


@pytest.mark.django_db
def test_a_run_the_owner_started_after_the_slot_is_not_doubled(kolkata: Any, analyst: Any) -> None:
    """A manual run at or after the slot (or one active at the slot, which beat's entry would have
    skipped for) serves the morning: the sweep does not add a second brief."""
    from briefs.models import BriefRun
    from briefs.scheduled import brief_schedules_catch_up

    BriefRun.objects.create(watchlist=kolkata, trigger="button", status="delivered", tickers=["SBIN.NS"])
    assert brief_schedules_catch_up(now=at("2025-04-03 03:00")) == {"caught_up": 0}
    assert BriefRun.objects.count() == 1


@pytest.mark.django_db
def test_switching_on_or_retiming_records_when(analyst: Any) -> None:
    from django.utils import timezone
    from django_celery_beat.models import PeriodicTask

    from briefs.schedules import schedule_name
    from portfolios.models import Watchlist
    from portfolios.services import watchlist_update

    w = Watchlist.objects.create(owner=analyst, name="Off", tickers=["AAPL"], brief_enabled=False)
    assert Watchlist.objects.get(pk=w.pk).brief_schedule_since is None
    before = timezone.now()
    watchlist_update(user=analyst, watchlist_id=w.pk, brief_enabled=True)
    since = Watchlist.objects.get(pk=w.pk).brief_schedule_since
    assert since is not None and since >= before
    watchlist_update(user=analyst, watchlist_id=w.pk, tickers=["AAPL", "MSFT"])  # not the schedule
    assert Watchlist.objects.get(pk=w.pk).brief_schedule_since == since
    PeriodicTask.objects.filter(name=schedule_name(w.pk)).update(last_run_at=at("2025-04-02 01:30"))
    watchlist_update(user=analyst, watchlist_id=w.pk, brief_time=dt.time(6, 0))  # retimed
    retimed = Watchlist.objects.get(pk=w.pk).brief_schedule_since
    assert retimed is not None and retimed > since
    assert PeriodicTask.objects.get(name=schedule_name(w.pk)).last_run_at is None
