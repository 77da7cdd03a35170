"""The 100k-passage corpus of bench/research_speed.py: real RBI text, real embeddings cached as
.npy shards, stored as one owner's documents with the project's HNSW parameters."""

from __future__ import annotations

import hashlib
import os
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
N_DOCS = 100
# 100k by default; a smaller corpus (a multiple of 10,000) for a quick look on a slow machine.
N_CHUNKS = int(os.environ.get("BENCH_RESEARCH_CHUNKS", "100000"))
# Seconds spent in each phase of building the corpus, read by the benchmark's rows.
TIMINGS: dict[str, float] = {}

CORPUS_DIR_NAME = "research_speed"
SHARD = 10_000
HOLD_OUT_EVERY = 20  # every 20th paragraph is kept out of the corpus and gives in-corpus-like queries


def _paragraphs() -> list[str]:
    """The paragraphs of the shipped RBI documents (annual report text + MPC minutes PDFs), in
    file order, as the project's own parser reads them."""
    from research.ingest.parsers import parse

    paths = [ROOT / "data/rbi/annual-report-2023-24/rbi-annual-report-2023-24.txt"]
    paths += sorted((ROOT / "data/rbi/mpc-minutes").glob("*.pdf"))
    out = []
    for path in paths:
        kind = "pdf" if path.suffix == ".pdf" else "text"
        out += [para.text for page in parse(kind, path.read_bytes()) for para in page.paragraphs]
    return out


def corpus_texts() -> tuple[list[str], list[str]]:
    """(100k distinct corpus passages, held-out query sentences).

    A passage is a window of 8–24 consecutive words of one paragraph, starting at a random word;
    the 160k words of the RBI documents can only give 100k passages if windows overlap, so
    neighbouring passages share words (as overlapping chunks do, more so). Paragraphs held out
    of the corpus give the query sentences."""
    from research.ingest.chunking import split_sentences

    rng = random.Random(17)  # noqa: S311  (reproducible sampling, not security)
    paragraphs = _paragraphs()
    held_out = [p for i, p in enumerate(paragraphs) if i % HOLD_OUT_EVERY == 0]
    words = [p.split() for i, p in enumerate(paragraphs) if i % HOLD_OUT_EVERY and len(p.split()) >= 8]
    starts = [(pi, s) for pi, w in enumerate(words) for s in range(len(w) - 7)]
    rng.shuffle(starts)
    texts: list[str] = []
    seen: set[str] = set()
    for pi, s in starts:
        text = " ".join(words[pi][s : s + rng.randint(8, 24)])
        if text not in seen:
            seen.add(text)
            texts.append(text)
            if len(texts) == N_CHUNKS:
                break
    queries = [s for p in held_out for s in split_sentences(p) if 40 < len(s) < 400]
    return texts, rng.sample(queries, min(200, len(queries)))


def corpus_vectors(texts: list[str]) -> np.ndarray:
    """Real MiniLM embeddings of ``texts`` (the configured embedder), cached under the bench var
    dir in shards of 10,000 keyed by a hash of their texts, so an interrupted run resumes and reruns are fast."""
    from django.conf import settings

    from research.retrieval.embeddings import get_embedder

    embedder = get_embedder()
    folder = settings.VAR_DIR / CORPUS_DIR_NAME
    folder.mkdir(parents=True, exist_ok=True)
    parts = []
    for start in range(0, len(texts), SHARD):
        # Keyed by the shard's own texts: a smaller corpus reuses the shards of a larger one.
        key = hashlib.sha256("\x00".join(texts[start : start + SHARD]).encode()).hexdigest()[:16]
        path = folder / f"vectors-{key}.npy"
        if not path.exists():
            began = time.perf_counter()
            shard = embedder.embed(texts[start : start + SHARD])
            np.save(f"{path}.tmp.npy", shard)
            os.replace(f"{path}.tmp.npy", path)
            TIMINGS["embed_corpus_s"] = TIMINGS.get("embed_corpus_s", 0.0) + time.perf_counter() - began
            TIMINGS["embedded_n"] = TIMINGS.get("embedded_n", 0) + len(shard)
            print(f"embedded {start + len(shard)} / {len(texts)} passages", flush=True)
        parts.append(np.load(path))
    return np.vstack(parts)


def hnsw_index() -> Any:
    """The HNSW index of research.Chunk as the model (and its migration) define it."""
    from pgvector.django import HnswIndex

    from research.models import Chunk

    (index,) = [i for i in Chunk._meta.indexes if isinstance(i, HnswIndex)]
    return index


def hnsw_params() -> dict[str, int]:
    """m and ef_construction of the HNSW index."""
    index = hnsw_index()
    assert index.m is not None and index.ef_construction is not None  # the model sets both
    return {"m": index.m, "ef_construction": index.ef_construction}


def build_corpus(owner: Any, texts: list[str], vectors: np.ndarray, tag: str) -> None:
    """Insert the corpus as N_DOCS documents with COPY, then build the HNSW index as the
    migration defines it (building after the load is how a bulk import should do it)."""
    from django.db import connection

    from research.models import Chunk, Document
    from research.retrieval.bm25 import corpus_version_bump

    with connection.cursor() as cursor:
        # Index off and a set-based delete: an ORM cascade would load 100k chunk rows first.
        cursor.execute(f"DROP INDEX IF EXISTS {hnsw_index().name}")
        cursor.execute(
            "DELETE FROM research_chunk WHERE document_id IN (SELECT id FROM research_document WHERE owner_id = %s)",
            [owner.pk],
        )
    Document.objects.filter(owner=owner).delete()
    per_doc = len(texts) // N_DOCS
    row = 0
    for d in range(N_DOCS):
        doc = Document.objects.create(
            owner=owner, title=f"RBI passages {d}", kind="text", filename=f"p{d}.txt", size_bytes=0,
            content_hash=f"{tag}-{d}", status="done", progress=100, doc_type="bench",
        )  # fmt: skip
        with (
            connection.cursor() as cursor,
            cursor.cursor.copy(
                "COPY research_chunk (document_id, ordinal, page_number, page_label, section, text,"
                " token_count, embedding) FROM STDIN"
            ) as copy,
        ):
            for i in range(per_doc):
                vec = "[" + ",".join(f"{x:.7g}" for x in vectors[row]) + "]"
                copy.write_row((doc.pk, i, 1 + i // 3, str(1 + i // 3), "", texts[row], 0, vec))
                row += 1
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '512MB'")
    with connection.schema_editor() as editor:
        editor.add_index(Chunk, hnsw_index())
    with connection.cursor() as cursor:
        # Statistics for the planner: right after the load it takes the table for an empty one,
        # and until autovacuum analyses it, nearest-neighbour queries ran at 100 ms, not 2.
        cursor.execute("ANALYZE research_chunk")
    TIMINGS["hnsw_build_s"] = time.perf_counter() - started
    corpus_version_bump()
    assert Chunk.objects.filter(document__owner=owner).count() == len(texts)
