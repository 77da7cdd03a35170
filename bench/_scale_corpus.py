"""The corpora of bench/research_scale.py: 10k, 100k and 1M passages of the shipped RBI text, each
in its own database of the bench's embedded Postgres, with its shared BM25 index built once.

A passage is a window of 8–24 consecutive words of one paragraph of the shipped RBI documents
(annual report text + MPC minutes PDFs in data/rbi, read by the product's parser), starting at a
random word, as in the 100k retrieval bench; the documents hold ~160k words, so a million
distinct windows overlap heavily — the text repeats with variation. Every 20th paragraph is held
out of the corpus and gives in-domain queries. 1,000 passages per document.

These databases hold BM25's inputs only: the embedding column is made nullable and left empty,
and the HNSW index is dropped (vector search at scale is research_speed's job), so a million
rows load in about a minute instead of needing a million embeddings.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from typing import Any

from bench._research_corpus import HOLD_OUT_EVERY, _paragraphs, hnsw_index

PER_DOC = 1_000
BENCH_EMAIL = "bench-scale@alphadesk.local"


def database_name(n: int) -> str:
    return f"alphadesk_bm25_{n}"


def _windows() -> tuple[list[list[str]], list[str]]:
    """(words of each corpus paragraph, held-out paragraphs)."""
    paragraphs = _paragraphs()
    held_out = [p for i, p in enumerate(paragraphs) if i % HOLD_OUT_EVERY == 0]
    words = [p.split() for i, p in enumerate(paragraphs) if i % HOLD_OUT_EVERY and len(p.split()) >= 8]
    return words, held_out


def scale_texts(n: int) -> list[str]:
    """``n`` distinct passages, the same on every run (a smaller corpus is a prefix of a larger one)."""
    rng = random.Random(19)  # noqa: S311  (reproducible sampling, not security)
    words, _ = _windows()
    starts = [(pi, s) for pi, w in enumerate(words) for s in range(len(w) - 7)]
    texts: list[str] = []
    seen: set[str] = set()
    while len(texts) < n:
        pi, s = starts[rng.randrange(len(starts))]
        text = " ".join(words[pi][s : s + rng.randint(8, 24)])
        if text not in seen:
            seen.add(text)
            texts.append(text)
    return texts


def scale_queries() -> list[str]:
    """200 sentences of the held-out paragraphs (in-domain queries, none of them in the corpus)."""
    from research.ingest.chunking import split_sentences

    _, held_out = _windows()
    queries = [s for p in held_out for s in split_sentences(p) if 40 < len(s) < 400]
    return random.Random(23).sample(queries, min(200, len(queries)))  # noqa: S311


def _owner() -> Any:
    from core.services import user_ensure

    owner, _ = user_ensure(email=BENCH_EMAIL, roles=["analyst"], password=None)
    return owner


def _copy_passages(owner: Any, texts: list[str], tag: str) -> None:
    """The passages as ``len(texts) / PER_DOC`` documents, with COPY; no embeddings."""
    from django.db import connection

    from research.models import Document

    with connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX IF EXISTS {hnsw_index().name}")
        cursor.execute("ALTER TABLE research_chunk ALTER COLUMN embedding DROP NOT NULL")
        cursor.execute(
            "DELETE FROM research_chunk WHERE document_id IN (SELECT id FROM research_document WHERE owner_id = %s)",
            [owner.pk],
        )
    Document.objects.filter(owner=owner).delete()
    docs = [
        Document.objects.create(
            owner=owner, title=f"RBI passages {d}", kind="text", filename=f"p{d}.txt", size_bytes=0,
            content_hash=f"{tag}-{d}", status="done", progress=100, doc_type="bench",
        ).pk
        for d in range(len(texts) // PER_DOC)
    ]  # fmt: skip
    columns = "document_id, ordinal, page_number, page_label, section, text, token_count"
    with connection.cursor() as cursor, cursor.cursor.copy(f"COPY research_chunk ({columns}) FROM STDIN") as copy:
        for row, text in enumerate(texts):
            ordinal = row % PER_DOC
            copy.write_row((docs[row // PER_DOC], ordinal, 1 + ordinal // 3, str(1 + ordinal // 3), "", text, 0))


def load(n: int) -> dict[str, Any]:
    """Make this database hold the ``n``-passage corpus and its published BM25 index (both kept
    for later runs); the build's figures, measured when it ran."""
    from django.conf import settings
    from django.core.management import call_command

    from research.models import Chunk, Document
    from research.retrieval.bm25 import LAST_PUBLISH, corpus_version_bump, process_index

    call_command("migrate", verbosity=0)
    owner = _owner()
    texts = scale_texts(n)
    tag = "scale-" + hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:12]
    record = settings.VAR_DIR / "research_scale" / f"build-{n}.json"
    cached = Document.objects.filter(owner=owner, content_hash=f"{tag}-0").exists() and record.exists()
    if not cached or Chunk.objects.filter(document__owner=owner).count() != n:
        started = time.perf_counter()
        _copy_passages(owner, texts, tag)
        loaded = time.perf_counter()
        corpus_version_bump()  # the full build: every chunk is new to the index
        info = {
            "load_s": loaded - started, "build_s": time.perf_counter() - loaded, "phases": dict(LAST_PUBLISH),
            "built": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        }  # fmt: skip
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps(info))
    began = time.perf_counter()
    process_index.get()  # builds the version's files if they went missing since
    return {**json.loads(record.read_text()), "check_s": time.perf_counter() - began, "cached": cached}
