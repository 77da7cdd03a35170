"""Hybrid search on real RBI documents: known facts on known pages, filters, visibility, the tool,
the API and the search page."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import pytest
from django.conf import settings
from django.test import Client

from core.tools import call_tool, mcp_whitelist
from research.retrieval.search import SearchFilters, allowed_document_ids
from research.selectors import passage_search
from tests.research.conftest import Corpus

pytestmark = pytest.mark.django_db

FACTS = [
    # (query, document attribute, printed page that states it)
    ("What is the CPI inflation projection for 2024-25?", "mpc", "3"),
    ("Which members voted to reduce the policy repo rate by 25 basis points?", "mpc", "3"),
    ("gross market borrowings of the centre for 2024-25", "report", "63"),
    ("average food and beverages inflation in 2023-24", "report", "35"),
]


@pytest.mark.parametrize(("query", "which", "page"), FACTS)
def test_known_fact_is_in_top_3_with_its_citation(
    corpus: Corpus, analyst: Any, query: str, which: str, page: str
) -> None:
    document = getattr(corpus, which)
    passages = passage_search(user=analyst, query=query, top_k=3)
    cited = [(p.chunk.document_id, p.chunk.page_label, p.citation) for p in passages]
    assert (document.pk, page, f"{document.title}, p. {page}") in cited, cited


def test_results_carry_per_retriever_ranks_and_scores(corpus: Corpus, analyst: Any) -> None:
    passages = passage_search(user=analyst, query="policy repo rate unchanged at 6.50 per cent", top_k=5)
    assert len(passages) == 5
    assert passages == sorted(passages, key=lambda p: -p.score)
    top = passages[0]
    assert set(top.ranks) <= {"bm25", "vector", "exact"} and top.ranks
    assert all(0 < p.scores.get("vector", 0.5) <= 1 for p in passages)


def test_fused_scores_are_rrf_of_ranks_found_without_the_fusion(corpus: Corpus, analyst: Any) -> None:
    """Each retriever's list is rebuilt outside the search: vector ranks by exact cosine over every
    stored embedding in numpy (not the HNSW index), BM25 ranks from the index alone, exact-evidence
    ranks from the exact ranker; the fused score is then Σ w / (k + rank), summed here by hand."""
    from research.models import Chunk
    from research.retrieval.bm25 import process_index
    from research.retrieval.embeddings import get_embedder
    from research.retrieval.exact import exact_ranking

    query = "policy repo rate unchanged at 6.50 per cent"
    allowed = allowed_document_ids(user=analyst, filters=None)
    ids, vectors = zip(*Chunk.objects.filter(document_id__in=allowed).values_list("id", "embedding"), strict=True)
    cosine = np.asarray(vectors, dtype=float) @ np.asarray(get_embedder().embed([query])[0], dtype=float)
    by_vector = [ids[i] for i in np.lexsort((np.asarray(ids), -cosine))][: settings.RESEARCH_VECTOR_CANDIDATES]
    index = process_index.get()
    hits = index.top(query, settings.RESEARCH_BM25_CANDIDATES, allowed)
    texts = dict(Chunk.objects.filter(id__in=[cid for cid, _ in hits]).values_list("id", "text"))
    lists = {
        "bm25": [cid for cid, _ in hits],
        "vector": by_vector,
        "exact": exact_ranking(query, [(cid, texts[cid]) for cid, _ in hits], index.document_frequency, len(index)),
    }
    weights, k = settings.RESEARCH_RRF_WEIGHTS, settings.RESEARCH_RRF_K
    passages = passage_search(user=analyst, query=query, top_k=5)
    for passage in passages:
        cid = passage.chunk.pk
        ranks = {name: ranked.index(cid) + 1 for name, ranked in lists.items() if cid in ranked}
        assert passage.ranks == ranks
        assert passage.score == pytest.approx(sum(weights[name] / (k + rank) for name, rank in ranks.items()))


def test_filters_apply_before_ranking(corpus: Corpus, analyst: Any) -> None:
    only_report = passage_search(
        user=analyst, query="policy repo rate", top_k=10, filters=SearchFilters(doc_types=["annual_report"])
    )
    assert only_report and {p.chunk.document_id for p in only_report} == {corpus.report.pk}
    by_date = passage_search(
        user=analyst, query="inflation", top_k=10, filters=SearchFilters(date_from=dt.date(2024, 8, 1))
    )
    assert by_date and {p.chunk.document_id for p in by_date} == {corpus.mpc.pk}
    by_tag = passage_search(user=analyst, query="inflation", top_k=10, filters=SearchFilters(tags=["annual-report"]))
    assert {p.chunk.document_id for p in by_tag} == {corpus.report.pk}
    assert passage_search(user=analyst, query="inflation", filters=SearchFilters(issuers=["Nobody"])) == []


def test_private_documents_are_seen_only_by_their_owner(corpus: Corpus, analyst: Any, make_user: Any) -> None:
    from research.models import Document

    Document.objects.filter(pk=corpus.report.pk).update(visibility=Document.Visibility.PRIVATE)
    hits = passage_search(user=analyst, query="gross market borrowings 2024-25", top_k=10)
    assert corpus.report.pk not in {p.chunk.document_id for p in hits}
    hits = passage_search(user=corpus.owner, query="gross market borrowings 2024-25", top_k=10)
    assert corpus.report.pk in {p.chunk.document_id for p in hits}
    assert Client().get("/research/").status_code == 302  # anonymous: to the login page


def test_a_colleague_s_private_document_changes_no_score_anyone_else_is_shown(corpus: Corpus, make_user: Any) -> None:
    """The search tool (API, MCP) shows each retriever's score. BM25's depends on how many passages
    hold each word, so counting a colleague's private upload would let anyone probe it: upload a
    note with a rare word, search for it, and see whether the score drops. It must not move."""
    from research.models import Document
    from tests.research.conftest import ingest

    prober = make_user("analyst")
    note = b"Zanzibar corridor: the liquidity note on the Zanzibar corridor."
    ingest(prober, "probe.txt", note, visibility="private")
    arguments = {"query": "zanzibar corridor liquidity", "top_k": 3}

    def bm25_scores() -> list[float]:
        outcome = call_tool("search_financial_documents", arguments, user=prober)
        assert outcome.ok, outcome.error
        return [p["retrievers"]["bm25"]["score"] for p in outcome.as_dict()["passages"] if "bm25" in p["retrievers"]]

    before = bm25_scores()
    assert before and before[0] > 0
    secret = ingest(
        corpus.owner, "deal.txt", b"Project Zanzibar: acquiring the corridor operator.", visibility="private"
    )
    assert bm25_scores() == before
    # Shared with the team, the same document does count (and is found): the probe could see it.
    Document.objects.filter(pk=secret.pk).update(visibility=Document.Visibility.TEAM)
    assert bm25_scores()[: len(before)] != before


def test_tool_returns_passages_with_citations(corpus: Corpus, analyst: Any) -> None:
    assert "search_financial_documents" in mcp_whitelist()
    outcome = call_tool(
        "search_financial_documents",
        {"query": "gross market borrowings for 2024-25", "top_k": 3, "filters": {"doc_types": ["annual_report"]}},
        user=analyst,
    )
    assert outcome.ok, outcome.error
    data = outcome.as_dict()
    assert len(data["passages"]) == 3
    first = data["passages"][0]
    assert first["citation"] == f"RBI Annual Report 2023-24, p. {first['page']}"
    assert "63" in [p["page"] for p in data["passages"]]
    assert first["url"].startswith(f"/research/documents/{corpus.report.pk}/?page=")
    assert set(first["retrievers"]) <= {"bm25", "vector", "exact"}
    assert first["retrievers"]
    assert first["issuer"] == "Reserve Bank of India" and first["doc_date"] == "2024-05-30"


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        ({}, "invalid_input"),
        ({"query": "   "}, "invalid_input"),
        ({"query": "x", "top_k": 0}, "invalid_input"),
        ({"query": "x", "top_k": 500}, "invalid_input"),
        ({"query": "x", "filters": {"colour": "red"}}, "invalid_input"),
        ({"query": "x", "filters": {"date_from": "not-a-date"}}, "invalid_input"),
    ],
)
def test_tool_bad_input_is_a_structured_error(analyst: Any, arguments: dict[str, Any], code: str) -> None:
    outcome = call_tool("search_financial_documents", arguments, user=analyst)
    assert not outcome.ok and outcome.error is not None
    assert outcome.error.error == code and outcome.error.message


def test_tool_refuses_a_user_without_research(make_user: Any) -> None:
    outcome = call_tool("search_financial_documents", {"query": "inflation"}, user=make_user())
    assert outcome.error is not None and outcome.error.error == "forbidden"


def test_search_api(corpus: Corpus, analyst: Any) -> None:
    client = Client()
    client.force_login(analyst)
    response = client.post(
        "/api/v1/research/search",
        {"query": "CPI inflation projected for 2024-25", "top_k": 3},
        content_type="application/json",
    )
    assert response.status_code == 200
    assert "RBI MPC Minutes, August 2024, p. 3" in [p["citation"] for p in response.json()["passages"]]
    bad = client.post("/api/v1/research/search", {"query": ""}, content_type="application/json")
    assert bad.status_code == 400 and bad.json()["error"] == "invalid_input"
    assert client.post("/api/v1/research/search", "[1,2]", content_type="application/json").status_code == 400


def test_search_page_highlights_cites_and_opens_the_page(corpus: Corpus, analyst: Any) -> None:
    client = Client()
    client.force_login(analyst)
    response = client.get("/research/", {"q": "gross market borrowings 2024-25", "doc_type": "annual_report"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "RBI Annual Report 2023-24, p. 63" in html
    assert "<mark>borrowings</mark>" in html.lower() or "<mark>Borrowings</mark>" in html
    assert "BM25 #" in html and "Vector #" in html
    partial = client.get("/research/", {"q": "repo rate"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="search-results")
    assert partial.status_code == 200 and "<html" not in partial.content.decode()
    passage = passage_search(user=analyst, query="gross market borrowings 2024-25", top_k=1)[0]
    viewer = client.get(passage.url)
    body = viewer.content.decode()
    assert viewer.status_code == 200
    assert f'id="chunk-{passage.chunk.pk}"' in body and "chunk target" in body
    assert f'data-page-label="{passage.chunk.page_label}"' in body


def test_research_api_is_in_the_openapi_schema(analyst: Any) -> None:
    client = Client()
    client.force_login(analyst)  # the schema is not public (issue 17)
    paths = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()["paths"]
    assert {"/api/v1/research/documents", "/api/v1/research/documents/{document_id}", "/api/v1/research/search"} <= set(
        paths
    )


@pytest.mark.parametrize(("k", "expected_ef"), [(10, str(settings.RESEARCH_HNSW_EF_SEARCH)), (500, "500")])
def test_vector_search_walks_the_index_with_the_configured_depth_and_iterative_scan(
    corpus: Corpus, analyst: Any, k: int, expected_ef: str
) -> None:
    """The settings that give HNSW its recall (ef_search, at least k) and let a filtered query
    still return k rows (iterative scan) are in force when the nearest-neighbour query runs."""
    from django.db import connection

    from research.retrieval.search import query_vector, vector_top

    seen: list[tuple[str, str]] = []

    def settings_at_search(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if "ORDER BY embedding::halfvec" in sql:
            raw = context["cursor"].cursor  # the driver's cursor: asking does not re-enter this wrapper
            raw.execute("SELECT current_setting('hnsw.ef_search'), current_setting('hnsw.iterative_scan')")
            seen.append(raw.fetchone())
        return execute(sql, params, many, context)

    allowed = allowed_document_ids(user=analyst, filters=None)
    with connection.execute_wrapper(settings_at_search):
        hits = vector_top(query_vector("policy repo rate"), k, allowed)
    assert hits and seen == [(expected_ef, "relaxed_order")]


def test_the_nearest_neighbour_query_walks_the_halfvec_graph_and_scores_at_full_precision(
    corpus: Corpus, analyst: Any
) -> None:
    """The query orders by the very expression the index is built on (a query ordered by any other
    expression would read the whole table), and the similarity it returns is the stored vectors'
    own, not the half-precision one."""
    from django.db import connection, transaction

    from research.models import Chunk
    from research.retrieval.search import HALFVEC_DISTANCE, query_vector, vector_top

    vector = query_vector("policy repo rate")
    literal = "[" + ",".join(f"{x:.9g}" for x in vector) + "]"
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # a small table would otherwise be scanned
        cursor.execute(f"EXPLAIN SELECT id FROM research_chunk ORDER BY {HALFVEC_DISTANCE} LIMIT 10", [literal])  # noqa: S608  (a constant of the module)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Index Scan using research_chunk_halfvec_hnsw" in plan, plan

    hits = vector_top(vector, 10, allowed_document_ids(user=analyst, filters=None))
    stored = {
        c.pk: np.asarray(c.embedding, dtype=np.float64) for c in Chunk.objects.filter(pk__in=[h[0] for h in hits])
    }
    q = np.asarray(vector, dtype=np.float64)
    for chunk_id, similarity in hits:
        exact = stored[chunk_id] @ q / (np.linalg.norm(stored[chunk_id]) * np.linalg.norm(q))
        assert similarity == pytest.approx(exact, abs=1e-6)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)


def test_a_hybrid_search_reads_each_candidate_text_once(
    corpus: Corpus, analyst: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from research.retrieval import search

    asked: list[list[int]] = []
    read_texts = search._texts

    def recording(ids: list[int]) -> dict[int, str]:
        asked.append(list(ids))
        return read_texts(ids)

    monkeypatch.setattr(search, "_texts", recording)
    passages = passage_search(user=analyst, query="policy repo rate unchanged at 6.50 per cent", top_k=5)
    every_id = [cid for ids in asked for cid in ids]
    assert len(passages) == 5 and {p.chunk.pk for p in passages} <= set(every_id)
    assert len(asked) <= 2 and len(every_id) == len(set(every_id)), asked


def test_a_forked_process_embeds_queries_on_threads_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Celery prefork child inherits the parent's thread pool object but none of its threads;
    work handed to that pool would wait forever."""
    import os

    from research.retrieval import search

    monkeypatch.setattr(search, "query_vector", lambda query: np.array([len(query)], dtype=np.float32))
    assert search._embed_in_background("parent").result(timeout=10)[0] == 6  # the pool now has threads
    child = os.fork()
    if child == 0:  # the child: it reports through its exit status
        try:
            ok = search._embed_in_background("child!!").result(timeout=10)[0] == 7
        except Exception:
            ok = False
        os._exit(0 if ok else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
