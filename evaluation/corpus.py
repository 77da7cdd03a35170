"""The document library an evaluation needs: the shipped RBI documents its cases cite.

A document already in the library as a team document with the same bytes (``make demo`` loads
them) is used as it is; a missing one is uploaded team-wide by the evaluation's corpus owner and
ingested here. Ingestion embeds every passage, the expensive part of a first run (about 20 s for
the six MPC minutes on two cores); a second run finds them and costs nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path
from typing import Any

from django.conf import settings

from core.services import user_ensure
from research.models import Document
from research.services import UploadFile, document_ingest, document_upload

CORPUS_OWNER = "evaluation-corpus@alphadesk.local"


def manifest() -> list[dict[str, Any]]:
    root = Path(settings.RESEARCH_DEMO_CORPUS_DIR)
    return [{**e, "path": root / e["file"]} for e in json.loads((root / "manifest.json").read_text())]


def stem(entry: dict[str, Any]) -> str:
    return Path(entry["file"]).stem


def needed(stems: set[str], *, library: bool) -> list[dict[str, Any]]:
    """The manifest entries to load: the MPC minutes whenever a case reads the library, plus every
    document a case names (the annual report only when one does)."""
    entries = manifest()
    return [e for e in entries if stem(e) in stems or (library and e.get("doc_type") == "mpc_minutes")]


def ensure(entries: list[dict[str, Any]]) -> list[str]:
    """Make each entry a finished team document; what was loaded, for the run's log."""
    owner = None
    loaded = []
    for entry in entries:
        data = entry["path"].read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        team = Document.objects.filter(content_hash=digest, visibility=Document.Visibility.TEAM, status="done")
        if team.exists():
            continue
        if owner is None:
            owner, _ = user_ensure(email=CORPUS_OWNER, roles=["analyst"], password=None)
        result = document_upload(
            user=owner,
            files=[UploadFile(name=entry["path"].name, data=data)],
            title=entry["title"],
            issuer=entry.get("issuer", ""),
            doc_type=entry.get("doc_type", ""),
            doc_date=dt.date.fromisoformat(entry["doc_date"]) if entry.get("doc_date") else None,
            tags=entry.get("tags", []),
            source_url=entry.get("source_url", ""),
        )
        if result.rejected:
            raise RuntimeError(f"{entry['file']}: {result.rejected[0][1]}")
        document = (result.created or result.duplicates)[0]
        if document.status != Document.Status.DONE:
            document = document_ingest(document_id=document.pk)
        if document.status != Document.Status.DONE:
            raise RuntimeError(f"{entry['file']}: {document.error}")
        loaded.append(entry["title"])
    return loaded
