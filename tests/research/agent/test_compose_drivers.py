"""Why a statement line moved, in the filing's words: after the change read from the cells, the
discussion's sentence on that line for the span the cells cover. Pure: research/agent/compose/drivers.py
and the ``why`` aspect it covers. The chat over the shipped 10-Q is the filings suite's
apple-q3fy23-services-driver."""

from __future__ import annotations

from typing import Any

from research.agent.compose.composer import Composer
from research.agent.compose.drivers import compose_drivers
from research.agent.question.understand import understand
from research.agent.verify.relevance import assess

# Apple Inc. Form 10-Q, quarter ended July 1, 2023, printed p. 16 (PDF p. 19), as read by hand.
WEARABLES = (
    "Wearables, Home and Accessories net sales increased during the third quarter of 2023 compared to the third "
    "quarter of 2022 due primarily to higher net sales of Wearables, which includes AirPods, Apple Watch and Beats "
    "products, partially offset by lower net sales of accessories."
)
QUARTER = (
    "Services net sales increased during the third quarter of 2023 compared to the third quarter of 2022 due "
    "primarily to higher net sales from advertising, cloud services and the App Store."
)
NINE_MONTHS = (
    "Year-over-year Services net sales increased during the first nine months of 2023 due primarily to higher net "
    "sales from cloud services, advertising and music."
)
QUESTION = "What drove the increase in Apple's services net sales in the third quarter of fiscal 2023?"


def _passage(text: str) -> dict[str, Any]:
    return {
        "chunk_id": 4017,
        "document_id": 54,
        "document_title": "Apple Inc. Form 10-Q, quarter ended July 1, 2023",
        "doc_type": "10-Q",
        "text": text,
        "page": "16",
        "page_number": 19,
        "citation": "Apple Inc. Form 10-Q, quarter ended July 1, 2023, p. 16 (PDF p. 19)",
        "url": "/research/documents/54/?page=19",
    }


def _cells(period: str) -> Composer:
    """The answer as the statement cells leave it: a cell of the line "Services" for ``period``."""
    c = Composer(QUESTION)
    c.parts.append("Net sales: Services rose from $19,604 million to $21,213 million.")
    c.claim(
        kind="cell",
        chunk_id=4001,
        line="Services 21,213 19,604 62,886 58,941",  # the row as printed (PDF p. 4)
        label="net sales",
        value=21213,
        period=period,
    )
    c.assessment = {"statement_answer": "growth"}
    return c


def test_the_filings_sentence_on_that_line_for_that_span_says_why() -> None:
    c = _cells("Three Months Ended July 1, 2023")
    # The page runs the heading "Services" into the sentence; the quote begins with the sentence.
    assert compose_drivers(c, [_passage(f"{WEARABLES} {NINE_MONTHS} Services {QUARTER}")])
    assert c.parts[1:] == [
        "Why, in Apple Inc. Form 10-Q, quarter ended July 1, 2023:",
        f"“{QUARTER}” [Source: Apple Inc. Form 10-Q, quarter ended July 1, 2023, p. 16 (PDF p. 19)]",
    ]
    assert c.assessment == {"statement_answer": "growth", "drivers": "Services"}
    # The nine months' cells get the nine months' sentence.
    nine = _cells("Nine Months Ended July 1, 2023")
    assert compose_drivers(nine, [_passage(f"{QUARTER} {NINE_MONTHS}")])
    assert nine.parts[2].startswith(f"“{NINE_MONTHS}”")


def test_a_sentence_without_a_cause_or_on_another_line_is_no_reason() -> None:
    c = _cells("Three Months Ended July 1, 2023")
    plain = "Services net sales were $21,213 million during the third quarter of 2023."
    assert not compose_drivers(c, [_passage(f"{WEARABLES} {plain}")])
    assert len(c.parts) == 1


def test_the_cause_quoted_answers_why_and_the_change_alone_does_not() -> None:
    passage = _passage(QUARTER)
    u = understand(QUESTION, [])
    alone = _cells("Three Months Ended July 1, 2023")
    aspects = next(x for x in assess(u, alone, {4017: passage})["checks"] if x["check"] == "aspects")
    assert aspects == {"check": "aspects", "ok": False, "detail": "not answered: why"}
    with_cause = _cells("Three Months Ended July 1, 2023")
    compose_drivers(with_cause, [passage])
    aspects = next(x for x in assess(u, with_cause, {4017: passage})["checks"] if x["check"] == "aspects")
    assert aspects["ok"] is True
