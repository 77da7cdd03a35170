"""Writes for the document library: upload, ingest, delete. Atomic, permission-checked, audited."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import re
from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import PurePath
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.base import ContentFile
from django.db import connection, transaction
from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone

from core.audit import audit_record
from core.roles import can_access
from core.storage import file_delete_after_commit, file_read, storage_call
from core.tasks import enqueue
from research.ingest.parsers import ParseError, check_pdf_opens, sniff
from research.ingest.proposals import apply as apply_proposal
from research.ingest.proposals import propose
from research.models import Document
from research.retrieval.bm25 import ChunkChanges, corpus_version_bump
from research.uploads import UploadFile, UploadResult

logger = logging.getLogger(__name__)
INGEST_TASK = "research.ingest_document"  # the Celery task (research/tasks.py) that calls document_ingest


def _title_from_filename(name: str) -> str:
    stem = PurePath(name).stem
    return re.sub(r"[_\-]+", " ", stem).strip()[:300] or "Untitled document"


def _human_size(n: float) -> str:
    return f"{n / 1e3:.0f} KB" if n < 1e6 else f"{n / 1e6:.1f} MB"


def _safe_name(name: str) -> str:
    base = PurePath(name.replace("\\", "/")).name
    return re.sub(r"[^\w.\- ]+", "_", base)[:200] or "upload"


def document_upload(
    *,
    user: Any,
    files: Sequence[UploadFile],
    visibility: str = Document.Visibility.TEAM,
    title: str = "",
    issuer: str = "",
    doc_type: str = "",
    doc_date: dt.date | None = None,
    period_start: dt.date | None = None,
    period_end: dt.date | None = None,
    fiscal_period: str = "",
    tags: Iterable[str] = (),
    source_url: str = "",
    request: HttpRequest | None = None,
) -> UploadResult:
    """Store each acceptable file as a queued document and enqueue its ingestion.

    Files are judged one by one: a rejected file (empty, over the size cap, content not matching
    its extension, encrypted or damaged PDF) is reported with its reason and the others go on.
    Bytes already in the library as a document the user can see — their own, or a team document
    uploaded by someone else — are not stored again: the upload links to that document (reported
    as a duplicate), so search never holds the same passages twice. What a file's cover says (its
    company, form, fiscal period, dates: research/ingest/proposals.py) fills what the uploader left
    empty, and is reported in ``proposals`` for them to confirm or correct.
    """
    if not can_access(user, "research"):
        raise PermissionDenied("Your role does not give access to Research.")
    if not files:
        raise ValidationError({"files": "Choose at least one file to upload."})
    if visibility not in Document.Visibility.values:
        raise ValidationError({"visibility": "Visibility must be 'team' or 'private'."})
    if period_start and period_end and period_end < period_start:
        raise ValidationError({"period_end": "The period cannot end before it starts."})
    shared = {
        "visibility": visibility,
        "issuer": issuer.strip()[:200],
        "doc_type": doc_type.strip()[:60],
        "doc_date": doc_date,
        "period_start": period_start,
        "period_end": period_end or period_start,
        "fiscal_period": fiscal_period.strip()[:20],
        "tags": sorted({t.strip().lower()[:40] for t in tags if t and t.strip()}),
        "source_url": source_url[:500],
    }
    # A title typed on the form names a single file; each of several files is titled from its name.
    given_title = title.strip() if len(files) == 1 else ""
    result = UploadResult()
    for upload in files:
        _upload_one(upload, user=user, shared=shared, given_title=given_title, result=result, request=request)
    return result


def document_add_extracted(
    *,
    user: Any,
    name: str,
    data: bytes,
    content_hash: str,
    title: str,
    meta: dict[str, Any],
    request: HttpRequest | None = None,
) -> tuple[Document, bool]:
    """Add a document from a pages file — text our parser extracted ahead of time from the original
    (research/ingest/pages.py; the shipped demo corpus) — and enqueue its ingestion through the same
    chunk/embed/store path as an upload. ``content_hash`` is the SHA-256 of the *original* file, so
    an analyst who later uploads that PDF is linked to this document. ``(document, created)``;
    an existing document with the same content that the user can see is returned as it is."""
    from research.ingest.pages import pages_load

    if not can_access(user, "research"):
        raise PermissionDenied("Your role does not give access to Research.")
    try:
        pages_load(data)
    except ParseError as exc:
        raise ValidationError({"files": f"{name}: {exc}"}) from exc
    existing = document_same_content(user=user, content_hash=content_hash)
    if existing is not None:
        return existing, False
    fields = {
        "visibility": meta.get("visibility", Document.Visibility.TEAM),
        "issuer": str(meta.get("issuer", ""))[:200],
        "doc_type": str(meta.get("doc_type", ""))[:60],
        "doc_date": meta.get("doc_date"),
        "period_start": meta.get("period_start"),
        "period_end": meta.get("period_end") or meta.get("period_start"),
        "tags": sorted({str(t).strip().lower()[:40] for t in meta.get("tags", ()) if str(t).strip()}),
        "source_url": str(meta.get("source_url", ""))[:500],
    }
    document = _document_create(
        UploadFile(name=name, data=data),
        user=user,
        name=_safe_name(name),
        kind=Document.Kind.PAGES,
        digest=content_hash,
        title=title[:300],
        shared=fields,
        request=request,
    )
    return document, True


def _upload_one(
    upload: UploadFile,
    *,
    user: Any,
    shared: dict[str, Any],
    given_title: str,
    result: UploadResult,
    request: HttpRequest | None,
) -> None:
    """Judge one file and add it to ``result`` as rejected, a duplicate, or a created document."""
    name = _safe_name(upload.name)
    try:
        kind = _accepted_kind(name, upload)
    except ParseError as exc:
        result.rejected.append((name, str(exc)))
        return
    digest = hashlib.sha256(upload.data).hexdigest()
    existing = document_same_content(user=user, content_hash=digest)
    if existing is not None:
        if existing.status == Document.Status.QUEUED:
            # Uploading again is how a person retries: a document still waiting is sent again
            # (its ingestion runs once, whichever message a worker takes first).
            _enqueue_ingest_flagging(existing)
        result.duplicates.append(existing)
        return
    proposal = propose(kind, upload.data, name)
    document = _document_create(
        upload,
        user=user,
        name=name,
        kind=kind,
        digest=digest,
        title=(given_title or _title_from_filename(name))[:300],
        shared=apply_proposal(proposal, shared),
        request=request,
    )
    result.created.append(document)
    result.proposals[document.pk] = proposal


def document_same_content(*, user: Any, content_hash: str) -> Document | None:
    """The document with these bytes that ``user`` can already see — their own first, else the
    oldest team-wide one — or ``None``. Failed ingestions do not count (the bytes may be retried)."""
    same = Document.objects.visible_to(user).filter(content_hash=content_hash)
    own = same.filter(owner=user).first()
    if own is not None:
        return own
    return same.exclude(status=Document.Status.FAILED).order_by("created_at", "id").first()


def _accepted_kind(name: str, upload: UploadFile) -> Document.Kind:
    """The file's document kind; raises ``ParseError`` (with the reason for the uploader) for a file
    over the size cap, content not matching its extension, or a PDF that will not open."""
    cap = settings.RESEARCH_MAX_UPLOAD_BYTES
    size = max(len(upload.data), upload.size or 0)
    if size > cap:
        raise ParseError(f"{name}: the file is {_human_size(size)}; the limit is {_human_size(cap)}.")
    kind = sniff(name, upload.data)
    if kind == Document.Kind.PDF:
        check_pdf_opens(name, upload.data)
    return kind


def _document_create(
    upload: UploadFile,
    *,
    user: Any,
    name: str,
    kind: Document.Kind,
    digest: str,
    title: str,
    shared: dict[str, Any],
    request: HttpRequest | None,
) -> Document:
    """Save the queued document and its file, audit it, and enqueue its ingestion on commit."""
    with transaction.atomic():
        document = Document(
            owner=user,
            title=title,
            kind=kind,
            filename=name,
            size_bytes=len(upload.data),
            content_hash=digest,
            status_message="Waiting for a worker",
            **shared,
        )
        with storage_call(f"saving {name}"):  # the bucket down: a clear 503, and this transaction rolls back
            document.file.save(name, ContentFile(upload.data), save=False)
        document.save()
        audit_record(
            actor=user,
            action="document.upload",
            subject=document,
            after={"filename": name, "sha256": digest, "bytes": len(upload.data), "visibility": shared["visibility"]},
            request=request,
        )
        # Flagged on the document when the queue is down, so the upload answers "saved, will run when
        # the queue is back" (the sweep sends it).
        transaction.on_commit(partial(_enqueue_ingest_flagging, document))
    return document


def _enqueue_ingest(document_id: int) -> bool:
    return enqueue(INGEST_TASK, document_id)  # by name: the task calls back into this module


def _enqueue_ingest_flagging(document: Document) -> None:
    document.queue_unavailable = _enqueue_ingest(document.pk) is False  # type: ignore[attr-defined]


def _set_progress(document_id: int, progress: int, message: str, **fields: Any) -> None:
    # Plain UPDATEs in autocommit: a polling page sees each step as it happens.
    documents = Document.objects.filter(pk=document_id)
    if not fields:  # a progress line never lands on a finished document (a redelivered task's)
        documents = documents.exclude(status__in=[Document.Status.DONE, Document.Status.FAILED])
    update = partial(
        documents.update,
        progress=min(100, max(0, progress)), status_message=message[:200], updated_at=timezone.now(), **fields,
    )  # fmt: skip
    if fields or connection.in_atomic_block:
        update()
        return
    # A progress line alone does not wait for the disk: the embedding thread reports between two
    # batches, and a WAL flush there (~7 ms) held the model up; after a crash the line is moot.
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")
        update()


def document_ingest(*, document_id: int, task_id: str = "") -> Document:
    """Parse, chunk, embed and store one document. Idempotent: a finished document is left as it
    is, and a run interrupted half-way starts over (chunks are stored in one transaction). With
    ``task_id`` (the Celery task's), the run first claims the document, so a second message for
    it does nothing while a live run holds it."""
    from research.ingest.pipeline import parse_and_chunk
    from research.ingest.store import store_passages

    document = Document.objects.get(pk=document_id)
    if document.is_finished:
        return document
    if task_id and not _ingest_claim(document_id, task_id):
        return document
    _set_progress(document_id, 2, "Reading the file", status=Document.Status.PROCESSING, error="")

    def report(fraction: float, message: str) -> None:
        _set_progress(document_id, 5 + int(fraction * 85), message)

    try:
        data = file_read(document.file)  # the bucket down: ApplicationError, the task postpones
        pages, drafts = parse_and_chunk(document.kind, data, progress=report, name=document.filename)
    except ParseError as exc:
        _set_progress(document_id, 100, f"Failed: {exc}"[:200], status=Document.Status.FAILED, error=str(exc)[:2000])
        document.refresh_from_db()
        return document
    return store_passages(document_id, pages, drafts, report)


def _ingest_claim(document_id: int, task_id: str) -> bool:
    """Take the document for this task: when it waits, when this very task held it (its message
    came back because the worker died), or when its holder has been silent too long."""
    now = timezone.now()
    silent_since = now - dt.timedelta(seconds=settings.INGEST_STALE_SECONDS)
    takeable = (
        Q(status=Document.Status.QUEUED)
        | Q(status=Document.Status.PROCESSING, ingest_task_id=task_id)
        | Q(status=Document.Status.PROCESSING, updated_at__lt=silent_since)
    )
    claimed = Document.objects.filter(takeable, pk=document_id).update(
        status=Document.Status.PROCESSING, ingest_task_id=task_id[:64], updated_at=now
    )
    return claimed == 1


def document_ingest_sweep(*, now: Any = None) -> dict[str, int]:
    """Send again what a fault left behind (beat, every ``INGEST_SWEEP_SECONDS``): documents still
    waiting ``INGEST_REQUEUE_AFTER_SECONDS`` after their last send (the broker was down or lost it),
    and documents whose ingestion has been silent for ``INGEST_STALE_SECONDS`` (their worker died).
    Safe at any time: a run claims its document, and passages are stored once (ingest/store.py)."""
    now = now or timezone.now()
    silent = Document.objects.filter(
        status=Document.Status.PROCESSING, updated_at__lt=now - dt.timedelta(seconds=settings.INGEST_STALE_SECONDS)
    )
    silent_ids = list(silent.values_list("pk", flat=True))
    reset = silent.filter(pk__in=silent_ids).update(
        status=Document.Status.QUEUED, status_message="The worker stopped; ingesting again", updated_at=now
    )
    waiting = Document.objects.filter(
        status=Document.Status.QUEUED, updated_at__lt=now - dt.timedelta(seconds=settings.INGEST_REQUEUE_AFTER_SECONDS)
    )
    waiting_ids = list(waiting.values_list("pk", flat=True))
    Document.objects.filter(pk__in=waiting_ids).update(updated_at=now)  # the next send waits its turn
    sent = sum(1 for document_id in [*silent_ids, *waiting_ids] if _enqueue_ingest(document_id))
    return {"requeued": sent, "reset_from_processing": reset}


def document_mark_failed(*, document_id: int, reason: str) -> None:
    _set_progress(document_id, 100, f"Failed: {reason}"[:200], status=Document.Status.FAILED, error=reason[:2000])


def document_ingest_postpone(*, document_id: int, reason: str) -> None:
    """The file store was down: the document waits again, and the sweep sends it once more."""
    _set_progress(document_id, 0, reason, status=Document.Status.QUEUED)


def document_delete(*, user: Any, document: Document, request: HttpRequest | None = None) -> None:
    """Delete a document, its chunks and its file. Its owner or an admin may; a document of the
    team's reference set only an admin."""
    if not document.deletable_by(user):
        if document.is_reference:
            raise PermissionDenied("This document is part of the team's reference set; only an admin can delete it.")
        raise PermissionDenied("Only the document's owner or an admin can delete it.")
    before = {
        "title": document.title,
        "filename": document.filename,
        "sha256": document.content_hash,
        "chunks": document.chunk_count,
        "status": document.status,
        "is_reference": document.is_reference,
    }
    file_name, storage = document.file.name, document.file.storage
    with transaction.atomic():
        audit_record(actor=user, action="document.delete", subject=document, before=before, request=request)
        chunks = list(document.chunks.values_list("id", flat=True))
        document.delete()  # chunks go with it (on_delete=CASCADE)
        corpus_version_bump(ChunkChanges(removed=chunks))
        if file_name:
            transaction.on_commit(partial(file_delete_after_commit, storage, file_name))
