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

from pathlib import Path

from django.conf import settings

from core.services import user_ensure
from research.management.commands.load_research_corpus import entry_add, manifest_entries
from research.models import Document
from research.services import document_ingest

CORPUS_OWNER = "evaluation-corpus@alphadesk.local"


def ensure() -> list[str]:
    """Make every manifest entry a finished team document; the titles ingested now, for the log."""
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
