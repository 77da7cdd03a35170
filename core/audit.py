"""The append-only, hash-chained audit log: the one way an audit row is written, and its check.

Every app records what matters through :func:`audit_record`, so the log lives on the ground floor
(core) where every app may import it. The model is :class:`core.models.AuditEvent`; the pages that
show the log (history, CSV export, per-object panel) belong to the reviews app.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db import connection, models, transaction
from django.http import HttpRequest
from django.utils import timezone

from core.models import AuditEvent

#: The ``prev_hash`` of the first row: the chain has to start somewhere fixed.
GENESIS_HASH = "0" * 64

# Any constant works; it serialises appends so each row sees its true predecessor.
_AUDIT_LOCK_KEY = 7_310_001


def _client_ip(request: HttpRequest | None) -> str | None:
    if request is None:
        return None
    return request.META.get("REMOTE_ADDR") or None


def audit_record(
    *,
    actor: Any,
    action: str,
    subject: models.Model | None = None,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    request: HttpRequest | None = None,
) -> AuditEvent:
    """Append one event to the hash-chained audit log (atomic; serialised by an advisory lock)."""
    actor_user = actor if getattr(actor, "is_authenticated", False) else None
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_AUDIT_LOCK_KEY])
        last = AuditEvent.objects.order_by("-id").values_list("row_hash", flat=True).first()
        event = AuditEvent(
            created_at=timezone.now(),
            actor=actor_user,
            actor_label=(actor_user.get_username() if actor_user else "")[:254],
            action=action,
            subject_type=subject._meta.label_lower if subject is not None else "",
            subject_id=str(subject.pk) if subject is not None else "",
            subject_label=str(subject)[:200] if subject is not None else "",
            before=before,
            after=after,
            ip=_client_ip(request),
            user_agent=(request.META.get("HTTP_USER_AGENT", "") if request else "")[:400],
            prev_hash=last or GENESIS_HASH,
        )
        event.row_hash = event.compute_hash()
        event.save(force_insert=True)
    return event


def audit_chain_breaks() -> Iterator[tuple[AuditEvent, str]]:
    """Yield ``(event, reason)`` for every row whose link or content hash is wrong, oldest first."""
    expected_prev = GENESIS_HASH
    for event in AuditEvent.objects.order_by("id").iterator(chunk_size=2000):
        if event.prev_hash != expected_prev:
            yield event, "previous-hash link does not match the row before it (a row was removed or reordered)"
        elif event.compute_hash() != event.row_hash:
            yield event, "content does not match its hash (the row was altered)"
        expected_prev = event.row_hash


def audit_cross_user_read(
    *, actor: Any, subject: models.Model, owner_id: Any, request: HttpRequest | None = None
) -> None:
    """Record that ``actor`` (an admin, for support) read ``subject`` belonging to another user.

    Once per actor and subject every CROSS_USER_READ_WINDOW seconds: pages poll (a running turn
    refreshes every 400 ms), and one row per look is what an investigator needs, not one per poll."""
    from django.conf import settings
    from django.core.cache import cache

    key = f"audit:cross-read:{getattr(actor, 'pk', '')}:{subject._meta.label_lower}:{subject.pk}"
    try:
        first = cache.add(key, 1, timeout=settings.AUDIT_CROSS_USER_READ_WINDOW_SECONDS)
    except Exception:  # the cache (Redis) is down: record every read rather than none
        first = True
    if first:
        audit_record(
            actor=actor, action="admin.cross_user_read", subject=subject, after={"owner_id": owner_id}, request=request
        )
