"""A disk cache of chunk embeddings, keyed by content: the embedder's identity and the exact texts.

Why: embedding is nearly all of ingestion's time (≈ 25 chunks/s on 2 cores), and the same
documents are ingested again and again — the demo corpus by every fresh test database, benchmark
and evaluation run. A document whose chunk texts were embedded before by the same model gets its
vectors back from ``RESEARCH_EMBED_CACHE_DIR`` (one ``.npy`` per distinct list of texts) instead of
minutes of model time. The shipped demo corpus's vectors also sit in the repository
(``RESEARCH_EMBED_SEED_DIR``, read-only, written by ``manage.py research_embed_seed``), looked up
after the cache, so a clean machine skips the model for it too. The key is a SHA-256 over the
model's name and dimension and every text, so a change of chunking or model is a new key, never a
stale hit. Writes go to a temporary name and are renamed, so concurrent processes never read half
a file. Empty setting: no cache. The shipped SEC filings (``data/filings``) have a seed of their own
(``RESEARCH_FILINGS_EMBED_SEED_DIR``), written by the same command.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from django.conf import settings

from research.retrieval.embeddings import Embedder

logger = logging.getLogger(__name__)

Progress = Callable[[int], None]  # number of texts embedded so far


def cache_key(embedder: Embedder, texts: Sequence[str]) -> str:
    digest = hashlib.sha256(f"{embedder.name}|{embedder.dim}|{len(texts)}".encode())
    for text in texts:
        digest.update(b"\x00")
        digest.update(text.encode("utf-8"))
    return digest.hexdigest()


def _cache_dir() -> Path | None:
    configured = getattr(settings, "RESEARCH_EMBED_CACHE_DIR", "")
    return Path(configured) if configured else None


def _seed_dirs() -> list[Path]:
    """The read-only seeds in the repository: the demo corpus's, then the shipped filings'."""
    names = ("RESEARCH_EMBED_SEED_DIR", "RESEARCH_FILINGS_EMBED_SEED_DIR")
    return [Path(configured) for name in names if (configured := getattr(settings, name, ""))]


def cached_vectors(embedder: Embedder, texts: Sequence[str]) -> np.ndarray | None:
    """The cached (else shipped) vectors of exactly these texts, or ``None``."""
    if not texts:
        return None
    name = f"{cache_key(embedder, texts)}.npy"
    for root in (_cache_dir(), *_seed_dirs()):
        if root is None:
            continue
        try:
            vectors = np.load(root / name)
        except (OSError, ValueError):
            continue
        if vectors.shape == (len(texts), embedder.dim):
            return np.asarray(vectors, dtype=np.float32)
    return None


def store_vectors(embedder: Embedder, texts: Sequence[str], vectors: np.ndarray) -> None:
    root = _cache_dir()
    if root is None or not texts:
        return
    try:
        root.mkdir(parents=True, exist_ok=True)
        path = root / f"{cache_key(embedder, texts)}.npy"
        tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.npy")
        np.save(tmp, np.asarray(vectors, dtype=np.float32))
        tmp.replace(path)
    except OSError:
        logger.warning("could not write the embedding cache under %s", root, exc_info=True)


def embed_texts(
    embedder: Embedder, texts: Sequence[str], *, step: int, progress: Progress | None = None
) -> tuple[np.ndarray, bool]:
    """``(vectors, from_cache)``: the cached vectors of ``texts``, else embedded in batches of
    ``step`` (``progress`` is told after each) and stored for next time."""
    hit = cached_vectors(embedder, texts)
    if hit is not None:
        if progress is not None:
            progress(len(texts))
        return hit, True
    parts = []
    for start in range(0, len(texts), step):
        parts.append(embedder.embed(list(texts[start : start + step])))
        if progress is not None:
            progress(min(len(texts), start + step))
    vectors = np.vstack(parts) if parts else np.zeros((0, embedder.dim), dtype=np.float32)
    store_vectors(embedder, texts, vectors)
    return vectors, False
