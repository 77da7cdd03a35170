"""Writes for a document's details — the company, form, fiscal period and dates an uploader confirms
or corrects after the upload proposed them (research/ingest/proposals.py). Permission-checked,
validated before anything is written, audited with the fields that changed."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import HttpRequest

from core.audit import audit_record
from core.storage import file_read
from research.models import Document

EDITABLE = ("title", "issuer", "doc_type", "fiscal_period", "period_start", "period_end", "doc_date")
_LIMITS = {"title": 300, "issuer": 200, "doc_type": 60, "fiscal_period": 20}


def _checked(changes: dict[str, Any]) -> dict[str, Any]:
    errors: dict[str, str] = {}
    clean: dict[str, Any] = {}
    for name, value in changes.items():
        if name not in EDITABLE:
            errors[name] = f"“{name}” is not a detail that can be changed here."
        elif name in _LIMITS:
            text = str(value or "").strip()
            if len(text) > _LIMITS[name]:
                errors[name] = f"At most {_LIMITS[name]} characters (this has {len(text)})."
            clean[name] = text
        elif value is not None and not isinstance(value, dt.date):
            errors[name] = "Enter a date as YYYY-MM-DD."
        else:
            clean[name] = value
    if "title" in clean and not clean["title"]:
        errors["title"] = "A document needs a title."
    if errors:
        raise ValidationError(errors)
    return clean


def document_details_update(
    *, user: Any, document: Document, changes: dict[str, Any], request: HttpRequest | None = None
) -> Document:
    """Set the given details of ``document`` (any of :data:`EDITABLE`; dates as ``date`` or ``None``).
    Its owner or an admin may (only an admin for the team's reference set). A period that would end
    before it starts, an unknown field or an over-long value raises ``ValidationError`` naming the
    field, and nothing is written."""
    if not document.deletable_by(user):
        if document.is_reference:
            raise PermissionDenied("This document is part of the team's reference set; only an admin can change it.")
        raise PermissionDenied("Only the document's owner or an admin can change its details.")
    clean = _checked(changes)
    with transaction.atomic():
        locked = Document.objects.select_for_update().get(pk=document.pk)
        start = clean.get("period_start", locked.period_start)
        end = clean.get("period_end", locked.period_end)
        if start and end and end < start:
            raise ValidationError({"period_end": "The period cannot end before it starts."})
        before = {name: getattr(locked, name) for name in clean if getattr(locked, name) != clean[name]}
        if not before:
            return locked
        for name in before:
            setattr(locked, name, clean[name])
        locked.save(update_fields=[*before, "updated_at"])
        audit_record(
            actor=user,
            action="document.details_update",
            subject=locked,
            before={k: _plain(v) for k, v in before.items()},
            after={k: _plain(clean[k]) for k in before},
            request=request,
        )
    return locked


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, dt.date) else value


def document_details_fill(
    *, user: Any, document: Document, apply: bool = True, request: HttpRequest | None = None
) -> dict[str, Any]:
    """Read ``document``'s own file again (research/ingest/proposals.py) and set the details it
    lacks — for documents uploaded before their covers were read: an empty company or period, and a
    type that was only guessed from the file name ("apple_q_q" for APPLE_2023Q3_10Q.pdf) when the
    cover names the form. Never overwrites what someone typed. Returns the changes (audited;
    with ``apply=False`` only returned)."""
    from research.ingest.metadata import series_key
    from research.ingest.proposals import FIELDS, propose

    if document.kind == Document.Kind.PAGES:
        return {}  # extracted text of the shipped corpus: its details come from its manifest
    proposal = propose(document.kind, file_read(document.file), document.filename)
    changes: dict[str, Any] = {}
    guessed_type = document.doc_type == series_key(document.filename)
    for name in FIELDS:
        value, current = getattr(proposal, name), getattr(document, name)
        if value and (not current or (name == "doc_type" and guessed_type)) and value != current:
            changes[name] = value
    if ("period_start" in changes) != ("period_end" in changes):  # a period is set whole or not at all
        changes.pop("period_start", None)
        changes.pop("period_end", None)
    if changes and apply:
        document_details_update(user=user, document=document, changes=changes, request=request)
    return changes
