"""Ingest the shipped demo corpus (data/rbi). Idempotent: files already in the library are skipped."""

from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.services import user_ensure
from research.models import Document
from research.services import UploadFile, document_ingest, document_reference_set, document_upload


class Command(BaseCommand):
    help = "Upload and ingest the demo document corpus (RBI MPC minutes and Annual Report 2023-24)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--owner", default="admin@alphadesk.local", help="e-mail of the uploading user")
        parser.add_argument("--dir", default=str(settings.RESEARCH_DEMO_CORPUS_DIR))
        parser.add_argument("--limit", type=int, default=0, help="only the first N files (0 = all)")
        parser.add_argument(
            "--background",
            action="store_true",
            help="only upload; the Celery worker ingests (make demo: the portal starts at once and the "
            "library page shows ingestion progress)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        root = Path(options["dir"])
        manifest_path = root / "manifest.json"
        if not manifest_path.exists():
            raise CommandError(f"{manifest_path} not found")
        entries = json.loads(manifest_path.read_text())
        if options["limit"]:
            entries = entries[: options["limit"]]
        owner, _ = user_ensure(
            email=options["owner"], roles=["admin", "analyst", "reviewer"], password=None, staff=True
        )
        queued = 0
        for entry in entries:
            path = root / entry["file"]
            result = document_upload(
                user=owner,
                files=[UploadFile(name=path.name, data=path.read_bytes())],
                title=entry["title"],
                issuer=entry.get("issuer", ""),
                doc_type=entry.get("doc_type", ""),
                doc_date=dt.date.fromisoformat(entry["doc_date"]) if entry.get("doc_date") else None,
                tags=entry.get("tags", []),
                source_url=entry.get("source_url", ""),
            )
            if result.rejected:
                raise CommandError(result.rejected[0][1])
            document = (result.created or result.duplicates)[0]
            # The shipped corpus is the team's shared reference set: only admins may delete it.
            document_reference_set(user=owner, document_ids=[document.pk], reference=True)
            if document.status == Document.Status.DONE:
                self.stdout.write(f"= {entry['title']}: already ingested")
                continue
            if options["background"]:
                queued += 1
                continue
            # Ingest here rather than wait for a worker: `make demo` runs this before the worker starts.
            # A worker picking up the queued task later finds the document done and does nothing.
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
