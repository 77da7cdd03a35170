"""Hybrid retrieval: BM25 top-k and vector top-k over the chunks a user may see, with metadata
filters applied *before* ranking, fused with Reciprocal Rank Fusion."""

from __future__ import annotations

import datetime as dt
import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any, Literal

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from pydantic import BaseModel, ConfigDict, Field

from research.models import EMBEDDING_DIM
from research.retrieval.bm25 import process_index
from research.retrieval.embeddings import get_embedder
from research.retrieval.exact import exact_ranking
from research.retrieval.fusion import rrf

Mode = Literal["hybrid", "bm25", "vector"]


class SearchFilters(BaseModel):
    """Metadata filters; every given filter must match (lists match any of their values)."""

    model_config = ConfigDict(extra="forbid")

    doc_types: list[str] = Field(default_factory=list, description="e.g. ['annual_report'], as stored on the documents")
    issuers: list[str] = Field(default_factory=list, description="e.g. ['Apple Inc.'], as the documents name it")
    tags: list[str] = Field(default_factory=list, description="documents carrying any of these tags")
    document_ids: list[int] = Field(default_factory=list)
    date_from: dt.date | None = None
    date_to: dt.date | None = None

    def apply(self, qs: Any) -> Any:
        """Narrow a Document queryset to these filters (the one place they are interpreted)."""
        if self.doc_types:
            qs = qs.filter(doc_type__in=self.doc_types)
        if self.issuers:
            qs = qs.filter(issuer__in=self.issuers)
        if self.tags:
            qs = qs.filter(tags__overlap=self.tags)
        if self.document_ids:
            qs = qs.filter(id__in=self.document_ids)
        if self.date_from:
            qs = qs.filter(doc_date__gte=self.date_from)
        if self.date_to:
            qs = qs.filter(doc_date__lte=self.date_to)
        return qs


@dataclass
class RankedChunk:
    chunk_id: int
    score: float
    ranks: dict[str, int] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)


def allowed_document_ids(*, user: Any, filters: SearchFilters | None) -> list[int]:
    """Ready documents the user may see that match the filters."""
    from research.models import Document

    qs = Document.objects.visible_to(user).filter(status=Document.Status.DONE)
    if filters is not None:
        qs = filters.apply(qs)
    return list(qs.values_list("id", flat=True))


def hidden_document_ids(*, user: Any) -> list[int]:
    """Documents the user may not see, whatever their state: BM25's statistics leave them out."""
    from research.models import Document

    return list(Document.objects.hidden_from(user).values_list("id", flat=True))


def _vector_literal(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in vector.tolist()) + "]"


@lru_cache(maxsize=settings.RESEARCH_QUERY_EMBED_CACHE)
def query_vector(query: str) -> np.ndarray:
    """The query's embedding, remembered per process: analysts and the agent repeat queries, and
    embedding is most of a search's time. Read-only, because every caller shares the array."""
    vector = get_embedder().embed([query])[0]
    vector.setflags(write=False)
    return vector


# The expression research.Chunk's HNSW index is built on: a query ordered by anything else scans
# the whole table.
HALFVEC_DISTANCE = f"embedding::halfvec({EMBEDDING_DIM}) <=> %s::halfvec({EMBEDDING_DIM})"


def vector_top(query_vector: np.ndarray, k: int, allowed_doc_ids: list[int] | None) -> list[tuple[int, float]]:
    """``(chunk id, cosine similarity)`` of the nearest ``k`` chunks via the HNSW index.

    pgvector 0.8's iterative scan keeps walking the graph when the document filter removes
    candidates, so a filtered query still returns ``k`` rows; relaxed order is re-sorted here.
    The graph is walked at half precision (the index is on ``embedding::halfvec``, research.Chunk);
    the similarity returned, and the order, are the full-precision vectors'.
    """
    literal = _vector_literal(query_vector)
    ef_search = max(settings.RESEARCH_HNSW_EF_SEARCH, k)
    where = "" if allowed_doc_ids is None else "WHERE document_id = ANY(%s)"
    params: list[Any] = [literal] + ([allowed_doc_ids] if allowed_doc_ids is not None else []) + [literal, k]
    with transaction.atomic(), connection.cursor() as cursor:
        # Both settings last until the end of this transaction (SET LOCAL), in one round trip.
        cursor.execute(
            "SELECT set_config('hnsw.ef_search', %s, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)",
            [str(int(ef_search))],
        )
        # ``where`` is one of two constant strings; every value is a query parameter.
        cursor.execute(
            f"SELECT id, embedding <=> %s::vector AS distance FROM research_chunk {where} "  # noqa: S608  # nosec B608
            f"ORDER BY {HALFVEC_DISTANCE} LIMIT %s",
            params,
        )
        rows = cursor.fetchall()
    rows.sort(key=lambda row: (row[1], row[0]))
    return [(int(chunk_id), 1.0 - float(distance)) for chunk_id, distance in rows]


@cache
def _query_embedding_threads() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=settings.RESEARCH_QUERY_EMBED_THREADS, thread_name_prefix="query-embed")


# A forked child (a Celery worker) inherits the pool but not its threads: it starts its own.
os.register_at_fork(after_in_child=_query_embedding_threads.cache_clear)


def _embed_in_background(query: str) -> Future[np.ndarray]:
    """The query's embedding, computed on another thread while this one ranks BM25 and reads
    texts: ONNX releases the GIL, so a search waits for the slower of the two, not for both."""
    return _query_embedding_threads().submit(query_vector, query)


def _texts(ids: list[int]) -> dict[int, str]:
    """Chunk texts by id, in one fixed statement (a search reads each candidate's text once)."""
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, text FROM research_chunk WHERE id = ANY(%s)", [ids])
        return dict(cursor.fetchall())


def _exact_list(
    query: str, bm25_hits: list[tuple[int, float]], index: Any, texts: dict[int, str]
) -> list[tuple[int, float]]:
    """The BM25 candidates holding exact evidence for the query (research/retrieval/exact.py)."""
    candidates = [(cid, texts[cid]) for cid, _ in bm25_hits if cid in texts]
    ranked = exact_ranking(query, candidates, index.document_frequency, len(index))
    return [(cid, 1.0) for cid in ranked]


def _distinct(
    ranked: list[tuple[int, float, dict[str, int]]], top_k: int, texts: dict[int, str]
) -> list[tuple[int, float, dict[str, int]]]:
    """The first ``top_k`` of ``ranked`` whose text is not already in the list: the same passage
    from two copies of a document (uploaded before copies were linked) is returned once.
    ``texts`` holds the texts read so far; the rest are read here, in one statement."""
    texts = texts | _texts([cid for cid, _, _ in ranked if cid not in texts])
    seen: set[str] = set()
    kept = []
    for item in ranked:
        key = " ".join(texts.get(item[0], str(item[0])).split()).lower()
        if key in seen:
            continue
        seen.add(key)
        kept.append(item)
        if len(kept) == top_k:
            break
    return kept


def hybrid_search(
    *, user: Any, query: str, top_k: int, filters: SearchFilters | None = None, mode: Mode = "hybrid"
) -> list[RankedChunk]:
    """Best ``top_k`` distinct chunks for ``query`` among what ``user`` may see, best first: BM25
    and vector lists fused by RRF, plus, in hybrid mode, the passages holding the query's exact
    phrase or rare terms (``research/retrieval/exact.py``)."""
    if not query.strip():
        return []
    pending_vector = _embed_in_background(query) if mode != "bm25" else None
    allowed = allowed_document_ids(user=user, filters=filters)
    if not allowed:
        return []
    # A single retriever returns top_k; in hybrid mode each contributes its configured depth.
    bm25_depth = settings.RESEARCH_BM25_CANDIDATES if mode == "hybrid" else top_k
    vector_depth = max(settings.RESEARCH_VECTOR_CANDIDATES, top_k) if mode == "hybrid" else top_k
    lists: dict[str, list[tuple[int, float]]] = {}
    texts: dict[int, str] = {}
    if mode in ("hybrid", "bm25"):
        index = process_index.get().seen_without(hidden_document_ids(user=user))
        depth = max(bm25_depth, settings.RESEARCH_EXACT_CANDIDATES if mode == "hybrid" else 0)
        bm25_hits = index.top(query, depth, allowed)
        lists["bm25"] = bm25_hits[:bm25_depth]
        if mode == "hybrid":
            # Read while the query is still being embedded.
            texts = _texts([cid for cid, _ in bm25_hits])
            exact = _exact_list(query, bm25_hits, index, texts)
            if exact:
                lists["exact"] = exact
    if pending_vector is not None:
        lists["vector"] = vector_top(pending_vector.result(), vector_depth, allowed)
    raw = {name: dict(hits) for name, hits in lists.items()}
    fused = rrf(
        {name: [cid for cid, _ in hits] for name, hits in lists.items()},
        k=settings.RESEARCH_RRF_K,
        weights=settings.RESEARCH_RRF_WEIGHTS,
    )
    return [
        RankedChunk(chunk_id=cid, score=score, ranks=ranks, scores={name: raw[name][cid] for name in ranks})
        for cid, score, ranks in _distinct(fused[: 2 * top_k + 5], top_k, texts)
    ]
