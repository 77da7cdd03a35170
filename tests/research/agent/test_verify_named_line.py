""" "Verified" means the figures trace AND the answer answers the question: an answer read from a
statement line next to the one the question names traces perfectly, so the line check
(research/agent/verify/relevance.py ``_line_check``, on statement_question's one rule for which line a
question names) must refuse it.

The rows below are copied by hand from Adobe's 10-Q for the quarter ended June 2, 2023
(data/filings/ADOBE_2022Q2_10Q.pdf): PDF p. 4, the income statement's "Total revenue 4,816 4,386
9,471 8,648"; PDF p. 10, the note's "Total Digital Media revenue $ 3,511 $ 3,200 $ 6,906 $ 6,310"
and, three lines below it in the next table (subscription revenue by segment), "Digital Media $ 3,418
$ 3,079 $ 6,719 $ 6,074". Digital Media's share of revenue, by hand: 3,511 / 4,816 = 72.90 %. The
end-to-end cases are the filings golden set's (evaluation/suites/filings_golden.json).
"""

from __future__ import annotations

from typing import Any

import pytest

from research.agent.compose.composer import Composer
from research.agent.compose.statements.cells import cell_ref
from research.agent.compose.statements.dispatch import compose_statements
from research.agent.question.statements import asked_lines, named_words
from research.agent.question.understand import understand
from research.agent.verify.relevance import assess

SEGMENT = "What was Adobe's Digital Media segment revenue in the second quarter of fiscal 2023?"
SHARE = (
    "What share of Adobe's total revenue did the Digital Media segment account for in the quarter ended June 2, 2023?"
)


def _row(
    order: int, label: str, caption: str, statement: str, line: str, texts: list[str], page: str
) -> dict[str, Any]:
    years = (2023, 2022, 2023, 2022)  # as the ingest reads these tables: the year heads each column
    cells = [
        {"label": str(y), "year": y, "months": None, "end": None, "text": t, "value": t.replace(",", "")}
        for y, t in zip(years, texts, strict=True)
    ]
    return {
        "order": order,
        "document_id": 2,
        "document_title": "Adobe Inc. Form 10-Q, quarter ended June 2, 2023",
        "chunk_id": 10 + order,
        "chunk_next": None,
        "citation": f"Adobe Inc. Form 10-Q, quarter ended June 2, 2023, p. {page}",
        "url": f"/research/documents/2?page={page}",
        "page": page,
        "statement": statement,
        "section": "",
        "caption": caption,
        "label": label,
        "line": line,
        "quote": line,
        "unit": "USD millions",
        "cells": cells,
    }


TOTAL = _row(
    1,
    "Total revenue",
    "CONDENSED CONSOLIDATED STATEMENTS OF INCOME",
    "income_statement",
    "Total revenue 4,816 4,386 9,471 8,648",
    ["4,816", "4,386", "9,471", "8,648"],
    "4",
)
DIGITAL_MEDIA = _row(
    2,
    "Total Digital Media revenue",
    "Revenue by major offerings in our Digital Media reportable segment",
    "note",
    "Total Digital Media revenue $ 3,511 $ 3,200 $ 6,906 $ 6,310",
    ["3,511", "3,200", "6,906", "6,310"],
    "10",
)
SUBSCRIPTION_DM = _row(
    3,
    "Digital Media",
    "Subscription revenue by segment for the three and six months ended June 2, 2023",
    "segment_note",
    "Digital Media $ 3,418 $ 3,079 $ 6,719 $ 6,074",
    ["3,418", "3,079", "6,719", "6,074"],
    "10",
)
ROWS = [TOTAL, DIGITAL_MEDIA, SUBSCRIPTION_DM]


def _line(verdict: dict[str, Any]) -> dict[str, Any]:
    return next(x for x in verdict["checks"] if x["check"] == "line")


def test_the_line_a_question_names_is_the_one_it_names_most_fully() -> None:
    assert named_words(SEGMENT, DIGITAL_MEDIA) == 3  # digital, media, revenue ("Total" aside)
    assert named_words(SEGMENT, SUBSCRIPTION_DM) == 2  # digital, media
    assert asked_lines(SEGMENT, ROWS) == [DIGITAL_MEDIA]
    # "total revenue" names revenue itself, not a line of its own: nothing narrower to check.
    assert asked_lines("What was Adobe's total revenue for the quarter ended June 2, 2023?", ROWS) == []


def test_a_segment_question_is_answered_from_the_line_it_names_and_verified() -> None:
    c = Composer(SEGMENT)
    assert compose_statements(c, {"statement_rows": ROWS})
    assert [(x["kind"], x["value"], x["line"]) for x in c.claims] == [("cell", 3511.0, DIGITAL_MEDIA["line"])]
    assert c.claims[0]["display"] == "$3,511 million"
    verdict = assess(understand(SEGMENT, []), c, {}, ROWS)
    assert verdict["ok"] is True and _line(verdict)["ok"] is True


def test_an_answer_from_the_line_beside_the_one_named_is_not_verified() -> None:
    # The defect: "Digital Media" of subscription revenue ($3,418 million) traces to its passage but
    # is not the Digital Media segment's revenue ($3,511 million).
    c = Composer(SEGMENT)
    c.parts.append(f"Digital Media: {cell_ref(c, SUBSCRIPTION_DM, SUBSCRIPTION_DM['cells'][0], 'Digital Media')}")
    c.assessment = {"statement_answer": "value"}
    verdict = assess(understand(SEGMENT, []), c, {}, ROWS)
    assert verdict["ok"] is False
    assert _line(verdict) == {
        "check": "line",
        "ok": False,
        "detail": "reads “Digital Media $ 3,418 $ 3,079 $ 6,719 $ 6,074”, not the line “Total Digital Media revenue”",
    }


def test_a_passage_figure_quoted_from_another_line_is_not_verified() -> None:
    # The share question answered "2 per cent": Publishing and Advertising's "Percentage of total
    # revenue", quoted from the segment table of p. 30 — not Digital Media's 72.9 %.
    c = Composer(SHARE)
    passage = {"chunk_id": 30, "citation": "Adobe Inc. Form 10-Q, p. 30", "url": "/d/2", "document_id": 2, "page": "30"}
    c.parts.append(f"The figure asked: {c.quote_claim(passage, '2', 'per cent', 'figure asked')}")
    table = "Publishing and Advertising 83 91 (9) % Percentage of total revenue 2 % 2 %"
    c.quote(passage, table, "figure asked", figure_claim=False)
    verdict = assess(understand(SHARE, []), c, {}, ROWS)
    assert verdict["ok"] is False
    assert _line(verdict)["detail"] == "reads no cell of the line “Total Digital Media revenue”"


def test_an_answer_on_the_concepts_own_line_keeps_its_verification() -> None:
    asked = "What was Adobe's total revenue for the quarter ended June 2, 2023?"
    c = Composer(asked)
    c.parts.append(f"Revenue: {cell_ref(c, TOTAL, TOTAL['cells'][0], 'revenue')}")
    c.assessment = {"statement_answer": "value"}
    verdict = assess(understand(asked, []), c, {}, ROWS)
    # No check fails (None: nothing beyond the figures to judge), so the traced answer shows as verified.
    assert verdict["ok"] is not False and "line" not in {x["check"] for x in verdict["checks"]}


# End to end over the ten shipped filings, on the deterministic engine -------------------------------
def _pages(turn: Any, library: dict[str, Any], stem: str) -> set[int]:
    from research.models import Chunk

    ids = [int(c["chunk_id"]) for c in turn.citations]
    return set(Chunk.objects.filter(pk__in=ids, document=library[stem]).values_list("page_number", flat=True))


@pytest.mark.django_db
def test_the_filings_questions_on_a_named_line(filings_library: dict[str, Any], ask: Any) -> None:
    from research.agent.verify.claims import render_text

    # adobe-q2fy23-digital-media: was "$3,418 million" (subscription revenue's line), shown verified.
    turn = ask(SEGMENT)
    assert "$3,511 million" in render_text(turn.answer, turn.claims)
    assert turn.verification["status"] == "verified" and turn.status == "done"
    assert _pages(turn, filings_library, "ADOBE_2022Q2_10Q") & {10, 30}
    # adobe-q2fy23-digital-media-share: was "2 per cent", shown verified; then sent to a reviewer (the
    # segment tables print "Three Months" over "2023", no end date); now the quarter ended June 2, 2023:
    # 3,511 (PDF p. 10 or 30) of total revenue 4,816 (PDF p. 4) = 72.90 %, worked out by hand.
    turn = ask(SHARE)
    assert "72.90%" in render_text(turn.answer, turn.claims)
    assert turn.verification["status"] == "verified" and _line(turn.verification["answers"])["ok"] is True
    assert _pages(turn, filings_library, "ADOBE_2022Q2_10Q") & {10, 30} and 4 in _pages(
        turn, filings_library, "ADOBE_2022Q2_10Q"
    )
    # apple-q3fy23-greater-china: a correct answer on the line named stays verified (PDF p. 16,
    # "Greater China: Net sales $ 15,758 $ 14,604 $ 57,475 $ 58,730"; PDF p. 18, the MD&A's
    # "Greater China 15,758 14,604 8 % 57,475 58,730 (2)%").
    turn = ask("What were Apple's Greater China segment net sales in the third quarter of fiscal 2023?")
    assert "$15,758 million" in render_text(turn.answer, turn.claims)
    assert turn.verification["status"] == "verified" and _line(turn.verification["answers"])["ok"] is True
    assert _pages(turn, filings_library, "APPLE_2023Q3_10Q") in ({16}, {18}, {16, 18})
