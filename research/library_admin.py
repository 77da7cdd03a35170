"""Admin-only services on the team library: the shared reference set and re-ingestion (audited)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest

from core.audit import audit_record
from core.roles import ADMIN, has_role
from research.models import Document
from research.services import _enqueue_ingest


def document_reference_set(
    *, user: Any, document_ids: list[int], reference: bool, request: HttpRequest | None = None
) -> int:
    """Put documents into (or take them out of) the team's reference set — admins only, audited
    per document. Returns how many changed."""
    if not has_role(user, ADMIN):
        raise PermissionDenied("Only an admin can change the team's reference set.")
    changed = 0
    with transaction.atomic():
        rows = Document.objects.select_for_update().filter(pk__in=document_ids).exclude(is_reference=reference)
        for document in rows:
            audit_record(
                actor=user,
                action="document.reference_set",
                subject=document,
                before={"is_reference": document.is_reference},
                after={"is_reference": reference},
                request=request,
            )
            document.is_reference = reference
            document.save(update_fields=["is_reference", "updated_at"])
            changed += 1
    return changed


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
