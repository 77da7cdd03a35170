"""Admin-only services on the team library: the shared reference set and re-ingestion (audited)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from core.audit import audit_record
from core.roles import ADMIN, has_role
from research.models import Document
from research.services import _enqueue_ingest


def document_reference_set(
    *,
    user: Any,
    document_ids: list[int],
    reference: bool,
    request: HttpRequest | None = None,
    setup: bool = False,
) -> int:
    """Put documents into (or take them out of) the team's reference set — admins only, audited
    per document. Returns how many changed.

    With ``REFERENCE_SET_APPROVAL`` a document joins only when a second admin approves: the first
    admin's call records a request (audited ``document.reference_requested``), another admin's call
    on it approves it. Taking a document out needs no second admin. ``setup`` (the shipped corpus's
    loader) is the system itself and needs no approval."""
    if not has_role(user, ADMIN):
        raise PermissionDenied("Only an admin can change the team's reference set.")
    four_eyes = reference and settings.REFERENCE_SET_APPROVAL and not setup
    changed = 0
    with transaction.atomic():
        rows = Document.objects.select_for_update().filter(pk__in=document_ids).exclude(is_reference=reference)
        for document in rows:
            if four_eyes and document.reference_requested_by_id in (None, user.pk):
                changed += _reference_request(document, user, request)
                continue
            approved = {"approved_by": user.pk, "requested_by": document.reference_requested_by_id} if four_eyes else {}
            audit_record(
                actor=user,
                action="document.reference_set",
                subject=document,
                before={"is_reference": document.is_reference},
                after={"is_reference": reference, **approved},
                request=request,
            )
            document.is_reference = reference
            document.reference_requested_by, document.reference_requested_at = None, None
            document.save(
                update_fields=["is_reference", "reference_requested_by", "reference_requested_at", "updated_at"]
            )
            changed += 1
    return changed


def _reference_request(document: Document, user: Any, request: HttpRequest | None) -> int:
    """Record ``user``'s request to add ``document`` (once); 0: nothing changed yet."""
    if document.reference_requested_by_id == user.pk:
        return 0  # their own request still waits for another admin
    audit_record(
        actor=user, action="document.reference_requested", subject=document, after={"requested_by": user.pk},
        request=request,
    )  # fmt: skip
    document.reference_requested_by, document.reference_requested_at = user, timezone.now()
    document.save(update_fields=["reference_requested_by", "reference_requested_at", "updated_at"])
    return 0


def document_reingest(*, user: Any, document_id: int, request: HttpRequest | None = None) -> Document:
    """Parse, chunk and embed a document again (admins: e.g. after a parser fix), audited; the old
    passages stay until the new ones replace them in one transaction."""
    if not has_role(user, ADMIN):
        raise PermissionDenied("Only an admin can re-ingest documents.")
    with transaction.atomic():
        document = Document.objects.select_for_update().get(pk=document_id)
        before = {"status": document.status, "chunks": document.chunk_count}
        document.status, document.progress, document.error = Document.Status.QUEUED, 0, ""
        document.status_message = "Queued for re-ingestion"
        document.save(update_fields=["status", "progress", "error", "status_message", "updated_at"])
        audit_record(actor=user, action="document.reingest", subject=document, before=before, request=request)
        transaction.on_commit(partial(_enqueue_ingest, document.pk))
    return document
