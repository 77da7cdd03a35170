"""Our BM25 ranks exactly like rank_bm25.BM25Okapi (the reference) on real RBI text."""

from __future__ import annotations

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from research.ingest.chunking import chunk_pages
from research.ingest.parsers import parse, parse_text
from research.retrieval.bm25 import Bm25Params, _Builder, build_index
from research.retrieval.embeddings import get_embedder
from research.retrieval.text import tokenize
from tests.research.conftest import MPC_AUG_2024, annual_report_excerpt

QUERIES = [
    "CPI inflation projected 2024-25",
    "policy repo rate unchanged at 6.50 per cent",
    "voted to reduce the policy repo rate by 25 basis points",
    "gross market borrowings lakh crore",
    "food and beverages inflation averaged",
    "monsoon kharif sowing",
    "withdrawal of accommodation",
    "the the of",  # only stopwords: nothing to rank
    "inflation inflation inflation",  # repeated query terms count again, as in BM25Okapi
    "xylophone quantum",  # no term in the corpus
    "Rajiv Ranjan",
    "state finances GFD budget estimates",
]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    embedder = get_embedder()
    pages = parse("pdf", MPC_AUG_2024.read_bytes()) + parse_text(annual_report_excerpt())
    chunks = chunk_pages(pages, word_pieces=embedder.word_pieces, max_tokens=200, overlap=40)
    return [c.text for c in chunks]


def test_scores_and_ranking_equal_rank_bm25(texts: list[str]) -> None:
    reference = BM25Okapi([tokenize(t) for t in texts])
    ours = build_index([(i + 1, 1, t) for i, t in enumerate(texts)])
    assert len(texts) > 80
    for query in QUERIES:
        want = reference.get_scores(tokenize(query))
        got = ours.scores(query)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=query)
        # Ranking: the reference's order (stable sort by score) of the documents holding a query term.
        order = np.argsort(-want, kind="stable")
        terms = set(tokenize(query))
        expected = [int(i) + 1 for i in order if terms & set(tokenize(texts[i]))][:10]
        assert [cid for cid, _ in ours.top(query, 10)] == expected, query


def test_negative_idf_floor_matches_reference() -> None:
    # "rate" is in 3 of 4 documents, so its raw idf is negative and BM25Okapi floors it.
    docs = ["repo rate held", "rate cut", "rate hike expected", "liquidity surplus"]
    reference = BM25Okapi([tokenize(d) for d in docs])
    ours = build_index([(i, 1, d) for i, d in enumerate(docs)])
    np.testing.assert_allclose(ours.scores("rate"), reference.get_scores(["rate"]), rtol=1e-12)
    np.testing.assert_allclose(ours.scores("rate cut"), reference.get_scores(["rate", "cut"]), rtol=1e-12)


def test_a_match_in_a_tiny_corpus_is_found_despite_negative_idf() -> None:
    # One document: BM25Okapi's idf is log(0.5 / 1.5) < 0 for every term, so the match scores
    # below zero — it must still be returned (and non-matching rows never are).
    index = build_index([(7, 1, "The Zanzibar corridor was widened.")])
    assert BM25Okapi([tokenize("The Zanzibar corridor was widened.")]).get_scores(["zanzibar"])[0] < 0
    assert [cid for cid, _ in index.top("zanzibar corridor", 5)] == [7]
    assert index.top("liquidity", 5) == []


def test_incremental_refresh_equals_a_fresh_build(texts: list[str]) -> None:
    rows = [(i + 1, (i % 3) + 1, t) for i, t in enumerate(texts)]
    builder = _Builder()
    builder.add(rows[:40])
    builder.add(rows[40:])
    builder.remove({3, 17, 55})
    incremental = builder.index(Bm25Params())
    fresh = build_index([r for r in rows if r[0] not in {3, 17, 55}])
    for query in QUERIES:
        np.testing.assert_allclose(incremental.scores(query), fresh.scores(query), rtol=1e-12)


def test_filters_apply_before_ranking(texts: list[str]) -> None:
    rows = [(i + 1, 1 if i < 30 else 2, t) for i, t in enumerate(texts)]
    index = build_index(rows)
    only_two = index.top("inflation", 5, allowed_doc_ids=[2])
    assert len(only_two) == 5 and all(cid > 30 for cid, _ in only_two)
    assert index.top("inflation", 5, allowed_doc_ids=[]) == []
