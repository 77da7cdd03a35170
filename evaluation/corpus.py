"""The document library an evaluation reads: the whole shipped demo corpus (``data/rbi``: every MPC
minutes and the Annual Report 2023-24) — the corpus the research cases were written against.

It is added and ingested through research's own loader (``manage.py load_research_corpus``: the
extracted pages under ``data/rbi/pages``, each with its original file's SHA-256), so the
evaluation's library is the one ``make demo`` and the golden-set tests build. A document already in
the library with the same content is used as it is, so only the first run on a database ingests.
Ingestion embeds every passage; the shared embedding cache (``RESEARCH_EMBED_CACHE_DIR``) keeps the
vectors by content, so only the first load on a machine runs the model.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from django.conf import settings

from core.services import user_ensure
from research.management.commands.load_research_corpus import entry_add, manifest_entries
from research.models import Document
from research.services import document_ingest

CORPUS_OWNER = "evaluation-corpus@alphadesk.local"
FILINGS_OWNER = "evaluation-filings@alphadesk.local"


def ensure() -> list[str]:
    """The whole library, before any chat case runs: every manifest entry a finished team document,
    and the filings suite's private filings (:func:`ensure_filings`). The titles ingested now, for
    the log.

    The filings are loaded here too, not only when their suite starts, so that every suite of every
    run reads the same library: a library that grows half-way through a run would rank the next
    run's passages differently."""
    loaded = _ensure_team_corpus()
    ensure_filings()
    return loaded


def _ensure_team_corpus() -> list[str]:
    root = Path(settings.RESEARCH_DEMO_CORPUS_DIR)
    owner, _ = user_ensure(email=CORPUS_OWNER, roles=["analyst"], password=None)
    loaded = []
    for entry in manifest_entries(root):
        document, _ = entry_add(owner, root, entry)
        if document.status == Document.Status.DONE:
            continue
        document = document_ingest(document_id=document.pk)
        if document.status != Document.Status.DONE:
            raise RuntimeError(f"{entry['file']}: {document.error}")
        loaded.append(entry["title"])
    return loaded


def _date(value: str | None) -> dt.date | None:
    return dt.date.fromisoformat(value) if value else None


def ensure_filings() -> Any:
    """The filings suite's library: every filing of ``data/filings/manifest.json`` uploaded as a PDF
    (with the metadata a user confirms at upload), private to its own analyst, and ingested; that
    analyst. Idempotent: the same bytes are the same document."""
    import json

    from research.services import UploadFile, document_upload

    root = Path(settings.RESEARCH_FILINGS_DIR)
    owner, _ = user_ensure(email=FILINGS_OWNER, roles=["analyst"], password=None)
    for entry in json.loads((root / "manifest.json").read_text()):
        result = document_upload(
            user=owner,
            files=[UploadFile(name=entry["file"], data=(root / entry["file"]).read_bytes())],
            visibility=Document.Visibility.PRIVATE,
            title=entry["title"],
            issuer=entry["issuer"],
            doc_type=entry["doc_type"],
            tags=entry["tags"],
            doc_date=_date(entry["doc_date"]),
            period_start=_date(entry["period_start"]),
            period_end=_date(entry["period_end"]),
        )
        if result.rejected:
            raise RuntimeError(f"{entry['file']}: {result.rejected[0][1]}")
        document = (result.created or result.duplicates)[0]
        if document.status != Document.Status.DONE:
            document = document_ingest(document_id=document.pk)
        if document.status != Document.Status.DONE:
            raise RuntimeError(f"{entry['file']}: {document.error}")
    return owner
