"""Runs left "awaiting review" after their review was decided.

A decided review resumes its run (``reviews.services.review_task_resume_run``) and the run ends
(delivered, archived, rejected, …) or pauses at a new gate with a new pending task. A run still
awaiting review with every task decided and no resume in flight did neither: its resume found
nothing to do, or failed for good. Left so, it would block its watchlist for ever (one active run
per watchlist: manual runs get 409, scheduled ones are skipped). The brief sweep queues its resume
again while attempts remain (the resume continues the graph from its checkpoint), then ends the run
as failed, with the reason."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.utils import timezone

from briefs.agent.state import GRAPH_NAME
from briefs.models import BriefRun
from core.audit import audit_record
from reviews.models import ReviewTask
from reviews.services import review_resume_again

_IN_FLIGHT = (ReviewTask.ResumeState.WAITING, ReviewTask.ResumeState.QUEUED, ReviewTask.ResumeState.RUNNING)


def brief_runs_unblock(*, now: dt.datetime | None = None) -> dict[str, int]:
    now = now or timezone.now()
    counts = {"unblocked_resumed": 0, "unblocked_failed": 0}
    for run in BriefRun.objects.filter(status=BriefRun.Status.AWAITING_REVIEW):
        tasks = ReviewTask.objects.filter(graph_name=GRAPH_NAME, thread_id=run.thread_id)
        if tasks.filter(state=ReviewTask.State.PENDING).exists():
            continue  # waiting for a reviewer, as it should
        task = tasks.order_by("-created_at", "-pk").first()
        if task is None or task.resume_state in _IN_FLIGHT:
            continue  # a lost or dead resume is re-sent by the review sweep
        exhausted = task.resume_attempts >= settings.REVIEW_RESUME_MAX_ATTEMPTS
        if task.resume_state == ReviewTask.ResumeState.FAILED and not exhausted:
            continue  # the review sweep retries it after REVIEW_RESUME_STALE_MINUTES
        reason = f"review task #{task.pk} is {task.state}, its resume {task.resume_state}, the run still awaits review"
        if not exhausted and review_resume_again(task_id=task.pk, reason=reason):
            counts["unblocked_resumed"] += 1
            continue
        note = (
            f"Failed: the review was decided ({task.get_state_display().lower()}, task #{task.pk}) but the run did "
            f"not reach its end after {task.resume_attempts} attempt(s) to resume it. {task.resume_error}"
        ).strip()
        if BriefRun.objects.filter(pk=run.pk, status=BriefRun.Status.AWAITING_REVIEW).update(
            status=BriefRun.Status.FAILED, finished_at=now, note=note[:500]
        ):
            audit_record(actor=None, action="brief_run.failed", subject=run, after={"note": note[:300]})
            counts["unblocked_failed"] += 1
    return counts
