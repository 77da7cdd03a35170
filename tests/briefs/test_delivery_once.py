"""An approved brief reaches its end and is e-mailed at most once: a delivery an attempt claimed and
could not finish is never sent again, and a run left "awaiting review" after its decision is resumed
again, then ended as failed, so its watchlist is not blocked for ever."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def at_the_gate(watchlist: Any, analyst: Any, settings: Any) -> Any:
    """``at_the_gate()`` → a run of the watchlist paused at its review gate, and its review task."""
    from briefs import runs
    from briefs.models import BriefRun
    from briefs.services import brief_run_start
    from reviews.models import ReviewTask

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.BRIEF_EMAIL_ENABLED = True
    watchlist.tickers = ["INFY.NS"]
    watchlist.save()

    def make() -> tuple[Any, Any]:
        with mock.patch("briefs.services.enqueue"):  # the run is executed here, not by a worker
            run = brief_run_start(user=analyst, watchlist_id=watchlist.pk)
        assert runs.brief_run_execute(run_id=run.pk) == "awaiting_review"
        return BriefRun.objects.get(pk=run.pk), ReviewTask.objects.get(thread_id=run.thread_id)

    return make


def _approve(task: Any, reviewer: Any) -> None:
    from reviews.services import review_task_decide

    with mock.patch("reviews.services.enqueue"):  # resumed below, in this process
        review_task_decide(user=reviewer, task_id=task.pk, outcome="approve")


def test_a_delivery_interrupted_mid_send_is_not_sent_again(at_the_gate: Any, reviewer: Any) -> None:
    from django.core import mail

    from briefs.delivery import INTERRUPTED
    from briefs.models import Brief, BriefDelivery, BriefRun
    from reviews.services import review_task_resume_run

    run, task = at_the_gate()
    brief = Brief.objects.get(run=run)
    # What a worker killed during the SMTP exchange leaves: the claim, no outcome.
    BriefDelivery.objects.create(brief=brief, recipients=["pm@example.test"], subject="s", text="t", html="h",
                                 emailed=True)  # fmt: skip
    _approve(task, reviewer)
    assert review_task_resume_run(task_id=task.pk) == "done"
    assert len(mail.outbox) == 0
    run.refresh_from_db()
    assert run.status == "failed" and "Interrupted while sending" in run.note
    delivery = BriefDelivery.objects.get(brief=brief)
    assert (delivery.emailed, delivery.sent_at, delivery.error) == (False, None, INTERRUPTED)
    assert BriefRun.objects.filter(watchlist=run.watchlist, status__in=BriefRun.ACTIVE).count() == 0


def test_a_delivered_brief_is_sent_once_however_often_deliver_runs(at_the_gate: Any, reviewer: Any) -> None:
    from django.core import mail

    from briefs.delivery import brief_deliver
    from briefs.models import Brief, BriefDelivery
    from reviews.services import review_task_resume_run

    run, task = at_the_gate()
    _approve(task, reviewer)
    assert review_task_resume_run(task_id=task.pk) == "done"
    assert len(mail.outbox) == 1
    assert sorted(mail.outbox[0].to) == ["desk@example.test", "pm@example.test"]
    brief = Brief.objects.get(run=run)
    brief_deliver(run_id=run.pk, brief_id=brief.pk)  # the deliver node run again
    brief_deliver(run_id=run.pk, brief_id=brief.pk)
    assert len(mail.outbox) == 1
    assert BriefDelivery.objects.filter(brief=brief).count() == 1
    run.refresh_from_db()
    assert run.status == "delivered"


def test_a_run_left_awaiting_review_after_its_decision_is_resumed_again(at_the_gate: Any, reviewer: Any) -> None:
    from django.core import mail

    from briefs.recovery import brief_runs_unblock
    from reviews.models import ReviewTask
    from reviews.services import RESUME_TASK, review_task_resume_run

    run, task = at_the_gate()
    _approve(task, reviewer)
    # What the demo showed: the resume recorded "nothing to resume", the run still awaits review.
    ReviewTask.objects.filter(pk=task.pk).update(resume_state="nothing", resume_attempts=1)
    sent: list[tuple[Any, ...]] = []
    with mock.patch("reviews.services.enqueue", lambda *message: sent.append(message)):
        assert brief_runs_unblock() == {"unblocked_resumed": 1, "unblocked_failed": 0}
        assert brief_runs_unblock() == {"unblocked_resumed": 0, "unblocked_failed": 0}  # in flight now
    assert sent == [(RESUME_TASK, task.pk)]
    assert review_task_resume_run(task_id=task.pk) == "done"
    run.refresh_from_db()
    assert run.status == "delivered" and len(mail.outbox) == 1
    assert brief_runs_unblock() == {"unblocked_resumed": 0, "unblocked_failed": 0}


def test_a_run_whose_resumes_are_exhausted_is_failed_and_frees_the_watchlist(
    at_the_gate: Any, reviewer: Any, analyst: Any, settings: Any
) -> None:
    from briefs.models import BriefRun
    from briefs.recovery import brief_runs_unblock
    from briefs.services import RunAlreadyActive, brief_run_start
    from core.models import AuditEvent
    from reviews.models import ReviewTask

    settings.REVIEW_RESUME_MAX_ATTEMPTS = 3
    run, task = at_the_gate()
    _approve(task, reviewer)
    ReviewTask.objects.filter(pk=task.pk).update(resume_state="failed", resume_attempts=3, resume_error="boom")
    with pytest.raises(RunAlreadyActive), mock.patch("briefs.services.enqueue"):
        brief_run_start(user=analyst, watchlist_id=run.watchlist_id)
    assert brief_runs_unblock() == {"unblocked_resumed": 0, "unblocked_failed": 1}
    run.refresh_from_db()
    assert run.status == "failed" and run.finished_at is not None
    assert "after 3 attempt(s)" in run.note and "boom" in run.note
    assert AuditEvent.objects.filter(action="brief_run.failed", subject_id=str(run.pk)).count() == 1
    with mock.patch("briefs.services.enqueue"):
        brief_run_start(user=analyst, watchlist_id=run.watchlist_id)  # the watchlist is free again
    assert BriefRun.objects.filter(watchlist_id=run.watchlist_id).count() == 2
