"""Reads for reviews and audit, always scoped to what the user may see."""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models import QuerySet

from core.models import AuditEvent
from core.roles import ADMIN, REVIEWER, can_access, has_role
from reviews.models import ReviewTask


def review_task_list(*, user: Any) -> QuerySet[ReviewTask]:
    """Every review task for reviewers and admins; nothing for anyone else."""
    if not can_access(user, "reviews"):
        return ReviewTask.objects.none()
    return ReviewTask.objects.select_related("requested_by", "decided_by", "subject_owner")


def review_task_get(*, user: Any, task_id: int) -> ReviewTask:
    """Raises ``ReviewTask.DoesNotExist`` for a task the user may not see (no existence leak)."""
    return review_task_list(user=user).select_related("decision").get(pk=task_id)


def review_pending_count(*, user: Any) -> int:
    """Pending tasks the user could decide — one COUNT query, 0 without a query for others."""
    if not has_role(user, REVIEWER, ADMIN):
        return 0
    return ReviewTask.objects.filter(state=ReviewTask.State.PENDING).count()


def audit_event_list(*, user: Any) -> QuerySet[AuditEvent]:
    """Reviewers and admins read the whole log; everyone else only their own events."""
    events = AuditEvent.objects.all()
    if not has_role(user, REVIEWER, ADMIN):
        events = events.filter(actor_id=user.pk) if getattr(user, "is_authenticated", False) else events.none()
    return events


def audit_events_for_subject(*, user: Any, subject: models.Model, limit: int = 50) -> list[AuditEvent]:
    """The newest events about one object, for the per-object history panel.

    The panel sits on the object's own page, which has already checked that ``user`` may see the
    object, so everyone who may see it sees its whole history (an analyst sees who approved their
    brief). Anonymous users see nothing."""
    if not getattr(user, "is_authenticated", False):
        return []
    events = AuditEvent.objects.filter(subject_type=subject._meta.label_lower, subject_id=str(subject.pk))
    return list(events.order_by("-id")[:limit])
