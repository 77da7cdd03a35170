"""Ingest the shipped demo corpus (data/rbi: every MPC minutes and the Annual Report 2023-24).

The corpus ships as pages our parser extracted from the originals (``data/rbi/pages/*.pages.json.xz``,
built by ``corpus_pages_extract``), so the repository stays small; each is added with the original
file's SHA-256 and goes through the same chunk → embed → store path as an upload. Idempotent:
documents already in the library (same content) are skipped. ``--background`` only queues them
for the Celery worker (``make demo``: the portal starts at once and the library shows progress).
"""

from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.services import user_ensure
from research.library_admin import document_reference_set
from research.models import Document
from research.services import document_add_extracted, document_ingest


def _date(value: str | None) -> dt.date | None:
    return dt.date.fromisoformat(value) if value else None


def manifest_entries(root: Path, match: list[str] | None = None, limit: int = 0) -> list[dict[str, Any]]:
    """The manifest's entries, narrowed to file names containing any of ``match``, then the first ``limit``."""
    path = root / "manifest.json"
    if not path.exists():
        raise CommandError(f"{path} not found")
    entries: list[dict[str, Any]] = json.loads(path.read_text())
    if match:
        entries = [e for e in entries if any(m in e["file"] for m in match)]
    return entries[:limit] if limit else entries


def entry_add(owner: Any, root: Path, entry: dict[str, Any]) -> tuple[Document, bool]:
    """Add one manifest entry as a document (not yet ingested); ``(document, created)``."""
    pages_path = root / entry["pages"]
    meta = {
        "issuer": entry.get("issuer", ""),
        "doc_type": entry.get("doc_type", ""),
        "doc_date": _date(entry.get("doc_date")),
        "period_start": _date(entry.get("period_start")),
        "period_end": _date(entry.get("period_end")),
        "tags": entry.get("tags", []),
        "source_url": entry.get("source_url", ""),
    }
    return document_add_extracted(
        user=owner,
        name=pages_path.name,
        data=pages_path.read_bytes(),
        content_hash=entry["sha256"],
        title=entry["title"],
        meta=meta,
    )


class Command(BaseCommand):
    help = "Add and ingest the demo document corpus (every RBI MPC minutes and the Annual Report 2023-24)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--owner", default="admin@alphadesk.local", help="e-mail of the uploading user")
        parser.add_argument("--dir", default=str(settings.RESEARCH_DEMO_CORPUS_DIR))
        parser.add_argument("--match", action="append", help="only files whose name contains this (repeatable)")
        parser.add_argument("--limit", type=int, default=0, help="only the first N files (0 = all)")
        parser.add_argument(
            "--background",
            action="store_true",
            help="only add; the Celery worker ingests (make demo: the portal starts at once and the "
            "library page shows ingestion progress)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        root = Path(options["dir"])
        entries = manifest_entries(root, options["match"], options["limit"])
        owner, _ = user_ensure(
            email=options["owner"], roles=["admin", "analyst", "reviewer"], password=None, staff=True
        )
        queued = 0
        for entry in entries:
            document, _ = entry_add(owner, root, entry)
            # The shipped corpus is the team's shared reference set: only admins may delete it.
            document_reference_set(user=owner, document_ids=[document.pk], reference=True, setup=True)
            if document.status == Document.Status.DONE:
                self.stdout.write(f"= {entry['title']}: already ingested")
                continue
            if options["background"]:
                queued += 1
                continue
            # Ingest here rather than wait for a worker: a worker picking up the queued task later
            # finds the document done and does nothing.
            started = time.perf_counter()
            document = document_ingest(document_id=document.pk)
            if document.status != Document.Status.DONE:
                raise CommandError(f"{entry['title']}: {document.error}")
            self.stdout.write(
                f"+ {entry['title']}: {document.page_count} pages, {document.chunk_count} passages "
                f"in {time.perf_counter() - started:.1f} s"
            )
        if queued:
            self.stdout.write(
                f"{queued} demo documents queued; the worker ingests them (progress on the Research page)."
            )
