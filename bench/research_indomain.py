"""Retrieval tuned on two sets: FiQA-2018 (paraphrased personal-finance questions, the set the old
defaults were tuned on) and an in-domain RBI set written by hand from the shipped documents — the
single-turn document questions of the research golden set (evaluation/suites/research_golden.json:
question → document and printed page) plus exact phrases and rare terms copied from the documents.

In-domain relevance is the (document, page) the answer is printed on; a ranked chunk list is read
as the list of distinct pages it names. Two ways of asking: "library" (the question as typed, whole
corpus) and "agent" (what the chat agent sends: the question's understanding as filters plus the
focused query). Every fusion setting of bench/_fusion_grid.py is scored on both sets from the same
precomputed BM25 / vector / exact lists, with the product's own code. Needs the whole demo corpus
(``load_research_corpus``; the embedding cache makes a re-run quick) and ../shared/data/fiqa for FiQA.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench._fusion_grid import QueryLists, Setting, fuse, grid, metrics, shipped

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "evaluation" / "suites" / "research_golden.json"
DEEP = 100
# Exact phrases and rare terms typed from the documents (raw PDF text / the report's pages).
EXACT_QUERIES: list[tuple[str, str, str]] = [
    ("Gold prices have surged to record highs on safe haven demand", "reserve_bank_of_india_05-06-2024", "2"),
    ("sharply adverse August jobs report that has stoked recession fears", "reserve_bank_of_india_06-08-2024", "6"),
    ("Delhi now gets tomatoes from Karnataka as well as Himachal Pradesh", "reserve_bank_of_india_06-08-2024", "7"),
    ("Misra Centre for Financial Markets and Economy", "reserve_bank_of_india_06-08-2024", "6"),
    ("Real GDP growth was robust at 8.2 per cent during 2023-24 (April-December)", "rbi-annual-report-2023-24", "15"),
    ("Oils and fats remained in deflation throughout the year", "rbi-annual-report-2023-24", "35"),
    ("sustained buoyancy in contact-intensive services", "rbi-annual-report-2023-24", "82"),
    ("reflecting the cut in liquified petroleum gas (LPG) prices", "reserve_bank_of_india_05-06-2024", "2"),
    ("liquified", "reserve_bank_of_india_05-06-2024", "2"),
    ("the disinvestment target has been set at ₹0.5 lakh crore", "rbi-annual-report-2023-24", "63"),
    ("covering 11.4 months of imports", "rbi-annual-report-2023-24", "6"),
]


def in_domain_queries() -> list[tuple[str, str, str, str]]:
    """(question, document stem, printed page, kind) — kind "golden" or "exact"."""
    cases = json.loads(GOLDEN.read_text())["cases"]
    out = [
        (c["turns"][0]["ask"], c["turns"][0]["expect"]["document"], str(c["turns"][0]["expect"]["page"]), "golden")
        for c in cases
        if "single-turn" in c["tags"] and c["turns"][0]["expect"].get("document") and "uploaded-note" not in c["tags"]
    ]
    return out + [(q, d, p, "exact") for q, d, p in EXACT_QUERIES]


def _library(user: Any) -> tuple[list[Any], dict[int, str]]:
    from research.agent.question.understand import LibDoc
    from research.selectors import document_index

    rows = document_index(user=user)
    return [LibDoc(**r) for r in rows], {r["id"]: Path(r["filename"]).name.split(".")[0] for r in rows}


def _agent_view(question: str, library: list[Any]) -> tuple[str, list[int] | None]:
    """The query and document filter the chat agent would search with."""
    from research.agent.question.understand import matching_documents, search_query, understand

    u = understand(question, library)
    docs = matching_documents(u, library)
    if not docs:
        return question, None
    return search_query(question, u, library), [d.id for d in docs]


def _lists(query: str, allowed: list[int]) -> QueryLists:
    from research.retrieval.bm25 import process_index
    from research.retrieval.search import _exact_list, _texts, query_vector, vector_top

    index = process_index.get()
    bm25 = index.top(query, DEEP, allowed)
    vector = vector_top(query_vector(query), DEEP, allowed)
    exact = _exact_list(query, bm25[:50], index, _texts([c for c, _ in bm25[:50]]))
    return QueryLists([c for c, _ in bm25], [c for c, _ in vector], [c for c, _ in exact])


def _pages(ranked: list[int], page_of: dict[int, tuple[str, str]]) -> list[tuple[str, str]]:
    return list(dict.fromkeys(page_of[c] for c in ranked if c in page_of))


def _rbi_rows(user: Any) -> tuple[dict[str, list[Any]], list[tuple[str, str, str, str]]]:
    """Per mode ("library", "agent"): the per-query lists and chunk → (stem, page) maps."""
    from research.models import Chunk

    library, stems = _library(user)
    all_ids = sorted(stems)
    page_of = {
        cid: (stems[doc], label)
        for cid, doc, label in Chunk.objects.filter(document_id__in=all_ids).values_list(
            "id", "document_id", "page_label"
        )
    }
    queries = in_domain_queries()
    modes: dict[str, list[Any]] = {"library": [], "agent": []}
    for question, _, _, _ in queries:
        modes["library"].append(_lists(question, all_ids))
        query, ids = _agent_view(question, library)
        modes["agent"].append(_lists(query, ids or all_ids))
    modes["page_of"] = [page_of]
    return modes, queries


def _score(
    per_query: list[QueryLists], relevant: list[set[Any]], s: Setting, page_of: dict[int, Any] | None
) -> dict[str, float]:
    ranked = [fuse(q, s) for q in per_query]
    if page_of is not None:
        ranked = [_pages(r, page_of) for r in ranked]
    return metrics(ranked, relevant)


def _fiqa_lists() -> tuple[list[QueryLists], list[set[int]]] | None:
    from bench.research_quality import FIQA, _embeddings, _fiqa, _vector_lists
    from research.retrieval.bm25 import build_index
    from research.retrieval.exact import exact_ranking

    if not FIQA.exists():
        return None
    passages, relevant, questions = _fiqa()
    p_vec, q_vec, _ = _embeddings(passages, questions)
    vector = _vector_lists(p_vec, q_vec)
    index = build_index([(i, 0, text) for i, text in enumerate(passages)])
    out = []
    for q, v in zip(questions, vector, strict=True):
        bm25 = [cid for cid, _ in index.top(q, DEEP)]
        exact = exact_ranking(q, [(c, passages[c]) for c in bm25[:50]], index.document_frequency, len(index))
        out.append(QueryLists(bm25, v, exact))
    return out, relevant


def run() -> list[dict[str, Any]]:
    from core.services import user_ensure
    from research.models import Document

    if Document.objects.filter(status="done").count() < 42:
        return [{"setting": "SKIPPED: load the whole demo corpus first (manage.py load_research_corpus)"}]
    user, _ = user_ensure(email="bench-retrieval@alphadesk.local", roles=["analyst"], password=None)
    modes, queries = _rbi_rows(user)
    page_of = modes.pop("page_of")[0]
    relevant = [{(stem, page)} for _, stem, page, _ in queries]
    fiqa = _fiqa_lists()
    rows = []
    for s in grid():
        row: dict[str, Any] = {"setting": s.label + (" (shipped)" if s == shipped() else "")}
        for mode, lists in modes.items():
            m = _score(lists, relevant, s, page_of)
            row[f"RBI {mode} nDCG@10"], row[f"RBI {mode} top-3"] = m["nDCG@10"], m["top-3"]
        exact_idx = [i for i, q in enumerate(queries) if q[3] == "exact"]
        m = _score([modes["library"][i] for i in exact_idx], [relevant[i] for i in exact_idx], s, page_of)
        row["exact phrase top-3"] = m["top-3"]
        if fiqa is not None:
            row["FiQA nDCG@10"] = _score(fiqa[0], fiqa[1], s, None)["nDCG@10"]
        rows.append(row)
    rows.sort(key=lambda r: -(r.get("FiQA nDCG@10", 0) + r["RBI agent nDCG@10"] + r["RBI library nDCG@10"]))
    for row in rows:
        row["queries"] = f"RBI {len(queries)} (exact {len(EXACT_QUERIES)})" + (
            f", FiQA {len(fiqa[1])}" if fiqa else ", FiQA skipped"
        )
    return rows
