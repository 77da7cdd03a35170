"""Evaluation runs and their per-case results.

A run evaluates one suite (``research``, ``adversarial``, ``briefs``, ``calculator``, ``filings``) with one
engine. Each case result keeps what went in, what was expected, what came out, the judge's
verdicts and the per-turn measures the metric registry (``evaluation/metrics.py``) aggregates, so
any metric can be recomputed from the stored rows.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q


class EvalRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    class Trigger(models.TextChoices):
        BUTTON = "button", "Button"
        API = "api", "API"
        COMMAND = "command", "Command"

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    suite = models.CharField(max_length=40, db_index=True)
    engine = models.CharField(max_length=20, default="deterministic")
    tags = models.JSONField(default=list, blank=True, help_text="only cases carrying one of these tags ([] = all)")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    trigger = models.CharField(max_length=10, choices=Trigger.choices, default=Trigger.COMMAND)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    passed = models.PositiveIntegerField(default=0)
    current = models.CharField(max_length=120, blank=True, help_text="the case being run")
    # {metric key: {"value": float|None, "n": int, "target": float, "ok": bool|None, "detail": str}}
    metrics = models.JSONField(default=dict, blank=True)
    summary = models.JSONField(default=dict, blank=True)  # suite-level figures (e.g. TAT-QA agreement)
    judge = models.JSONField(default=dict, blank=True)  # LLM judge: mode, agreement
    gate_ok = models.BooleanField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # One run at a time per suite: the database, not a check-then-insert, guarantees it.
            models.UniqueConstraint(
                fields=["suite"], condition=Q(status__in=["queued", "running"]), name="eval_one_active_run_per_suite"
            )
        ]

    def __str__(self) -> str:
        return f"Evaluation #{self.pk} ({self.suite}, {self.engine})"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def progress_pct(self) -> int:
        return round(100 * self.done / self.total) if self.total else 0

    @property
    def duration_s(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None


class EvalCaseResult(models.Model):
    class Outcome(models.TextChoices):
        PASS = "pass", "Pass"
        FAIL = "fail", "Fail"
        ERROR = "error", "Error"

    run = models.ForeignKey(EvalRun, on_delete=models.CASCADE, related_name="cases")
    seq = models.PositiveIntegerField()
    case_id = models.CharField(max_length=120)
    case_version = models.PositiveIntegerField(default=1)
    variant = models.CharField(max_length=20, default="", blank=True, help_text="e.g. deterministic / gullible")
    tags = models.JSONField(default=list, blank=True)
    source = models.TextField(blank=True)
    inputs = models.JSONField(default=dict, blank=True)  # the questions / watchlist / derivation
    expected = models.JSONField(default=dict, blank=True)
    actual = models.JSONField(default=dict, blank=True)  # per turn: answer, status, citations, tools
    verdicts = models.JSONField(default=dict, blank=True)  # deterministic judge, per turn
    llm_verdicts = models.JSONField(default=dict, blank=True)  # LLM judge (when a key is configured)
    measures = models.JSONField(default=list, blank=True)  # one dict per turn / run: what metrics read
    outcome = models.CharField(max_length=8, choices=Outcome.choices)
    reason = models.TextField(blank=True, help_text="why it failed, in words")
    trace = models.JSONField(default=dict, blank=True)  # {"kind": "chat"|"brief", "ids": [...]}
    latency_ms = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "seq"]
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="eval_case_unique_seq")]
        indexes = [models.Index(fields=["case_id"])]

    def __str__(self) -> str:
        return f"{self.case_id} {self.variant} ({self.outcome})".replace("  ", " ")

    @property
    def label(self) -> str:
        return f"{self.case_id} · {self.variant}" if self.variant else self.case_id

    def summary(self) -> dict[str, Any]:
        return {"case_id": self.case_id, "variant": self.variant, "outcome": self.outcome, "reason": self.reason}
