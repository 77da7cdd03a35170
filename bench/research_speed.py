"""Research retrieval speed at 100k chunks, HNSW recall, and ingestion throughput, on this machine.

Corpus (latency and recall): 100,000 real passages of real text with their real embeddings. Each
passage is 8–24 consecutive words of one paragraph of the shipped RBI documents (the 2023-24
annual report text and the six MPC minutes PDFs in data/rbi, read by the project's parser),
starting at a random word; the documents hold ~160k words, so neighbouring passages overlap.
Every 20th paragraph is held out of the corpus. Vectors: all-MiniLM-L6-v2 via the configured
embedder, computed once and cached as .npy under the bench var dir (keyed by the texts).
``BENCH_RESEARCH_CHUNKS`` (a multiple of 10,000) takes the first N passages for a quick run.
Queries: 200 FiQA questions when ../shared/data is present, else held-out RBI sentences; the
uncached query embedding is part of the end-to-end hybrid latency. HNSW recall@10 is measured
against exact cosine search (numpy) over the same vectors, for sentences of the held-out RBI
paragraphs (like the corpus) and FiQA questions (unlike it), at several ef_search values.

Ingestion (bench/_ingest_speed.py): the shipped MPC minutes PDFs + 40 annual-report pages through
document_ingest, against the embedding model alone on exactly the passages stored, interleaved
document by document so that load on the machine falls on both alike (and torch alone on the same
passages, for comparison)."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench._common import median_p95
from bench._ingest_speed import ingestion_rows
from bench._research_corpus import TIMINGS, build_corpus, corpus_texts, corpus_vectors, hnsw_params

ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the checkout (a worktree under /work/wt finds it one level further up).
SHARED = next(
    (p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()), ROOT.parent / "shared"
)
FIQA = SHARED / "data" / "fiqa" / "test.jsonl"
BENCH_EMAIL = "bench-research@alphadesk.local"


def _pct(samples: list[float]) -> dict[str, float]:
    median, p95 = median_p95(samples)
    return {"p50_ms": median, "p95_ms": p95}


def _fiqa_questions() -> list[str]:
    if not FIQA.exists():
        return []
    return [json.loads(line)["question"] for line in FIQA.read_text().splitlines()[:200]]


def _timed(fn: Any, items: list[Any]) -> dict[str, Any]:
    samples = []
    for item in items:
        t = time.perf_counter()
        fn(item)
        samples.append((time.perf_counter() - t) * 1000)
    return {"n": len(samples), **_pct(samples)}


@dataclass(frozen=True)
class _Queries:
    """The queries every latency row runs, and their vectors from the configured embedder."""

    texts: list[str]
    vectors: np.ndarray
    source: str  # what the queries are, for the row labels
    from_fiqa: bool  # FiQA questions (unlike the corpus) rather than held-out RBI sentences


def _embed_corpus_rows() -> list[dict[str, Any]]:
    """The embedding throughput row, when this run had to embed passages the cache lacked."""
    if "embed_corpus_s" not in TIMINGS:
        return []
    done = int(TIMINGS["embedded_n"])
    return [{"what": "embed corpus passages not cached yet (cached as .npy for reruns)", "n": done,
             "value": f"{done / TIMINGS['embed_corpus_s']:.0f} passages/s"}]  # fmt: skip


def _corpus_tag(vectors: np.ndarray) -> str:
    """Names a stored corpus by its vectors and HNSW parameters, so a matching one is reused."""
    return (
        "bench4-"
        + hashlib.sha256(vectors.tobytes()).hexdigest()[:12]
        + "-"
        + "-".join(map(str, hnsw_params().values()))
    )


def _corpus_build_rows(owner: Any, texts: list[str], vectors: np.ndarray) -> list[dict[str, Any]]:
    """Build the corpus unless this very one is stored already; the build's rows if it ran."""
    from research.models import Document

    n = len(texts)
    tag = _corpus_tag(vectors)
    if Document.objects.filter(owner=owner, content_hash=f"{tag}-0").exists():
        return []
    started = time.perf_counter()
    build_corpus(owner, texts, vectors, tag)
    params = hnsw_params()
    what = f"build {n:,}-chunk corpus (COPY + HNSW index m={params['m']}, ef_construction={params['ef_construction']})"
    return [
        {"what": what, "n": 1, "p50_ms": round((time.perf_counter() - started) * 1000)},
        {"what": "  of which HNSW index build", "n": 1, "p50_ms": round(TIMINGS["hnsw_build_s"] * 1000)},
    ]


def _bm25_cold_row(n: int) -> dict[str, Any]:
    from research.retrieval.bm25 import process_index

    process_index.reset()
    started = time.perf_counter()
    process_index.get()
    what = f"BM25: map the shared index in a process that has not yet ({n:,} chunks; built once, at ingestion)"
    return {"what": what, "n": 1, "p50_ms": round((time.perf_counter() - started) * 1000, 1)}


def _queries(held_out: list[str], embedder: Any) -> _Queries:
    """FiQA questions when the shared data is present, else the held-out RBI sentences."""
    fiqa = _fiqa_questions()
    texts = fiqa or held_out
    source = "FiQA questions" if fiqa else "held-out RBI sentences"
    return _Queries(texts=texts, vectors=embedder.embed(texts), source=source, from_fiqa=bool(fiqa))


def _search_step_rows(queries: _Queries, allowed: Any) -> list[dict[str, Any]]:
    """BM25 and HNSW alone, each on its precomputed input."""
    from django.conf import settings

    from research.retrieval.bm25 import process_index
    from research.retrieval.search import vector_top

    ef = settings.RESEARCH_HNSW_EF_SEARCH
    return [
        {"what": f"BM25 top-10 (incl. corpus-version check, filter mask); {queries.source}",
         **_timed(lambda q: process_index.get().top(q, 10, allowed), queries.texts)},
        {"what": f"vector top-50 via HNSW (ef_search={ef}, iterative scan, doc filter)",
         **_timed(lambda qv: vector_top(qv, 50, allowed), list(queries.vectors))},
    ]  # fmt: skip


def _query_embedding_rows(embedder: Any, queries: _Queries) -> list[dict[str, Any]]:
    """One uncached query embedding, by the configured embedder and by torch."""
    from research.retrieval.embeddings import MiniLMEmbedder

    rows = []
    torch_embedder = MiniLMEmbedder()
    for label, emb in (
        (type(embedder).__name__ + " (configured)", embedder),
        ("MiniLMEmbedder (torch)", torch_embedder),
    ):
        emb.embed(["warm up"])
        rows.append({"what": f"query embedding alone, 1 query, uncached: {label}",
                     **_timed(lambda q, e=emb: e.embed([q]), queries.texts)})  # fmt: skip
    return rows


def _hybrid_rows(owner: Any, queries: _Queries) -> list[dict[str, Any]]:
    """hybrid_search end to end (query embedding uncached, then cached), and the retrieval without it."""
    from django.conf import settings

    from research.retrieval.bm25 import process_index
    from research.retrieval.fusion import rrf
    from research.retrieval.search import allowed_document_ids, hybrid_search, query_vector, vector_top

    rows = []
    query_vector.cache_clear()  # every query below is embedded: the uncached latency
    rows.append({"what": "HYBRID top-10 end to end, uncached (filters, embed query, BM25, HNSW, RRF)",
                 **_timed(lambda q: hybrid_search(user=owner, query=q, top_k=10), queries.texts)})  # fmt: skip
    rows.append({"what": "HYBRID top-10 end to end, same queries again (query-embedding cache hit)",
                 **_timed(lambda q: hybrid_search(user=owner, query=q, top_k=10), queries.texts)})  # fmt: skip

    def retrieval_only(pair: tuple[str, np.ndarray]) -> None:
        q, qv = pair
        allowed_q = allowed_document_ids(user=owner, filters=None)
        bm = process_index.get().top(q, settings.RESEARCH_BM25_CANDIDATES, allowed_q)
        vec = vector_top(qv, settings.RESEARCH_VECTOR_CANDIDATES, allowed_q)
        rrf({"bm25": [c for c, _ in bm], "vector": [c for c, _ in vec]},
            k=settings.RESEARCH_RRF_K, weights=settings.RESEARCH_RRF_WEIGHTS)  # fmt: skip

    rows.append({"what": "HYBRID retrieval without the query embedding",
                 **_timed(retrieval_only, list(zip(queries.texts, queries.vectors, strict=True)))})  # fmt: skip
    return rows


def _recall_rows(
    vectors: np.ndarray, ids: np.ndarray, held_out: list[str], queries: _Queries, embedder: Any, allowed: Any
) -> list[dict[str, Any]]:
    """HNSW recall@10 against exact cosine search (numpy) over the very same vectors, for queries
    like the corpus (sentences of held-out RBI paragraphs) and unlike it (FiQA questions)."""
    from django.conf import settings
    from django.test import override_settings

    from research.retrieval.search import vector_top

    ef = settings.RESEARCH_HNSW_EF_SEARCH
    rows: list[dict[str, Any]] = []
    sets = [("held-out RBI sentences", embedder.embed(held_out[:100]))]
    if queries.from_fiqa:
        sets.append(("FiQA questions", queries.vectors[:100]))
    for label, qvs in sets:
        exact = [{int(i) for i in ids[np.argsort(-(vectors @ qv))[:10]]} for qv in qvs]
        for ef_search in sorted({40, 100, 200, ef}):
            with override_settings(RESEARCH_HNSW_EF_SEARCH=ef_search):
                recalls = [
                    len({c for c, _ in vector_top(qv, 10, allowed)} & e) / 10 for qv, e in zip(qvs, exact, strict=True)
                ]
            default = " (default)" if ef_search == ef else ""
            what = f"HNSW recall@10 vs exact, {label}, ef_search={ef_search}{default}"
            rows.append({"what": what, "n": len(recalls), "value": round(float(np.mean(recalls)), 4)})
    return rows


def _latency_rows(owner: Any) -> list[dict[str, Any]]:
    from research.models import Chunk
    from research.retrieval.embeddings import get_embedder
    from research.retrieval.search import allowed_document_ids

    texts, held_out = corpus_texts()
    vectors = corpus_vectors(texts)
    rows = _embed_corpus_rows() + _corpus_build_rows(owner, texts, vectors)
    ids = np.asarray(Chunk.objects.filter(document__owner=owner).order_by("id").values_list("id", flat=True))
    assert len(ids) == len(texts)
    rows.append(_bm25_cold_row(len(texts)))
    embedder = get_embedder()  # one instance for every row below (get_embedder makes a new one per call)
    queries = _queries(held_out, embedder)
    allowed = allowed_document_ids(user=owner, filters=None)
    rows += _search_step_rows(queries, allowed)
    rows += _query_embedding_rows(embedder, queries)
    rows += _hybrid_rows(owner, queries)
    rows += _recall_rows(vectors, ids, held_out, queries, embedder, allowed)
    return rows


def run() -> list[dict[str, Any]]:
    from django.core.management import call_command

    from core.services import user_ensure

    call_command("migrate", verbosity=0)
    owner, _ = user_ensure(email=BENCH_EMAIL, roles=["analyst"], password=None)
    return _latency_rows(owner) + ingestion_rows(owner)
