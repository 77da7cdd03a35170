"""Research retrieval quality on FiQA-2018 (../shared/data/fiqa/test.jsonl): corpus = the answer
passages, queries = the questions, relevant = the question's own answer passage. MRR@10, Recall@10
and nDCG@10 for BM25 alone, vector alone (all-MiniLM-L6-v2, exact cosine) and hybrid (RRF), plus
the fusion settings tried. The same BM25, embedder and RRF code as the product, run in memory.
Skipped when ../shared/data is absent."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

FIQA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "fiqa" / "test.jsonl"


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


def run() -> list[dict[str, Any]]:
    if not FIQA.exists():
        return [{"what": f"SKIPPED: {FIQA} not found (the shared data set is not on this machine)"}]
    from research.retrieval.bm25 import build_index
    from research.retrieval.embeddings import get_embedder
    from research.retrieval.fusion import rrf

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
    questions = [row["question"] for row in rows]

    embedder = get_embedder()
    started = time.perf_counter()
    # Embeddings are cached under var/ (keyed by the texts) so re-running the fusion grid is quick.
    import hashlib

    from django.conf import settings

    key = hashlib.sha256("\x00".join([embedder.name, *passages, *questions]).encode()).hexdigest()[:16]
    cache = Path(settings.VAR_DIR) / f"bench-fiqa-{key}.npz"
    if cache.exists():
        saved = np.load(cache)
        passage_vectors, question_vectors = saved["passages"], saved["questions"]
        embed_note = "embeddings from cache"
    else:
        embedder.embed(["warm up"])
        passage_vectors = embedder.embed(passages)
        question_vectors = embedder.embed(questions)
        np.savez(cache, passages=passage_vectors, questions=question_vectors)
        embed_note = f"embedding {len(passages) + len(questions)} texts took {time.perf_counter() - started:.1f} s"
    bm25 = build_index([(i, 0, text) for i, text in enumerate(passages)])

    depth = 100
    bm25_lists = [[cid for cid, _ in bm25.top(q, depth)] for q in questions]
    sims = question_vectors @ passage_vectors.T
    vector_lists = [list(np.argsort(-row, kind="stable")[:depth]) for row in sims]
    vector_lists = [[int(i) for i in lst] for lst in vector_lists]

    out: list[dict[str, Any]] = [
        {"retriever": "BM25 (BM25Okapi-exact)", **_metrics(bm25_lists, relevant)},
        {"retriever": "vector (MiniLM, exact cosine)", **_metrics(vector_lists, relevant)},
    ]
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
    for k, w_bm25, bm25_depth, cand in grid:
        weights = {"bm25": w_bm25, "vector": 1.0}
        fused = [
            [item for item, _, _ in rrf({"bm25": b[:bm25_depth], "vector": v[:cand]}, k=k, weights=weights)]
            for b, v in zip(bm25_lists, vector_lists, strict=True)
        ]
        label = f"hybrid RRF k={k} w_bm25={w_bm25} w_vec=1.0 depth bm25={bm25_depth} vector={cand}"
        if (k, w_bm25, bm25_depth, cand) == shipped and not any("shipped" in r["retriever"] for r in out):
            label += " (shipped settings)"
        out.append({"retriever": label, **_metrics(fused, relevant)})
    for row in out:
        row["queries"] = len(questions)
        row["passages"] = len(passages)
    out.append({"retriever": f"({embed_note})"})
    return out
