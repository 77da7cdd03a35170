"""The filings suite (issue 18): its verdicts read the physical PDF page, the yes/no and the top-5
evidence from the stored trace; and a run through the real runner asks as the owner of a private
library of the shipped filings."""

from __future__ import annotations

from typing import Any

import pytest

from evaluation import filings
from evaluation.suites import Expect
from evaluation.verdicts import judge_turn, reason


def _passage(doc: int, page: int) -> dict[str, Any]:
    return {"document_id": doc, "page_number": page, "page": str(page - 3), "text": "x"}


def test_the_top_five_are_the_first_search_steps_first_five_passages_and_any_rows() -> None:
    passages = [_passage(1, p) for p in (9, 8, 7, 6, 5, 4)]  # the expected page 4 ranks sixth
    steps = [{"node": "rag_search", "outputs": {"passages": passages}}]
    assert not filings.evidence_hit({1}, [4], steps)
    assert filings.evidence_hit({1}, [4, 7], steps)
    assert not filings.evidence_hit({2}, [9], steps)  # the right page of another filing is no evidence
    later = [*steps, {"node": "rag_search", "outputs": {"passages": [_passage(1, 4)]}}]
    assert not filings.evidence_hit({1}, [4], later)  # a follow-up search is not the question's top 5
    rows = [*steps, {"node": "statement_lookup", "outputs": {"rows": [{"document_id": 1, "page_number": 4}]}}]
    assert filings.evidence_hit({1}, [4], rows)  # a statement-table row counts with its page


def test_yes_or_no_is_the_first_of_the_two_words_said() -> None:
    assert filings.yes_no_of("Yes. Services were 25.9 % of net sales.") == "yes"
    assert filings.yes_no_of("No — 1.8 %, not above 2 %.") == "no"
    assert filings.yes_no_of("Membership fees were 1.8 % and not more; nothing else.") is None


def test_a_filing_case_is_judged_on_the_pdf_page_not_the_printed_label() -> None:
    chunk = {"text": "Total net sales 81,797", "title": "Apple 10-Q", "page": "1", "page_number": 4, "stem": "APPLE"}
    chunk["kind"] = "pdf"
    turn = {
        "status": "done",
        "answer": "Yes: “Total net sales 81,797” [Source: Apple 10-Q, p. 1 (PDF p. 4)]",
        "claims": [],
        "citations": [{"chunk_id": 7, "citation": "Apple 10-Q, p. 1 (PDF p. 4)", "quote": "Total net sales 81,797"}],
        "steps": [{"node": "rag_search", "outputs": {"passages": [_passage(10, 4)]}}],
        "verification": {},
    }
    expect = Expect(figures=["81,797"], document="APPLE", pdf_page=4, outcome="answered", yes_no="yes")
    verdicts, measures = judge_turn(expect, turn, {7: chunk}, "q", {10: "APPLE"})
    assert verdicts["page_ok"] and verdicts["correct"] and measures["evidence_top5"] is True
    wrong = Expect(figures=["81,797"], document="APPLE", pdf_page=1, outcome="answered", yes_no="no")
    verdicts, measures = judge_turn(wrong, turn, {7: chunk}, "q", {10: "APPLE"})
    assert not verdicts["correct"] and measures["evidence_top5"] is False
    assert reason(verdicts, wrong) == (
        "cited no expected PDF page (1); said yes, expected no; expected page not in the top 5 passages"
    )


@pytest.mark.django_db
def test_a_filings_run_asks_as_the_owner_of_a_private_filings_library(evaluate: Any) -> None:
    from evaluation.corpus import FILINGS_OWNER
    from research.models import Document

    run = evaluate("filings", "ebay-q1-23-dividend", "costco-q1fy23-membership-share")
    assert (run.total, run.done) == (2, 2)
    library = Document.objects.filter(owner__email=FILINGS_OWNER)
    assert library.count() == 10 and set(library.values_list("visibility", flat=True)) == {"private"}
    assert set(library.values_list("status", flat=True)) == {"done"}
    cases = {c.case_id: c for c in run.cases.all()}
    dividend = cases["ebay-q1-23-dividend"]
    assert dividend.outcome == "pass", dividend.reason  # "$0.25 per share", cited on PDF p. 4
    assert dividend.verdicts["turn 1"]["evidence_top5"] is True
    assert run.metrics["filings_answer_correctness"]["n"] == 2
    assert run.metrics["filings_evidence_top5"]["n"] == 2
    assert run.metrics["answer_correctness"]["value"] is None  # the research suite's metric stays its own
