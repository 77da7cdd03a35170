"""Reads for the home page, one per section; each is scoped by the app selector it calls and is
only asked for when the user's roles open that area (see ``home.views.index``)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Max, Q
from django.utils import timezone

from briefs.models import Brief
from briefs.selectors import brief_list
from core.models import AuditEvent
from research.chat.models import Conversation
from research.chat.selectors import conversation_list
from research.models import Chunk, Document
from research.selectors import document_list
from reviews.models import ReviewTask
from reviews.selectors import review_task_list


def latest_briefs(*, user: Any, limit: int = 8) -> list[Brief]:
    """The newest brief of each watchlist the user may see (newest first)."""
    newest = brief_list(user=user).order_by("watchlist_id", "-created_at", "-id").distinct("watchlist_id")
    ids = list(newest.values_list("id", flat=True))
    return list(brief_list(user=user).filter(id__in=ids).order_by("-created_at")[:limit])


def recent_conversations(*, user: Any, limit: int = 6) -> list[Conversation]:
    return list(conversation_list(user=user).annotate(turn_count=Count("turns")).order_by("-updated_at")[:limit])


@dataclass
class LibraryStatus:
    ready: int
    working: int
    failed: int
    passages: int
    last_ingested: dt.datetime | None
    in_progress: list[Document]

    @property
    def total(self) -> int:
        return self.ready + self.working + self.failed


def library_status(*, user: Any) -> LibraryStatus:
    docs = document_list(user=user)
    counts = docs.aggregate(
        ready=Count("id", filter=Q(status=Document.Status.DONE)),
        working=Count("id", filter=Q(status__in=[Document.Status.QUEUED, Document.Status.PROCESSING])),
        failed=Count("id", filter=Q(status=Document.Status.FAILED)),
        last=Max("ingested_at"),
    )
    passages = Chunk.objects.filter(document__in=docs.filter(status=Document.Status.DONE)).count()
    unfinished = docs.exclude(status=Document.Status.DONE).order_by("-created_at")[:5]
    return LibraryStatus(
        ready=counts["ready"],
        working=counts["working"],
        failed=counts["failed"],
        passages=passages,
        last_ingested=counts["last"],
        in_progress=list(unfinished),
    )


@dataclass
class ReviewQueue:
    tasks: list[ReviewTask]
    pending: int
    overdue: int
    due_soon: int


def review_queue(*, user: Any, limit: int = 8) -> ReviewQueue:
    """Pending tasks, the most urgent (earliest due) first, with the counts by urgency."""
    now = timezone.now()
    pending = review_task_list(user=user).filter(state=ReviewTask.State.PENDING)
    counts = pending.aggregate(
        pending=Count("id"),
        overdue=Count("id", filter=Q(due_at__lt=now)),
        due_soon=Count("id", filter=Q(due_at__gte=now, due_at__lt=now + dt.timedelta(hours=24))),
    )
    return ReviewQueue(tasks=list(pending.order_by("due_at", "-priority")[:limit]), **counts)


def admin_counts() -> list[tuple[str, int, str]]:
    """``(label, count, link)`` for the admin's overview (callers check the admin role)."""
    day_ago = timezone.now() - dt.timedelta(days=1)
    return [
        ("Active users", get_user_model().objects.filter(is_active=True).count(), "admin:auth_user_changelist"),
        ("Documents", Document.objects.count(), "research:index"),
        ("Passages", Chunk.objects.count(), "research:index"),
        ("Conversations", Conversation.objects.count(), "research-chat:index"),
        ("Briefs", Brief.objects.count(), "briefs:index"),
        ("Reviews pending", ReviewTask.objects.filter(state=ReviewTask.State.PENDING).count(), "reviews:index"),
        ("Audit events, last 24 h", AuditEvent.objects.filter(created_at__gte=day_ago).count(), "reviews:audit"),
    ]
