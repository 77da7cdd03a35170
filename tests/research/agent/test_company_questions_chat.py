"""End to end on the deterministic engine: filings of three companies uploaded through the service
(their details read from their covers at upload), then questions naming a company and a period are
answered from that company's filing for that period only."""

from __future__ import annotations

from typing import Any

import pytest

from research.agent.verify.claims import render_text
from research.chat.models import TraceStep, Turn
from research.chat.services import chat_message_post, chat_turn_run
from tests.research.conftest import ingest
from tests.research.pdfs import APPLE_10Q, COSTCO_Q3_RELEASE, EBAY_8K, EBAY_Q1_RELEASE

pytestmark = pytest.mark.django_db


@pytest.fixture
def filings(analyst: Any, django_capture_on_commit_callbacks: Any) -> dict[str, Any]:
    with django_capture_on_commit_callbacks(execute=False):
        return {
            path.stem: ingest(analyst, path.name, path.read_bytes())
            for path in (EBAY_8K, APPLE_10Q, EBAY_Q1_RELEASE, COSTCO_Q3_RELEASE)
        }


def _ask(user: Any, question: str, django_capture_on_commit_callbacks: Any) -> tuple[Turn, dict[str, Any]]:
    with django_capture_on_commit_callbacks(execute=False):
        turn = chat_message_post(user=user, question=question)
    chat_turn_run(turn_id=turn.pk)
    turn.refresh_from_db()
    search = TraceStep.objects.filter(turn=turn, node="rag_search").first()
    return turn, (search.inputs if search else {})


def test_each_question_is_answered_from_the_named_company_s_filing_for_the_period(
    analyst: Any, filings: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    apple, ebay_8k = filings["APPLE_2023Q3_10Q"].pk, filings["EBAY_2023Q1_8K"].pk
    ebay_q1, costco = filings["EBAY_2023Q1_EARNINGS"].pk, filings["COSTCO_2023Q3_EARNINGS"].pk
    asked = {
        "What were Apple's net sales in the quarter ended July 1, 2023?": apple,
        "What was eBay's revenue in Q1 2023?": ebay_q1,  # the earnings release, not eBay's 8-K
        "What were Costco's net sales in the third quarter of fiscal 2023?": costco,
    }
    for question, document_id in asked.items():
        turn, search = _ask(analyst, question, django_capture_on_commit_callbacks)
        assert search["filters"] == {"document_ids": [document_id]}, question
        assert turn.status == "done" and turn.citations, (question, turn.status)
        assert {c["document_id"] for c in turn.citations} == {document_id}, question
    # Costco's income statement (p. 3): "Net sales $ 52,604 $ 51,612 …" — the net sales line, not
    # "Total revenue" (53,648, which adds membership fees), though both are revenue.
    shown = render_text(turn.answer, turn.claims)
    assert "$52,604 million" in shown and "53,648" not in shown, shown
    assert ebay_8k not in asked.values()


def test_a_question_naming_no_company_searches_every_filing(
    analyst: Any, filings: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    _turn, search = _ask(analyst, "What were net sales in the quarter?", django_capture_on_commit_callbacks)
    assert "document_ids" not in search["filters"]


def test_a_period_the_library_lacks_for_that_company_is_said_so(
    analyst: Any, filings: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    turn, search = _ask(analyst, "What were Apple's net sales in Q3 2024?", django_capture_on_commit_callbacks)
    assert search.get("no_document") and turn.citations == []
    assert turn.answer.startswith(
        "The library has no document for Apple Inc., Q3 FY2024; I did not answer from another period."
        " The nearest it has: APPLE 2023Q3 10Q."
    )
