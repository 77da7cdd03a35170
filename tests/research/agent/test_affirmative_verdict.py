"""'Answers the question' is affirmative: a document answer is verified only when a check that
applies established it. A figure no metric named must be named, in its own clause, by the question's
words for what it asks; a check that could not run gives "unconfirmed", never "verified"."""

from __future__ import annotations

from typing import Any

import pytest

from research.agent.compose.composer import Composer
from research.agent.rewrite import verdict_status
from research.agent.verify.affirm import affirm, clause_of, quantity_named, statement_check, target_words

# Written here in the shape of a committee's minutes (not taken from any corpus the engine is tuned on).
SENTENCE = "Twelve-month CPI inflation had fallen to 6.7% in August, while unemployment had risen to 4.3%."
PASSAGE = {
    "chunk_id": 11,
    "document_id": 3,
    "citation": "Committee Minutes, September 2023, p. 2",
    "url": "/research/documents/3/?page=2",
    "doc_date": "2023-09-21",
}


def _answer(question: str, figure: str, label: str = "figure") -> Composer:
    c = Composer(question)
    ref = c.quote_claim(PASSAGE, figure, "%", label)
    c.parts.append(f"Found: {ref}. “{SENTENCE}” {c.cite(PASSAGE, SENTENCE)}")
    return c


def test_the_questions_words_for_the_quantity_leave_out_its_period_reporting_words_and_the_document() -> None:
    question = "What was the unemployment rate cited at the September 2023 committee meeting?"
    # "rate" is too common to name anything (a stop word); "cited", "meeting", the month go too, and so
    # do the words of the cited document's own name.
    assert target_words(question, "Committee Minutes, September 2023, p. 2") == {"unemp"}


def test_a_figure_stands_in_its_own_clause() -> None:
    assert clause_of(SENTENCE, "6.7%") == "Twelve-month CPI inflation had fallen to 6.7% in August"
    second = clause_of(SENTENCE, "4.3%")
    assert "unemployment had risen to 4.3%" in second and "inflation" not in second


@pytest.mark.parametrize(
    ("question", "figure", "affirmed"),
    [
        # The unemployment rate asked; the figure given is inflation's, in another clause.
        ("What was the unemployment rate in August?", "6.7", False),
        ("What was the unemployment rate in August?", "4.3", True),
        ("What had twelve-month CPI inflation fallen to?", "6.7", True),
        # A question with no words for a quantity establishes nothing.
        ("What was it?", "6.7", False),
    ],
)
def test_a_generic_figure_is_affirmed_only_when_its_clause_names_what_was_asked(
    question: str, figure: str, affirmed: bool
) -> None:
    assert quantity_named(_answer(question, figure))["affirmed"] is affirmed


def test_a_figure_a_metric_named_is_left_to_the_metric_checks() -> None:
    assert quantity_named(_answer("What was the unemployment rate?", "6.7", label="CPI inflation")) == {
        "affirmed": True,
        "why": "",
    }


def test_a_statement_line_read_by_its_concept_is_a_check_that_ran() -> None:
    c = Composer("What were net sales in the quarter?")
    assert statement_check(c) is None
    c.claims.append({"kind": "cell", "label": "net sales", "period": "Three Months Ended July 1, 2023"})
    c.assessment = {"statement_answer": "value"}
    check = statement_check(c)
    assert check is not None and check["ok"] is True
    assert "net sales (Three Months Ended July 1, 2023)" in check["detail"]


@pytest.mark.parametrize(
    ("traced", "answers", "document_answer", "status"),
    [
        (False, {"ok": True, "affirmed": True}, True, "failed"),
        (True, {"ok": False, "affirmed": True}, True, "unanswered"),
        (True, {"ok": True, "affirmed": True}, True, "verified"),
        # Established by nothing: a "nothing found" answer, or a figure the question does not name.
        (True, {"ok": None}, True, "unconfirmed"),
        (True, {"ok": True, "affirmed": False}, True, "unconfirmed"),
        # A market or calculator answer is judged by its tool outputs.
        (True, {"ok": None}, False, "verified"),
    ],
)
def test_verified_needs_checks_that_ran(
    traced: bool, answers: dict[str, Any], document_answer: bool, status: str
) -> None:
    assert verdict_status(traced, answers, document_answer=document_answer) == status


@pytest.mark.parametrize(
    ("question", "answer", "affirmed"),
    [
        ("Was CPI inflation still above 4% in October?", "CPI inflation (October 2023): 4.9 per cent.", False),
        ("According to the December minutes, was CPI inflation above 4%?", "“CPI inflation was 4.9%.”", False),
        ("Was CPI inflation still above 4% in October?", "Yes. CPI inflation was 4.9 per cent, above 4.", True),
        ("Did every member vote for the decision?", "No. Two members voted against.", True),
        # Not a yes/no question: a figure answers it.
        ("What was CPI inflation in October?", "CPI inflation (October 2023): 4.9 per cent.", True),
    ],
)
def test_a_yes_no_question_is_affirmed_only_by_a_yes_or_a_no(question: str, answer: str, affirmed: bool) -> None:
    c = Composer(question)
    c.parts.append(answer)
    assert affirm(c)["affirmed"] is affirmed
