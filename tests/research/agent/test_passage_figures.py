"""Text questions over filings answered from passages: the figure of the unit asked, from the sentence
that best matches the question's distinctive words (issue 18's text questions).

The passages are whole pages of the shipped filings as pypdf reads them; the expected figures were
read by hand from those pages (the page is named beside each case), never from the code under test.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pypdf
import pytest

from research.agent.compose.composer import Composer
from research.agent.compose.docs import compose_documents
from research.agent.evidence.passage_figures import _lower, _stems, asks_of, figures_of, pick_figures
from research.agent.evidence.select import candidates
from research.agent.question.understand import Understanding
from research.agent.verify.claims import render_text
from tests.research.corpus import FILINGS


@cache
def _page_text(name: str, page: int) -> str:
    return " ".join(pypdf.PdfReader(FILINGS / f"{name}.pdf").pages[page - 1].extract_text().split())


def _passages(name: str, pages: list[int]) -> list[dict[str, Any]]:
    return [
        {
            "chunk_id": 100 + page,
            "document_id": 1,
            "document_title": name,
            "page_number": page,
            "citation": f"{name}, p. {page}",
            "url": f"/research/documents/1/?page={page}",
            "text": _page_text(name, page),
        }
        for page in pages
    ]


def _compose(question: str, passages: list[dict[str, Any]], aspects: set[str]) -> tuple[Composer, str]:
    c = Composer(question)
    out = {"passages": passages, "understanding": Understanding(aspects=aspects).as_dict()}
    compose_documents(c, "rag_search", out)
    return c, " ".join(render_text(c.draft, c.claims).split())


CASES = [
    # (question, filing, pages, aspects, expected figure displays, the PDF page that states them)
    (
        "How many warehouses did Costco operate at the time of its first-quarter fiscal 2023 results?",
        "COSTCO_2023Q1_EARNINGS",
        [1, 2, 3],
        {"count"},
        ["847 warehouses"],  # p. 2: "Costco currently operates 847 warehouses, including 583 in the United States …"
        2,
    ),
    (
        "What pre-tax charge did Costco take in the first quarter of fiscal 2023 for downsizing its charter "
        "shipping activities?",
        "COSTCO_2023Q1_EARNINGS",
        [1, 2, 3],
        {"level"},
        ["$93 million"],  # p. 1: "a charge of $93 million pre-tax, $0.15 per diluted share, … charter shipping"
        1,
    ),
    (
        "What was Costco's diluted EPS in the first quarter of fiscal 2023?",
        "COSTCO_2023Q1_EARNINGS",
        [1, 2],
        {"level"},
        # p. 1: "Net income for the quarter was $1,364 million, $3.07 per diluted share, compared to
        # $1,324 million, $2.98 per diluted share, last year." — this year's figure, not the base
        ["$3.07 per share"],
        1,
    ),
    (
        "What restructuring charges did McDonald's record in the first quarter of 2023 for Accelerating the "
        "Organization?",
        "MCDONALDS_2023Q1_EARNINGS",
        [1, 2],
        {"level"},
        ["$180 million"],  # p. 2: "Pre-tax restructuring charges of $180 million, or $0.18 per share"
        2,
    ),
    (
        "How much of its common stock did eBay repurchase in the first quarter of 2023?",
        "EBAY_2023Q1_EARNINGS",
        [1, 2, 3, 4],
        {"level"},
        ["$250 million"],  # p. 4: "The company repurchased $250 million of its common stock"
        4,
    ),
    (
        "How many jobs did eBay say it would eliminate in its February 2023 8-K, and what share of its "
        "workforce is that?",
        "EBAY_2023Q1_8K",
        [1, 2],
        {"count"},
        ["500 employees", "4 per cent"],  # p. 2: "approximately 500 employees … This number represents about 4%"
        2,
    ),
    (
        "By how much did Intel expect the longer useful life of its production equipment to reduce its 2023 "
        "depreciation expense?",
        "INTEL_2023Q1_EARNINGS",
        [1, 2, 3],
        {"change"},
        ["$4.1 billion"],  # p. 3: "we expect total depreciation expense in 2023 to be reduced by $4.1 billion"
        3,
    ),
]


@pytest.mark.parametrize(("question", "name", "pages", "aspects", "figures", "page"), CASES)
def test_the_figure_asked_comes_from_the_sentence_naming_it(
    question: str, name: str, pages: list[int], aspects: set[str], figures: list[str], page: int
) -> None:
    passages = _passages(name, pages)
    c, text = _compose(question, passages, aspects)
    assert text.startswith("The figure"), text
    shown = [claim["display"] for claim in c.claims if claim["label"] == "figure asked"]
    assert shown == figures, text
    assert c.outcome == "answered" and c.assessment.get("passage_figures") is True
    by_chunk = {p["chunk_id"]: p for p in passages}
    for claim in c.claims:  # every figure is a quote of the cited page, as the verifier re-reads it
        assert claim["quote_figure"] in by_chunk[claim["chunk_id"]]["text"]
    assert page in {by_chunk[x["chunk_id"]]["page_number"] for x in c.citations}


def test_the_units_asked_follow_the_question() -> None:
    assert [a.unit for a in asks_of("How many warehouses did Costco operate?")] == ["count"]
    assert [a.unit for a in asks_of("What pre-tax charge did Costco take?")] == ["money"]
    assert [a.unit for a in asks_of("How much of its common stock did Apple repurchase?")] == ["money"]
    two = asks_of("How many jobs did eBay say it would eliminate, and what share of its workforce is that?")
    assert [a.unit for a in two] == ["count", "percent"]
    assert [a.unit for a in asks_of("What was eBay's gross margin in the second quarter of 2023?")] == ["percent"]
    assert asks_of("What drove the increase in Apple's services net sales?") == []
    # Comparable sales are reported as a per cent change; "how much" alone asks an amount.
    comps = asks_of("How much did McDonald's U.S. comparable sales increase in the second quarter of 2023?")
    assert [a.unit for a in comps] == ["percent"]
    assert [a.unit for a in asks_of("How much did same-store sales grow?")] == ["percent"]
    assert [a.unit for a in asks_of("How much did McDonald's sales increase?")] == ["money"]
    assert [a.unit for a in asks_of("How much did Apple spend on property, plant and equipment?")] == ["money"]


def test_a_figure_far_from_what_is_asked_is_not_taken() -> None:
    """ "Operating margin of 22.2%" (eBay Q1 2023 release, p. 1) does not answer the gross margin."""
    question = "What was eBay's gross margin (gross profit as a percentage of net revenues) in the first quarter?"
    u = Understanding(aspects={"level"})
    passages = _passages("EBAY_2023Q1_EARNINGS", [1])
    assert "operating margin of 22.2%" in passages[0]["text"]
    picked = pick_figures(question, candidates(question, u, passages))
    assert [number for _, number, _ in picked] == []


def test_a_vote_question_keeps_its_own_path() -> None:
    question = "How many members voted to raise the policy repo rate?"
    passages = _passages("COSTCO_2023Q1_EARNINGS", [2])
    assert pick_figures(question, candidates(question, Understanding(aspects={"count"}), passages)) == []


def test_a_region_of_initials_counts_as_a_word_and_keeps_the_figures_where_they_are() -> None:
    # McDonald's Q2 2023 release, p. 1: "• U.S. increased 10.3%" answers a U.S. question, against
    # "global comparable sales growth of 11.7%"; two letters alone are no word to weigh.
    assert {"usa", "compa", "sales"} <= _stems("How much did McDonald's U.S. comparable sales increase?")
    sentence = "U.S. increased 10.3%"
    assert len(_lower(sentence)) == len(sentence) and _lower(sentence).startswith("usa ")
    assert figures_of(_lower(sentence), "percent")[0][:2] == figures_of(sentence, "percent")[0][:2] == (15, 20)
    assert _lower("the U.S.A. and U.S. Steel") == "the u.s.a. and usa  steel"
