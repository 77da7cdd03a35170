"""Writes for reviews: review tasks, their decisions, resumes and the overdue sweep (all audited
through :func:`core.audit.audit_record`)."""

from __future__ import annotations

import difflib
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.mail import send_mail
from django.db import models, transaction
from django.db.models import Q
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone

from core.audit import audit_record
from core.roles import ADMIN, REVIEWER, has_role
from core.tasks import enqueue
from reviews.graphs import graph_names
from reviews.models import ReviewDecision, ReviewTask

# --- review tasks -----------------------------------------------------------------------------
RESUME_TASK = "reviews.tasks.review_task_resume"  # the Celery task (reviews/tasks.py) that resumes a run
_EDIT_MAX_CHARS = 100_000
_REASON_MAX_CHARS = 4_000
_HUMAN_OUTCOMES = {
    ReviewDecision.Outcome.APPROVE: ReviewTask.State.APPROVED,
    ReviewDecision.Outcome.EDIT: ReviewTask.State.EDITED,
    ReviewDecision.Outcome.REJECT: ReviewTask.State.REJECTED,
}


class ReviewAlreadyDecided(Exception):
    """The task was decided (or expired) before this decision: the first one stands."""

    def __init__(self, task: ReviewTask) -> None:
        self.task = task
        who = task.decided_by.get_username() if task.decided_by else "the system"
        when = timezone.localtime(task.decided_at).strftime("%Y-%m-%d %H:%M") if task.decided_at else "earlier"
        super().__init__(f"This task was already {task.get_state_display().lower()} by {who} at {when}.")


def review_sla(kind: str) -> timedelta:
    hours = settings.REVIEW_SLA_HOURS.get(kind, settings.REVIEW_SLA_HOURS["default"])
    return timedelta(hours=float(hours))


def review_task_request(
    *,
    requested_by: Any,
    kind: str,
    title: str,
    graph_name: str,
    thread_id: str,
    payload: dict[str, Any] | None = None,
    subject: models.Model | None = None,
    subject_owner: Any = None,
    priority: int = ReviewTask.Priority.NORMAL,
    request_key: str = "",
) -> ReviewTask:
    """Open a review task for a paused run. Idempotent on ``(graph_name, thread_id, request_key)``:
    a node that runs again after resume gets the task it already opened."""
    if kind not in ReviewTask.Kind.values:
        raise ValidationError({"kind": f"Unknown review kind {kind!r}."})
    if not title.strip():
        raise ValidationError({"title": "A review task needs a title."})
    if graph_name not in graph_names():
        raise ValidationError({"graph_name": f"No graph called {graph_name!r} is registered for resumes."})
    with transaction.atomic():
        existing = ReviewTask.objects.filter(
            graph_name=graph_name, thread_id=thread_id, request_key=request_key
        ).first()
        if existing is not None:
            return existing
        task = ReviewTask.objects.create(
            kind=kind,
            title=title.strip()[:200],
            graph_name=graph_name,
            thread_id=thread_id,
            request_key=request_key,
            subject_type=subject._meta.label_lower if subject is not None else "",
            subject_id=str(subject.pk) if subject is not None else "",
            payload=payload or {},
            requested_by=requested_by if getattr(requested_by, "is_authenticated", False) else None,
            subject_owner=subject_owner,
            priority=priority,
            due_at=timezone.now() + review_sla(kind),
        )
        audit_record(
            actor=requested_by,
            action="review_task.request",
            subject=task,
            after={"kind": kind, "graph": graph_name, "thread_id": thread_id, "due_at": task.due_at.isoformat()},
        )
    return task


def _validate_edit(task: ReviewTask, edited: Any) -> tuple[dict[str, Any], str]:
    """The full edited payload and a unified diff against the original editable fields."""
    original = task.payload.get("editable")
    if not isinstance(original, dict) or not original:
        raise ValidationError({"edited": "This task has nothing a reviewer can edit; approve or reject it."})
    if not isinstance(edited, dict):
        raise ValidationError({"edited": 'Send the edited fields as an object, e.g. {"body": "..."}.'})
    unknown = set(edited) - set(original)
    if unknown:
        raise ValidationError(
            {"edited": f"Not editable: {', '.join(sorted(unknown))}. Editable: {', '.join(sorted(original))}."}
        )
    if any(not isinstance(value, str) for value in edited.values()):
        raise ValidationError({"edited": "Edited fields must be text."})
    if sum(len(value) for value in edited.values()) > _EDIT_MAX_CHARS:
        raise ValidationError({"edited": f"Edits are limited to {_EDIT_MAX_CHARS:,} characters."})
    merged = {**original, **{key: value.replace("\r\n", "\n") for key, value in edited.items()}}
    if merged == original:
        raise ValidationError({"edited": "Nothing was changed; use Approve instead."})
    diff_lines: list[str] = []
    for key in sorted(original):
        before, after = str(original[key]).splitlines(), str(merged[key]).splitlines()
        diff_lines += difflib.unified_diff(before, after, f"original/{key}", f"edited/{key}", lineterm="")
    return merged, "\n".join(diff_lines)


def review_task_decide(
    *,
    user: Any,
    task_id: int,
    outcome: str,
    reason: str = "",
    edited: Any = None,
    request: HttpRequest | None = None,
) -> ReviewDecision:
    """Record the one decision on a pending task and enqueue the resume of its paused run.

    Raises ``PermissionDenied`` (not a reviewer; four-eyes), ``ValidationError`` (bad input),
    ``ReviewTask.DoesNotExist`` and :class:`ReviewAlreadyDecided`. Exactly-once holds in the
    database: the row lock, the conditional UPDATE and the one-to-one decision row each refuse a
    second decision, and the check constraints refuse a four-eyes violation.
    """
    if not has_role(user, REVIEWER, ADMIN):
        raise PermissionDenied("Only reviewers and admins decide review tasks.")
    if outcome not in _HUMAN_OUTCOMES:
        raise ValidationError({"outcome": "Choose approve, edit or reject."})
    reason = (reason or "").strip()
    if outcome == ReviewDecision.Outcome.REJECT and not reason:
        raise ValidationError({"reason": "Say why you reject it: the requester and the audit log need a reason."})
    if len(reason) > _REASON_MAX_CHARS:
        raise ValidationError({"reason": f"Keep the reason under {_REASON_MAX_CHARS:,} characters."})
    with transaction.atomic():
        task = ReviewTask.objects.select_for_update(of=("self",)).select_related("decided_by").get(pk=task_id)
        if not task.is_pending:
            raise ReviewAlreadyDecided(task)
        if user.pk in {task.requested_by_id, task.subject_owner_id}:
            raise PermissionDenied(
                "Four-eyes rule: you requested this review or own its subject, so someone else decides it."
            )
        edited_payload, diff = (None, "")
        if outcome == ReviewDecision.Outcome.EDIT:
            edited_payload, diff = _validate_edit(task, edited)
        now = timezone.now()
        new_state = _HUMAN_OUTCOMES[ReviewDecision.Outcome(outcome)]
        claimed = ReviewTask.objects.filter(pk=task.pk, state=ReviewTask.State.PENDING).update(
            state=new_state, decided_at=now, decided_by=user, resume_state=ReviewTask.ResumeState.QUEUED
        )
        if claimed != 1:  # unreachable while the row lock holds; kept as the database-level guard
            task.refresh_from_db()
            raise ReviewAlreadyDecided(task)
        decision = ReviewDecision.objects.create(
            task=task, outcome=outcome, reviewer=user, reason=reason, edited_payload=edited_payload, diff=diff
        )
        task.refresh_from_db()
        audit_record(
            actor=user,
            action=f"review_task.{outcome}",
            subject=task,
            before={"state": ReviewTask.State.PENDING},
            after={"state": new_state, "reason": reason, "diff": diff}
            if diff
            else {"state": new_state, "reason": reason},
            request=request,
        )
        transaction.on_commit(partial(_enqueue_resume_flagging, decision, task.pk))
    return decision


def _enqueue_resume(task_id: int) -> bool:
    return enqueue(RESUME_TASK, task_id)  # by name: the task calls back into this module


def _enqueue_resume_flagging(decision: ReviewDecision, task_id: int) -> None:
    # The queue down: the decision is saved and its resume queued; the sweep sends it later.
    decision.queue_unavailable = _enqueue_resume(task_id) is False  # type: ignore[attr-defined]


def review_task_close(*, task: ReviewTask, outcome: str, reason: str, actor: Any = None) -> bool:
    """Expire or cancel a pending task (system or admin); the paused run is resumed with it so it
    can end cleanly. Returns False when the task was no longer pending (someone decided first)."""
    state = {
        ReviewDecision.Outcome.EXPIRE: ReviewTask.State.EXPIRED,
        ReviewDecision.Outcome.CANCEL: ReviewTask.State.CANCELLED,
    }[ReviewDecision.Outcome(outcome)]
    with transaction.atomic():
        now = timezone.now()
        claimed = ReviewTask.objects.filter(pk=task.pk, state=ReviewTask.State.PENDING).update(
            state=state, decided_at=now, resume_state=ReviewTask.ResumeState.QUEUED
        )
        if not claimed:
            return False
        ReviewDecision.objects.create(task_id=task.pk, outcome=outcome, reason=reason)
        task.refresh_from_db()
        audit_record(
            actor=actor,
            action=f"review_task.{outcome}",
            subject=task,
            before={"state": "pending"},
            after={"state": state, "reason": reason},
        )
        transaction.on_commit(partial(_enqueue_resume, task.pk))
    return True


def review_task_resume_run(*, task_id: int) -> str:
    """Resume the paused run of a decided task with ``Command(resume=decision)`` — the decision is
    applied exactly once — and drive it to its end or its next pause.

    The conditional claim (queued → running) makes a redelivered or duplicated Celery message a
    no-op. An attempt whose worker died after the decision was applied (the interrupt consumed, the
    graph not finished) is continued from its last checkpoint; its nodes must be idempotent (the
    brief's delivery is: see ``briefs.delivery``). A run with nothing left to do is left alone."""
    from langgraph.types import Command

    from core.checkpoint import checkpointer
    from reviews.graphs import graph_builder

    claimed = ReviewTask.objects.filter(pk=task_id, resume_state=ReviewTask.ResumeState.QUEUED).update(
        resume_state=ReviewTask.ResumeState.RUNNING,
        resume_claimed_at=timezone.now(),
        resume_attempts=models.F("resume_attempts") + 1,
    )
    if not claimed:
        return "skipped"
    task = ReviewTask.objects.select_related("decision", "decision__reviewer").get(pk=task_id)
    config = {"configurable": {"thread_id": task.thread_id}}
    try:
        with checkpointer() as saver:
            graph = graph_builder(task.graph_name)(checkpointer=saver)
            snapshot = graph.get_state(config)
            final = ReviewTask.ResumeState.DONE
            if snapshot.interrupts:
                if _waits_for(snapshot.interrupts, task):
                    graph.invoke(Command(resume=task.decision.resume_value()), config)
                else:  # paused again for a later review: that task's decision resumes it
                    final = ReviewTask.ResumeState.NOTHING_TO_RESUME
            elif snapshot.next:
                graph.invoke(None, config)
            else:
                final = ReviewTask.ResumeState.NOTHING_TO_RESUME
    except Exception as exc:  # the failure is recorded on the task and in the audit log
        ReviewTask.objects.filter(pk=task_id).update(
            resume_state=ReviewTask.ResumeState.FAILED, resume_error=repr(exc)[:2000]
        )
        audit_record(actor=None, action="review_task.resume_failed", subject=task, after={"error": repr(exc)[:500]})
        raise
    ReviewTask.objects.filter(pk=task_id).update(resume_state=final, resumed_at=timezone.now(), resume_error="")
    audit_record(
        actor=None,
        action="review_task.resume",
        subject=task,
        after={"graph": task.graph_name, "result": final, "attempt": task.resume_attempts},
    )
    return str(final)


def _waits_for(interrupts: Any, task: ReviewTask) -> bool:
    """Whether the run's pause is this task's (a pause that names another task is a later one)."""
    named = {i.value.get("task_id") for i in interrupts if isinstance(i.value, dict) and "task_id" in i.value}
    return not named or task.pk in named


def review_resume_again(*, task_id: int, reason: str) -> bool:
    """Queue once more the resume of a decided task whose run did not reach its end (its resume is
    done, found nothing, or failed), unless it has had ``REVIEW_RESUME_MAX_ATTEMPTS``."""
    again = (ReviewTask.ResumeState.DONE, ReviewTask.ResumeState.NOTHING_TO_RESUME, ReviewTask.ResumeState.FAILED)
    with transaction.atomic():
        if not ReviewTask.objects.filter(
            pk=task_id, resume_state__in=again, resume_attempts__lt=settings.REVIEW_RESUME_MAX_ATTEMPTS
        ).update(resume_state=ReviewTask.ResumeState.QUEUED):
            return False
        task = ReviewTask.objects.get(pk=task_id)
        after = {"reason": reason, "attempts": task.resume_attempts}
        audit_record(actor=None, action="review_task.resume_requeue", subject=task, after=after)
        transaction.on_commit(partial(_enqueue_resume, task_id))
    return True


def review_resumes_requeue(*, now: datetime) -> int:
    """Re-enqueue resumes whose message was lost (queued too long), whose worker died mid-run
    (running too long) or that failed. Safe: the claim admits one runner, the decision is applied
    once, and a run with nothing left to do is recorded as "nothing to resume".

    A failed resume is retried a bounded number of times (``REVIEW_RESUME_MAX_ATTEMPTS``), each no
    sooner than ``REVIEW_RESUME_STALE_MINUTES`` after the last claim, rather than forever: a transient
    cause (a database restart, a dropped connection) has cleared by then, while a deterministic one (a
    bug, a state the graph refuses) would fail the same way at every sweep. A worker that keeps dying
    on the same run (e.g. out of memory) is given up on the same way: the resume is recorded failed,
    and the brief sweep ends a brief run left behind."""
    stale = now - timedelta(minutes=float(settings.REVIEW_RESUME_STALE_MINUTES))
    states = ReviewTask.ResumeState
    lost = ReviewTask.objects.filter(resume_state=states.QUEUED, decided_at__lt=stale)
    task_ids = list(lost.values_list("pk", flat=True))
    stuck = ReviewTask.objects.filter(resume_state__in=[states.RUNNING, states.FAILED], resume_claimed_at__lt=stale)
    for task_id, state, attempts in stuck.values_list("pk", "resume_state", "resume_attempts"):
        if attempts < settings.REVIEW_RESUME_MAX_ATTEMPTS:
            with transaction.atomic():
                if ReviewTask.objects.filter(pk=task_id, resume_state=state, resume_claimed_at__lt=stale).update(
                    resume_state=states.QUEUED
                ):
                    task = ReviewTask.objects.get(pk=task_id)
                    after = {"from": state, "attempts": attempts}
                    audit_record(actor=None, action="review_task.resume_requeue", subject=task, after=after)
                    task_ids.append(task_id)
        elif state == states.RUNNING:
            error = f"Gave up: the worker stopped during each of {attempts} attempts to resume the run."
            if ReviewTask.objects.filter(pk=task_id, resume_state=state, resume_claimed_at__lt=stale).update(
                resume_state=states.FAILED, resume_error=error
            ):
                task = ReviewTask.objects.get(pk=task_id)
                audit_record(actor=None, action="review_task.resume_failed", subject=task, after={"error": error})
    for task_id in task_ids:
        transaction.on_commit(partial(_enqueue_resume, task_id))
    return len(task_ids)


def _reviewer_emails() -> list[str]:
    User = get_user_model()
    users = User.objects.filter(is_active=True).filter(Q(groups__name__in=[REVIEWER, ADMIN]) | Q(is_superuser=True))
    return sorted({email for email in users.values_list("email", flat=True) if email})


def _notify(subject: str, body: str, recipients: list[str]) -> None:
    if recipients:
        send_mail(subject, body, None, recipients, fail_silently=False)


def review_tasks_sweep(*, now: datetime | None = None) -> dict[str, int]:
    """Escalate or expire overdue pending tasks (the beat task). ``REVIEW_OVERDUE_ACTION``:
    ``escalate`` raises priority to urgent, extends the due time by the grace period and emails
    reviewers; a task overdue again after escalation expires. ``expire`` expires at once."""
    now = now or timezone.now()
    counts = {"escalated": 0, "expired": 0, "requeued": review_resumes_requeue(now=now)}
    overdue = ReviewTask.objects.filter(state=ReviewTask.State.PENDING, due_at__lt=now).select_related(
        "requested_by", "subject_owner"
    )
    for task in overdue:
        if settings.REVIEW_OVERDUE_ACTION == "escalate" and task.escalated_at is None:
            new_due = now + timedelta(hours=float(settings.REVIEW_ESCALATION_GRACE_HOURS))
            with transaction.atomic():
                changed = ReviewTask.objects.filter(
                    pk=task.pk, state=ReviewTask.State.PENDING, escalated_at__isnull=True
                ).update(escalated_at=now, priority=ReviewTask.Priority.URGENT, due_at=new_due)
                if not changed:
                    continue
                audit_record(
                    actor=None,
                    action="review_task.escalate",
                    subject=task,
                    before={"due_at": task.due_at.isoformat()},
                    after={"due_at": new_due.isoformat(), "priority": "urgent"},
                )
                body = (
                    f"Review task #{task.pk} “{task.title}” ({task.get_kind_display()}) is overdue since "
                    f"{timezone.localtime(task.due_at):%Y-%m-%d %H:%M}. It is now urgent and expires at "
                    f"{timezone.localtime(new_due):%Y-%m-%d %H:%M} unless someone decides it.\n\n"
                    f"{settings.SITE_URL}{reverse('reviews:detail', args=[task.pk])}\n"
                )
                transaction.on_commit(
                    partial(_notify, f"[AlphaDesk] Overdue review: {task.title}", body, _reviewer_emails())
                )
            counts["escalated"] += 1
        else:
            if not review_task_close(
                task=task, outcome=ReviewDecision.Outcome.EXPIRE, reason="No decision before the due time."
            ):
                continue
            recipients = sorted({u.email for u in (task.requested_by, task.subject_owner) if u is not None and u.email})
            body = (
                f"Review task #{task.pk} “{task.title}” expired without a decision at "
                f"{timezone.localtime(now):%Y-%m-%d %H:%M}. The paused run was told so and did not publish.\n"
            )
            transaction.on_commit(partial(_notify, f"[AlphaDesk] Review expired: {task.title}", body, recipients))
            counts["expired"] += 1
    return counts
