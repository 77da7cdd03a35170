"""Research retrieval quality on FiQA-2018 (../shared/data/fiqa/test.jsonl): corpus = the answer
passages, queries = the questions, relevant = the question's own answer passage. MRR@10, Recall@10
and nDCG@10 for BM25 alone, vector alone (all-MiniLM-L6-v2, exact cosine) and hybrid (RRF), plus
the fusion settings tried. The same BM25, embedder and RRF code as the product, run in memory.
Skipped when ../shared/data is absent."""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

# The team's shared data set: ../shared/data beside the checkout, or ALPHADESK_SHARED_DATA.
SHARED = Path(os.environ.get("ALPHADESK_SHARED_DATA") or Path(__file__).resolve().parents[1].parent / "shared" / "data")
FIQA = SHARED / "fiqa" / "test.jsonl"
DEPTH = 100  # candidates kept per retriever before fusion
# (RRF k, BM25 weight, BM25 depth, vector depth); the vector weight is always 1.0.
Fusion = tuple[int, float, int, int]


def _metrics(ranked: list[list[int]], relevant: list[set[int]]) -> dict[str, float]:
    mrr = recall = ndcg = 0.0
    for hits, rel in zip(ranked, relevant, strict=True):
        top = hits[:10]
        for position, doc in enumerate(top, start=1):
            if doc in rel:
                mrr += 1 / position
                break
        recall += len(rel & set(top)) / len(rel)
        dcg = sum(1 / math.log2(p + 1) for p, doc in enumerate(top, start=1) if doc in rel)
        ideal = sum(1 / math.log2(p + 1) for p in range(1, min(len(rel), 10) + 1))
        ndcg += dcg / ideal
    n = len(ranked)
    return {"MRR@10": round(mrr / n, 4), "Recall@10": round(recall / n, 4), "nDCG@10": round(ndcg / n, 4)}


def _fiqa() -> tuple[list[str], list[set[int]], list[str]]:
    """(distinct answer passages, each question's relevant passage indexes, questions)."""
    rows = [json.loads(line) for line in FIQA.read_text().splitlines() if line.strip()]
    passages: list[str] = []
    index_of: dict[str, int] = {}
    relevant: list[set[int]] = []
    for row in rows:
        answer = row["answer"].strip()
        if answer not in index_of:
            index_of[answer] = len(passages)
            passages.append(answer)
        relevant.append({index_of[answer]})
    return passages, relevant, [row["question"] for row in rows]


def _embeddings(passages: list[str], questions: list[str]) -> tuple[np.ndarray, np.ndarray, str]:
    """(passage vectors, question vectors, a note on where they came from), cached under var/."""
    from django.conf import settings

    from research.retrieval.embeddings import get_embedder

    embedder = get_embedder()
    started = time.perf_counter()
    # Embeddings are cached under var/ (keyed by the texts) so re-running the fusion grid is quick.
    key = hashlib.sha256("\x00".join([embedder.name, *passages, *questions]).encode()).hexdigest()[:16]
    cache = Path(settings.VAR_DIR) / f"bench-fiqa-{key}.npz"
    if cache.exists():
        saved = np.load(cache)
        return saved["passages"], saved["questions"], "embeddings from cache"
    embedder.embed(["warm up"])
    passage_vectors = embedder.embed(passages)
    question_vectors = embedder.embed(questions)
    np.savez(cache, passages=passage_vectors, questions=question_vectors)
    note = f"embedding {len(passages) + len(questions)} texts took {time.perf_counter() - started:.1f} s"
    return passage_vectors, question_vectors, note


def _bm25_lists(passages: list[str], questions: list[str]) -> list[list[int]]:
    from research.retrieval.bm25 import build_index

    bm25 = build_index([(i, 0, text) for i, text in enumerate(passages)])
    return [[cid for cid, _ in bm25.top(q, DEPTH)] for q in questions]


def _vector_lists(passage_vectors: np.ndarray, question_vectors: np.ndarray) -> list[list[int]]:
    """Exact cosine top-DEPTH per question (the vectors are normalised, so a dot product)."""
    sims = question_vectors @ passage_vectors.T
    vector_lists = [list(np.argsort(-row, kind="stable")[:DEPTH]) for row in sims]
    return [[int(i) for i in lst] for lst in vector_lists]


def _fusion_grid() -> tuple[Fusion, list[Fusion]]:
    """(the shipped fusion settings, every setting to try)."""
    from django.conf import settings

    shipped = (
        settings.RESEARCH_RRF_K,
        settings.RESEARCH_RRF_WEIGHTS["bm25"],
        settings.RESEARCH_BM25_CANDIDATES,
        settings.RESEARCH_VECTOR_CANDIDATES,
    )
    # The shipped settings first, then the textbook RRF and the grid that led to the settings.
    grid = [shipped, (60, 1.0, 50, 50), (60, 1.0, 20, 20), (20, 1.0, 50, 50), (60, 0.5, 50, 50)]
    grid += [(60, w, bd, 50) for w in (0.3, 0.2, 0.1) for bd in (50, 10)]
    grid += [(k, w, bd, 50) for k in (2, 5, 10, 30) for w in (0.2, 0.3, 0.5) for bd in (5, 10)]
    return shipped, grid


def _fusion_rows(
    bm25_lists: list[list[int]], vector_lists: list[list[int]], relevant: list[set[int]]
) -> list[dict[str, Any]]:
    from research.retrieval.fusion import rrf

    shipped, grid = _fusion_grid()
    out: list[dict[str, Any]] = []
    for k, w_bm25, bm25_depth, cand in grid:
        weights = {"bm25": w_bm25, "vector": 1.0}
        fused = [
            [item for item, _, _ in rrf({"bm25": b[:bm25_depth], "vector": v[:cand]}, k=k, weights=weights)]
            for b, v in zip(bm25_lists, vector_lists, strict=True)
        ]
        label = f"hybrid RRF k={k} w_bm25={w_bm25} w_vec=1.0 depth bm25={bm25_depth} vector={cand}"
        # Label the shipped settings once, even if a grid point repeats them.
        if (k, w_bm25, bm25_depth, cand) == shipped and not any("shipped" in r["retriever"] for r in out):
            label += " (shipped settings)"
        out.append({"retriever": label, **_metrics(fused, relevant)})
    return out


def run() -> list[dict[str, Any]]:
    if not FIQA.exists():
        return [{"what": f"SKIPPED: {FIQA} not found (the shared data set is not on this machine)"}]
    passages, relevant, questions = _fiqa()
    passage_vectors, question_vectors, embed_note = _embeddings(passages, questions)
    bm25_lists = _bm25_lists(passages, questions)
    vector_lists = _vector_lists(passage_vectors, question_vectors)
    out: list[dict[str, Any]] = [
        {"retriever": "BM25 (BM25Okapi-exact)", **_metrics(bm25_lists, relevant)},
        {"retriever": "vector (MiniLM, exact cosine)", **_metrics(vector_lists, relevant)},
    ]
    out += _fusion_rows(bm25_lists, vector_lists, relevant)
    for row in out:
        row["queries"] = len(questions)
        row["passages"] = len(passages)
    out.append({"retriever": f"({embed_note})"})
    return out
