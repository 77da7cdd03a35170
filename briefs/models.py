"""Brief runs, their persisted steps, the briefs they produce and the deliveries that were sent."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q

SLOT_CONSTRAINT = "brief_one_run_per_watchlist_slot"
ACTIVE_CONSTRAINT = "brief_one_active_run_per_watchlist"


class BriefRun(models.Model):
    """One execution of the brief graph for a watchlist (LangGraph thread ``brief-run-<id>``)."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        AWAITING_REVIEW = "awaiting_review", "Awaiting review"
        DELIVERED = "delivered", "Delivered"
        ARCHIVED = "archived", "Approved, not emailed"
        REJECTED = "rejected", "Rejected"
        BLOCKED = "blocked", "Blocked (unverified figures)"
        NO_DATA = "no_data", "No data"
        BUDGET_ABORT = "budget_abort", "Budget abort"
        ITERATION_CAP = "iteration_cap", "Stopped at the iteration cap"
        FAILED = "failed", "Failed"

    class Trigger(models.TextChoices):
        BUTTON = "button", "RUN button"
        API = "api", "API"
        SCHEDULE = "schedule", "Schedule"

    ACTIVE = (Status.QUEUED, Status.RUNNING, Status.AWAITING_REVIEW)

    watchlist = models.ForeignKey("portfolios.Watchlist", on_delete=models.CASCADE, related_name="brief_runs")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    trigger = models.CharField(max_length=16, choices=Trigger.choices)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED, db_index=True)
    tickers = models.JSONField(default=list)  # the scope, frozen when the run starts
    partial = models.BooleanField(default=False)
    errors = models.JSONField(default=list)
    tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=10, decimal_places=6, default=0)
    iterations = models.PositiveSmallIntegerField(default=0)
    note = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The scheduled instant (UTC) a scheduled run serves; null for RUN-button and API runs.
    slot = models.DateTimeField(null=True, blank=True)

    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # The database, not a check-then-insert, guarantees one active run per watchlist.
            models.UniqueConstraint(
                fields=["watchlist"],
                condition=Q(status__in=["queued", "running", "awaiting_review"]),
                name=ACTIVE_CONSTRAINT,
            ),
            # One run per schedule slot: beat re-sending a slot after a restart, or the catch-up
            # sweep racing beat, cannot produce a second brief.
            models.UniqueConstraint(
                fields=["watchlist", "slot"], condition=Q(slot__isnull=False), name=SLOT_CONSTRAINT
            ),
        ]

    def __str__(self) -> str:
        return f"Brief run #{self.pk} ({self.watchlist_id})"

    @property
    def thread_id(self) -> str:
        return f"brief-run-{self.pk}"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE


class BriefStep(models.Model):
    """One node or tool step of a run: what ran, with what, what came out, how long, at what cost."""

    run = models.ForeignKey(BriefRun, on_delete=models.CASCADE, related_name="steps")
    node = models.CharField(max_length=40)
    tool = models.CharField(max_length=60, blank=True)
    call_id = models.CharField(max_length=40, blank=True)
    inputs = models.JSONField(default=dict)
    outputs = models.JSONField(default=dict)
    error = models.CharField(max_length=500, blank=True)
    latency_ms = models.FloatField(default=0)
    tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.FloatField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.node} {self.tool}".strip()


class Brief(models.Model):
    """The brief a run produced: draft (numeral-free), claim table, verification, renderings."""

    class Status(models.TextChoices):
        AWAITING_REVIEW = "awaiting_review", "Awaiting review"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"
        BLOCKED = "blocked", "Blocked"

    run = models.OneToOneField(BriefRun, on_delete=models.CASCADE, related_name="brief")
    watchlist = models.ForeignKey("portfolios.Watchlist", on_delete=models.CASCADE, related_name="briefs")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.AWAITING_REVIEW)
    title = models.CharField(max_length=200)
    as_of = models.DateField(null=True, blank=True)
    partial = models.BooleanField(default=False)
    draft = models.JSONField()
    claims = models.JSONField(default=list)
    verification = models.JSONField(default=dict)
    body_text = models.TextField()
    body_html = models.TextField()
    decided_by = models.CharField(max_length=254, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.title} ({self.as_of})"

    def snapshot(self) -> dict[str, Any]:
        return {"status": self.status, "title": self.title, "partial": self.partial}


class BriefDelivery(models.Model):
    """The exact content sent (or archived) for a brief. One per brief: the idempotency key."""

    brief = models.OneToOneField(Brief, on_delete=models.CASCADE, related_name="delivery")
    recipients = models.JSONField(default=list)
    subject = models.CharField(max_length=250)
    text = models.TextField()
    html = models.TextField()
    emailed = models.BooleanField(default=False)
    sent_at = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"Delivery of brief #{self.brief_id}"
