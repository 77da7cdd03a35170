from __future__ import annotations

import hashlib
import json
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

API_SCOPES = (("api", "REST API"), ("mcp", "MCP bridge"))


class ApiTokenQuerySet(models.QuerySet["ApiToken"]):
    def active(self) -> ApiTokenQuerySet:
        now = timezone.now()
        return self.filter(revoked_at__isnull=True).filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))


class ApiToken(models.Model):
    """A personal API token. Only a SHA-256 of the secret is stored; the full token
    (``adk_<prefix>_<secret>``) is shown once, when it is created."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=80)
    prefix = models.CharField(max_length=16, unique=True)
    secret_hash = models.CharField(max_length=64)
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # The token that created this one through the API (None: created in a signed-in session).
    # Revoking a token revokes everything it created; a child never outlives or out-scopes it.
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children", editable=False
    )

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        if self.revoked_at is not None:
            return False
        return self.expires_at is None or self.expires_at > timezone.now()

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes


class WorkerProbe(models.Model):
    """A round trip through the queue: created by the web side, completed by a worker.

    ``manage.py probe_worker`` and the test-suite use it to prove a real worker consumed a task
    and persisted its result."""

    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return f"probe {self.pk} ({'done' if self.completed_at else 'pending'})"


class AuditEvent(models.Model):
    """One row of the append-only audit log (written only by :func:`core.audit.audit_record`).

    Each row stores the hash of the previous row and its own hash over its content, so any
    edit or deletion breaks the chain (``manage.py verify_audit``). A database trigger refuses
    UPDATE and DELETE. ``actor`` has no FK constraint on purpose: history must outlive users.

    The log sits in core, the bottom floor, because every app writes to it. Its table, trigger
    and index names keep their ``reviews_`` prefix: the table was created by the reviews app and
    moved here in migration state only, so existing databases keep every row and the trigger.
    """

    created_at = models.DateTimeField()
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    actor_label = models.CharField(max_length=254, blank=True)
    action = models.CharField(max_length=80, db_index=True)
    subject_type = models.CharField(max_length=100, blank=True, db_index=True)
    subject_id = models.CharField(max_length=64, blank=True, db_index=True)
    subject_label = models.CharField(max_length=200, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=400, blank=True)
    prev_hash = models.CharField(max_length=64)
    row_hash = models.CharField(max_length=64, unique=True)

    class Meta:
        db_table = "reviews_auditevent"
        ordering = ["-id"]
        indexes = [models.Index(fields=["subject_type", "subject_id", "-id"], name="reviews_aud_subject_388cab_idx")]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.actor_label or 'system'} {self.action}"

    def content(self) -> dict[str, Any]:
        """The fields the hash covers, in a canonical form."""
        return {
            "created_at": self.created_at.isoformat(),
            "actor_id": self.actor_id,
            "actor_label": self.actor_label,
            "action": self.action,
            "subject_type": self.subject_type,
            "subject_id": self.subject_id,
            "subject_label": self.subject_label,
            "before": self.before,
            "after": self.after,
            "ip": self.ip,
            "user_agent": self.user_agent,
            "prev_hash": self.prev_hash,
        }

    def compute_hash(self) -> str:
        """SHA-256 (hex) of the canonical form of :meth:`content`: JSON with sorted keys, separators
        ``,`` and ``:`` (no spaces), non-ASCII characters escaped as ``\\uXXXX``, dates as ISO 8601."""
        canonical = json.dumps(self.content(), sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(canonical.encode()).hexdigest()
