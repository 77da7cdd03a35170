"""Parse → chunk → embed for one file, reporting progress. Storage is the service's job."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from django.conf import settings

from research.ingest.chunking import ChunkDraft, chunk_pages
from research.ingest.parsers import Page, ParseError, parse
from research.retrieval.embed_cache import embed_texts
from research.retrieval.embeddings import get_embedder

Progress = Callable[[float, str], None]


def build_chunks(
    kind: str, data: bytes, *, progress: Progress | None = None
) -> tuple[list[Page], list[ChunkDraft], np.ndarray]:
    report = progress or (lambda fraction, message: None)
    embedder = get_embedder()
    pages = parse(kind, data)
    report(0.1, f"Parsed {len(pages)} pages")
    max_tokens = min(settings.RESEARCH_CHUNK_TOKENS, embedder.max_tokens - 2)  # [CLS] and [SEP]
    drafts = chunk_pages(
        pages,
        count_tokens=embedder.count_tokens,
        max_tokens=max_tokens,
        overlap=settings.RESEARCH_CHUNK_OVERLAP,
    )
    if not drafts:
        raise ParseError("no text could be extracted (a scanned PDF needs OCR first).")
    report(0.15, f"Embedding {len(drafts)} passages")
    # Large batches keep the model busy; progress is reported between them. Texts embedded
    # before by the same model come from the embedding cache (research/retrieval/embed_cache.py).
    total = len(drafts)

    def embedded(done: int) -> None:
        report(0.15 + 0.85 * done / total, f"Embedded {done} of {total} passages")

    vectors, _ = embed_texts(
        embedder, [d.text for d in drafts], step=settings.RESEARCH_EMBED_PROGRESS_STEP, progress=embedded
    )
    return pages, drafts, vectors
