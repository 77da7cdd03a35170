from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from core import models as core_models


class AuditEvent(core_models.AuditEvent):
    """The audit log as the reviews admin lists it (a proxy: no table or field of its own).

    The log itself is :class:`core.models.AuditEvent`; write with :func:`core.audit.audit_record`
    and import the model from core. This proxy only keeps the admin where reviewers and admins
    have always found it (``/admin/reviews/auditevent/``) and keeps the ``reviews.*_auditevent``
    permissions already granted in existing databases meaningful.
    """

    class Meta:
        proxy = True


class ReviewTask(models.Model):
    """A paused agent run waiting for a human decision.

    It points at the paused LangGraph run (``graph_name`` + ``thread_id`` on the Postgres
    checkpointer) and, generically, at what is being reviewed (``subject_type``/``subject_id``
    plus a JSON ``payload`` snapshot the reviewer sees and may edit). The database, not only
    Python, enforces the rules: one pending task per paused run, four-eyes, and that a decided
    task names who decided it and when.
    """

    class Kind(models.TextChoices):
        BRIEF_APPROVAL = "brief_approval", "Brief approval"
        CHAT_ESCALATION = "chat_escalation", "Chat escalation"
        TOOL_ACTION = "tool_action", "Tool action"

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        APPROVED = "approved", "Approved"
        EDITED = "edited", "Approved with edits"
        REJECTED = "rejected", "Rejected"
        EXPIRED = "expired", "Expired"
        CANCELLED = "cancelled", "Cancelled"

    class Priority(models.IntegerChoices):
        LOW = 10, "Low"
        NORMAL = 20, "Normal"
        HIGH = 30, "High"
        URGENT = 40, "Urgent"

    class ResumeState(models.TextChoices):
        WAITING = "waiting", "Waiting for a decision"
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Resumed"
        NOTHING_TO_RESUME = "nothing", "Nothing to resume"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=32, choices=Kind.choices, db_index=True)
    state = models.CharField(max_length=16, choices=State.choices, default=State.PENDING, db_index=True)
    title = models.CharField(max_length=200)
    graph_name = models.CharField(max_length=80)
    thread_id = models.CharField(max_length=200)
    # Distinguishes several pauses of one run; requesting the same key again returns the
    # existing task (code before an interrupt() runs again on resume, so requests repeat).
    request_key = models.CharField(max_length=100, blank=True, default="")
    subject_type = models.CharField(max_length=100, blank=True)
    subject_id = models.CharField(max_length=64, blank=True)
    payload = models.JSONField(default=dict, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The owner of the subject (the analyst whose brief or question it is): four-eyes too.
    subject_owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    priority = models.PositiveSmallIntegerField(choices=Priority.choices, default=Priority.NORMAL)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    due_at = models.DateTimeField(db_index=True)
    escalated_at = models.DateTimeField(null=True, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    resume_state = models.CharField(max_length=16, choices=ResumeState.choices, default=ResumeState.WAITING)
    resume_claimed_at = models.DateTimeField(null=True, blank=True)
    # Attempts at resuming the run (each claim counts one): the sweep retries a resume whose worker
    # died or that failed, up to settings.REVIEW_RESUME_MAX_ATTEMPTS.
    resume_attempts = models.PositiveSmallIntegerField(default=0)
    resumed_at = models.DateTimeField(null=True, blank=True)
    resume_error = models.TextField(blank=True)

    class Meta:
        ordering = ["-priority", "due_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["graph_name", "thread_id", "request_key"], name="review_one_task_per_pause"
            ),
            models.UniqueConstraint(
                fields=["graph_name", "thread_id"],
                condition=models.Q(state="pending"),
                name="review_one_pending_task_per_run",
            ),
            # Four-eyes: who asked for the review, or owns the subject, never decides it.
            # (NULL compares as unknown, which CHECK accepts: system requests have no requester.)
            models.CheckConstraint(
                condition=~models.Q(decided_by=models.F("requested_by")),
                name="review_four_eyes_not_requester",
            ),
            models.CheckConstraint(
                condition=~models.Q(decided_by=models.F("subject_owner")),
                name="review_four_eyes_not_owner",
            ),
            # A human decision names its reviewer; pending has no decision at all.
            models.CheckConstraint(
                condition=models.Q(state="pending", decided_at__isnull=True, decided_by__isnull=True)
                | models.Q(
                    state__in=["approved", "edited", "rejected"], decided_at__isnull=False, decided_by__isnull=False
                )
                | models.Q(state__in=["expired", "cancelled"], decided_at__isnull=False),
                name="review_decided_state_consistent",
            ),
        ]
        indexes = [models.Index(fields=["state", "-priority", "due_at"])]

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_kind_display()}: {self.title}"

    @property
    def is_pending(self) -> bool:
        return self.state == self.State.PENDING


class ReviewDecision(models.Model):
    """The one decision on a task (``OneToOne``: a second decision cannot be inserted)."""

    class Outcome(models.TextChoices):
        APPROVE = "approve", "Approve"
        EDIT = "edit", "Edit and approve"
        REJECT = "reject", "Reject"
        EXPIRE = "expire", "Expired"
        CANCEL = "cancel", "Cancelled"

    task = models.OneToOneField(ReviewTask, on_delete=models.PROTECT, related_name="decision")
    outcome = models.CharField(max_length=16, choices=Outcome.choices)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.TextField(blank=True)
    edited_payload = models.JSONField(null=True, blank=True)
    diff = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(outcome="reject") | ~models.Q(reason=""), name="review_reject_needs_reason"
            ),
            models.CheckConstraint(
                condition=~models.Q(outcome="edit") | models.Q(edited_payload__isnull=False),
                name="review_edit_needs_payload",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_outcome_display()} on task {self.task_id}"

    def resume_value(self) -> dict[str, Any]:
        """What the paused graph receives as ``Command(resume=...)``: plain JSON."""
        return {
            "task_id": self.task_id,
            "outcome": self.outcome,
            "reason": self.reason,
            "edited": self.edited_payload,
            "reviewer": self.reviewer.get_username() if self.reviewer else None,
            "decided_at": self.created_at.isoformat(),
        }
