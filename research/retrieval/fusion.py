"""Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, 2009)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def rrf(
    rankings: Mapping[str, Sequence[K]], *, k: int = 60, weights: Mapping[str, float] | None = None
) -> list[tuple[K, float, dict[str, int]]]:
    """Fuse ranked lists: ``score(d) = Σ_r w_r / (k + rank_r(d))`` with 1-based ranks.

    Returns ``(item, score, {retriever: rank})`` best first; ties keep first-seen order (the
    order of ``rankings``, then rank), so the output is deterministic.
    """
    scores: dict[K, float] = {}
    ranks: dict[K, dict[str, int]] = {}
    for name, ranked in rankings.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        for position, item in enumerate(ranked, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + position)
            ranks.setdefault(item, {})[name] = position
    order = sorted(scores, key=lambda item: -scores[item])  # sorted() is stable
    return [(item, scores[item], ranks[item]) for item in order]
