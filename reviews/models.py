from __future__ import annotations

import hashlib
import json
from typing import Any

from django.conf import settings
from django.db import models

GENESIS_HASH = "0" * 64


class AuditEvent(models.Model):
    """One row of the append-only audit log.

    Each row stores the hash of the previous row and its own hash over its content, so any
    edit or deletion breaks the chain (``manage.py verify_audit``). A database trigger refuses
    UPDATE and DELETE. ``actor`` has no FK constraint on purpose: history must outlive users.
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
        ordering = ["-id"]
        indexes = [models.Index(fields=["subject_type", "subject_id", "-id"])]

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
        canonical = json.dumps(self.content(), sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(canonical.encode()).hexdigest()
