"""The whole shipped demo corpus (41 MPC minutes + the Annual Report 2023-24) in the test database,
added and ingested through the same services as ``manage.py load_research_corpus``.

Embedding ~4,000 passages takes minutes on 2 cores; the embedding cache (``RESEARCH_EMBED_CACHE_DIR``,
``research/retrieval/embed_cache.py``) keeps them by content, so every run after the first on a
machine only chunks and stores (tens of seconds).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings


def load_demo_corpus(owner: Any) -> dict[str, Any]:
    """Every manifest entry as a team document owned by ``owner``, ingested; by original file stem
    (``reserve_bank_of_india_06-08-2024``, ``rbi-annual-report-2023-24``)."""
    from config.celery import app
    from research.management.commands.load_research_corpus import entry_add, manifest_entries
    from research.services import document_ingest

    root = Path(settings.RESEARCH_DEMO_CORPUS_DIR)
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True  # no worker here: the on-commit ingestion runs in-process
    documents = {}
    try:
        for entry in manifest_entries(root):
            document, _ = entry_add(owner, root, entry)
            document = document_ingest(document_id=document.pk)
            assert document.status == "done", document.error
            documents[Path(entry["file"]).name.split(".")[0]] = document
    finally:
        app.conf.task_always_eager = eager
    return documents


def remove_documents(owner: Any) -> None:
    """Delete ``owner``'s documents and files (committed fixtures clean up after themselves)."""
    from research.models import Document

    for document in Document.objects.filter(owner=owner):
        document.file.delete(save=False)
    Document.objects.filter(owner=owner).delete()


FILINGS = Path(__file__).resolve().parents[2] / "data" / "filings"


def filings_manifest() -> list[dict[str, Any]]:
    """The shipped filings the golden set reads (``data/filings/manifest.json``), with the metadata a
    user confirms at upload (company, form, dates)."""
    import json

    entries: list[dict[str, Any]] = json.loads((FILINGS / "manifest.json").read_text())
    return entries


def load_filings(owner: Any, visibility: str = "team") -> dict[str, Any]:
    """Every manifest filing uploaded as a PDF by ``owner`` through the upload service and ingested;
    by file stem (``APPLE_2023Q3_10Q``)."""
    import datetime as dt

    from config.celery import app
    from research.services import UploadFile, document_ingest, document_upload

    def date(value: str | None) -> dt.date | None:
        return dt.date.fromisoformat(value) if value else None

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True  # no worker here: the on-commit ingestion runs in-process
    documents = {}
    try:
        for entry in filings_manifest():
            result = document_upload(
                user=owner,
                files=[UploadFile(name=entry["file"], data=(FILINGS / entry["file"]).read_bytes())],
                visibility=visibility,
                title=entry["title"],
                issuer=entry["issuer"],
                doc_type=entry["doc_type"],
                doc_date=date(entry["doc_date"]),
                period_start=date(entry["period_start"]),
                period_end=date(entry["period_end"]),
                tags=entry["tags"],
            )
            assert not result.rejected, result.rejected
            document = document_ingest(document_id=(result.created or result.duplicates)[0].pk)
            assert document.status == "done", document.error
            documents[Path(entry["file"]).stem] = document
    finally:
        app.conf.task_always_eager = eager
    return documents
