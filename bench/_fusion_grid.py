"""Fusion settings tried by the retrieval benchmarks, and the fusion itself (the product's RRF and
exact-evidence code) applied to precomputed per-query ranked lists, so a whole grid costs seconds."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Setting:
    k: int
    w_bm25: float
    bm25_depth: int
    w_exact: float
    vector_depth: int = 50

    @property
    def label(self) -> str:
        return f"RRF k={self.k} w_bm25={self.w_bm25} depth={self.bm25_depth} w_exact={self.w_exact}"


@dataclass
class QueryLists:
    """One query's candidates: BM25 (best first, deep), vector (best first, deep) and the exact list."""

    bm25: list[Any]
    vector: list[Any]
    exact: list[Any]


def shipped() -> Setting:
    from django.conf import settings

    w = settings.RESEARCH_RRF_WEIGHTS
    return Setting(settings.RESEARCH_RRF_K, w["bm25"], settings.RESEARCH_BM25_CANDIDATES, w.get("exact", 0.0))


def grid() -> list[Setting]:
    """The old defaults (tuned on FiQA alone), the textbook RRF, and the grid the defaults were chosen from."""
    out = [Setting(5, 0.2, 10, 0.0), Setting(60, 1.0, 50, 0.0)]
    for k in (5, 10, 20, 60):
        for w in (0.2, 0.5, 1.0):
            for depth in (10, 50):
                for w_exact in (0.0, 1.0, 3.0):
                    out.append(Setting(k, w, depth, w_exact))
    return list(dict.fromkeys([shipped(), *out]))


def fuse(lists: QueryLists, s: Setting) -> list[Any]:
    from research.retrieval.fusion import rrf

    rankings = {"bm25": lists.bm25[: s.bm25_depth], "vector": lists.vector[: s.vector_depth]}
    if s.w_exact and lists.exact:
        rankings["exact"] = lists.exact
    weights = {"bm25": s.w_bm25, "vector": 1.0, "exact": s.w_exact}
    return [item for item, _, _ in rrf(rankings, k=s.k, weights=weights)]


def metrics(ranked: list[list[Any]], relevant: list[set[Any]]) -> dict[str, float]:
    """MRR@10, Recall@10, nDCG@10 (binary relevance) and the share with a relevant item in the top 3."""
    mrr = recall = ndcg = top3 = 0.0
    for hits, rel in zip(ranked, relevant, strict=True):
        top = hits[:10]
        first = next((p for p, doc in enumerate(top, start=1) if doc in rel), None)
        mrr += 1 / first if first else 0.0
        top3 += 1.0 if first and first <= 3 else 0.0
        recall += len(rel & set(top)) / len(rel) if rel else 0.0
        dcg = sum(1 / math.log2(p + 1) for p, doc in enumerate(top, start=1) if doc in rel)
        ideal = sum(1 / math.log2(p + 1) for p in range(1, min(len(rel), 10) + 1)) or 1.0
        ndcg += dcg / ideal
    n = max(1, len(ranked))
    return {
        "MRR@10": round(mrr / n, 4),
        "Recall@10": round(recall / n, 4),
        "nDCG@10": round(ndcg / n, 4),
        "top-3": round(top3 / n, 4),
    }
