"""Write the chunk vectors of what the repository ships into the repository: the demo corpus
(``RESEARCH_EMBED_SEED_DIR``) and the SEC filings of ``data/filings/manifest.json``
(``RESEARCH_FILINGS_EMBED_SEED_DIR``).

Run after a change of PDF parsing, chunking or embedding model (``tests/research/test_embed_seed.py``
fails until then): every entry is parsed and chunked as ingestion does, its vectors taken from the
embedding cache or the model, and saved under the same content key the cache uses. Files no entry
needs any more are removed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand

from research.ingest.pipeline import parse_and_chunk
from research.management.commands.load_research_corpus import manifest_entries
from research.models import Document
from research.retrieval.embed_cache import cache_key, embed_texts
from research.retrieval.embeddings import get_embedder


def corpus_texts(root: Path) -> dict[str, list[str]]:
    """Each manifest entry's chunk texts, by file — exactly what ingestion embeds."""
    out = {}
    for entry in manifest_entries(root):
        _pages, drafts = parse_and_chunk(Document.Kind.PAGES, (root / entry["pages"]).read_bytes())
        out[entry["file"]] = [d.text for d in drafts]
    return out


def filings_texts(root: Path) -> dict[str, list[str]]:
    """Each shipped filing's chunk texts (``manifest.json`` under ``root``), by file — exactly what
    ingesting the uploaded PDF embeds."""
    out = {}
    for entry in json.loads((root / "manifest.json").read_text()):
        data = (root / entry["file"]).read_bytes()
        _pages, drafts = parse_and_chunk(Document.Kind.PDF, data, name=entry["file"])
        out[entry["file"]] = [d.text for d in drafts]
    return out


class Command(BaseCommand):
    help = "Write the demo corpus's and the shipped filings' chunk vectors into the repository (read-only seeds)."

    def handle(self, *args: Any, **options: Any) -> None:
        self._write(corpus_texts(Path(settings.RESEARCH_DEMO_CORPUS_DIR)), Path(settings.RESEARCH_EMBED_SEED_DIR))
        filings = Path(settings.RESEARCH_FILINGS_DIR)
        self._write(filings_texts(filings), Path(settings.RESEARCH_FILINGS_EMBED_SEED_DIR))

    def _write(self, entries: dict[str, list[str]], seed: Path) -> None:
        seed.mkdir(parents=True, exist_ok=True)
        embedder = get_embedder()
        wanted = set()
        for name, texts in entries.items():
            key = cache_key(embedder, texts)
            wanted.add(f"{key}.npy")
            vectors, cached = embed_texts(embedder, texts, step=settings.RESEARCH_EMBED_PROGRESS_STEP)
            np.save(seed / f"{key}.npy", np.asarray(vectors, dtype=np.float32))
            self.stdout.write(f"{name}: {len(texts)} passages{' (cached)' if cached else ''}")
        for stale in seed.glob("*.npy"):
            if stale.name not in wanted:
                stale.unlink()
        self.stdout.write(self.style.SUCCESS(f"{len(wanted)} files in {seed}"))
