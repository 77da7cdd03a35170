"""A resume whose worker died after the decision was applied (the interrupt consumed, the graph not
finished) is continued from its checkpoint, and failed resumes are retried a bounded number of times."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.utils import timezone

from core.models import AuditEvent
from reviews.models import ReviewTask

pytestmark = pytest.mark.django_db


def _explodes(state: Any) -> dict[str, Any]:
    raise RuntimeError("the worker lost its database connection")


def test_a_resume_that_failed_after_the_decision_is_continued_not_dropped(make_task: Any, reviewer: Any) -> None:
    from reviews.probe_graph import probe_run_start, probe_run_state
    from reviews.services import review_task_decide, review_task_resume_run, review_tasks_sweep

    thread_id = probe_run_start(title="continued")
    task = make_task(thread_id=thread_id)
    review_task_decide(user=reviewer, task_id=task.pk, outcome="approve")
    with mock.patch("reviews.probe_graph.finish", _explodes), pytest.raises(RuntimeError):
        review_task_resume_run(task_id=task.pk)
    task.refresh_from_db()
    assert (task.resume_state, task.resume_attempts) == ("failed", 1)
    state = probe_run_state(thread_id)
    assert state["waiting"] is False and state["next"] == ["finish"]  # decision applied, run unfinished

    # Too early for a retry: nothing is queued.
    assert review_tasks_sweep(now=timezone.now())["requeued"] == 0
    later = timezone.now() + timedelta(minutes=11)
    assert review_tasks_sweep(now=later)["requeued"] == 1
    assert ReviewTask.objects.get(pk=task.pk).resume_state == "queued"
    assert review_task_resume_run(task_id=task.pk) == "done"
    values = probe_run_state(thread_id)["values"]
    assert values["result"] == "published"
    assert values["log"] == ["prepared", "resumed:approve", "finished"]  # the decision applied once
    task.refresh_from_db()
    assert (task.resume_state, task.resume_attempts, task.resume_error) == ("done", 2, "")


def test_failed_resumes_are_retried_a_bounded_number_of_times(
    make_task: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from reviews.services import review_resumes_requeue

    settings.REVIEW_RESUME_MAX_ATTEMPTS, settings.REVIEW_RESUME_STALE_MINUTES = 3, 10
    an_hour_ago = timezone.now() - timedelta(hours=1)

    def task(state: str, attempts: int) -> int:
        made = make_task(thread_id=f"t-{state}-{attempts}")
        ReviewTask.objects.filter(pk=made.pk).update(
            state="expired", decided_at=an_hour_ago, resume_state=state, resume_attempts=attempts,
            resume_claimed_at=an_hour_ago,
        )  # fmt: skip
        return made.pk

    failed_once, failed_thrice = task("failed", 1), task("failed", 3)
    died_twice, died_thrice = task("running", 2), task("running", 3)
    sent: list[tuple[Any, ...]] = []
    with (
        mock.patch("reviews.services.enqueue", lambda *message: sent.append(message)),
        django_capture_on_commit_callbacks(execute=True),
    ):
        assert review_resumes_requeue(now=timezone.now()) == 2
    assert sorted(task_id for _, task_id in sent) == sorted([failed_once, died_twice])
    states = dict(ReviewTask.objects.values_list("pk", "resume_state"))
    assert (states[failed_once], states[died_twice]) == ("queued", "queued")
    assert states[failed_thrice] == "failed"  # left failed: the brief sweep ends its run
    assert states[died_thrice] == "failed"
    assert "Gave up" in ReviewTask.objects.get(pk=died_thrice).resume_error
    assert AuditEvent.objects.filter(action="review_task.resume_requeue").count() == 2
