"""RRF checked against a fusion computed by hand."""

from __future__ import annotations

import pytest

from research.retrieval.fusion import rrf


def test_rrf_matches_hand_computed_fusion() -> None:
    bm25 = ["a", "b", "c", "d"]
    vector = ["c", "a", "e"]
    fused = rrf({"bm25": bm25, "vector": vector}, k=60)
    # By hand, with k = 60:
    #   a: 1/61 + 1/62 = 0.0163934 + 0.0161290 = 0.0325224
    #   c: 1/63 + 1/61 = 0.0158730 + 0.0163934 = 0.0322664
    #   b: 1/62                                 = 0.0161290
    #   e: 1/63                                 = 0.0158730
    #   d: 1/64                                 = 0.0156250
    expected = [
        ("a", 0.0325224, {"bm25": 1, "vector": 2}),
        ("c", 0.0322664, {"bm25": 3, "vector": 1}),
        ("b", 0.0161290, {"bm25": 2}),
        ("e", 0.0158730, {"vector": 3}),
        ("d", 0.0156250, {"bm25": 4}),
    ]
    assert [item for item, _, _ in fused] == [item for item, _, _ in expected]
    for (item, score, ranks), (_, want_score, want_ranks) in zip(fused, expected, strict=True):
        assert score == pytest.approx(want_score, abs=1e-7), item
        assert ranks == want_ranks


def test_rrf_weights_and_k() -> None:
    fused = rrf({"bm25": ["x", "y"], "vector": ["y", "x"]}, k=1, weights={"bm25": 3.0, "vector": 1.0})
    # x: 3/2 + 1/3 = 1.8333; y: 3/3 + 1/2 = 1.5
    assert [(i, round(s, 4)) for i, s, _ in fused] == [("x", 1.8333), ("y", 1.5)]


def test_rrf_ties_are_deterministic() -> None:
    fused = rrf({"bm25": ["p", "q"], "vector": ["q", "p"]}, k=60)
    assert [i for i, _, _ in fused] == ["p", "q"]  # equal scores: first seen first
