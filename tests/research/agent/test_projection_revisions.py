"""A projection's revision, read from the meeting's own sentence (research/agent/compose/revision.py),
and a change between two named meetings that one meeting cannot answer.

August 2019 minutes, p. 5 (the resolution, para 23; read from the PDF): "Taking into consideration
the above factors, real GDP growth for 2019-20 is revised downwards from 7.0 per cent in the June
policy to 6.9 per cent – in the range of 5.8-6.6 per cent for H1:2019-20 and 7.3-7.5 per cent for H2
– with risks somewhat tilted to the downside". Dr. Chetan Ghate's statement, p. 7: "… the sharp
decline in economic growth (from 8.0% in Q1 to 5.8% in Q4) witnessed through FY 2019."
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from core.formatting import percent
from research.agent.compose.change import compose_projection_change
from research.agent.compose.composer import Composer
from research.agent.compose.revision import POINTS_UNIT, REVISED, asks_revision, compose_revision
from research.agent.question.library import LibDoc
from research.agent.question.periods import find_periods
from research.agent.question.understand import understand
from research.agent.verify.claims import render_text, verify_answer
from research.agent.verify.relevance import assess

D = dt.date
RESOLUTION = (
    "Taking into consideration the above factors, real GDP growth for 2019-20 is revised downwards from 7.0 per "
    "cent in the June policy to 6.9 per cent – in the range of 5.8-6.6 per cent for H1:2019-20 and 7.3-7.5 per cent "
    "for H2 – with risks somewhat tilted to the downside; GDP growth for Q1:2020-21 is projected at 7.4 per cent."
)
MEMBER = (
    "Taken in unison, our level policy and slope policy already reflect substantial financial accommodation to "
    "address the sharp decline in economic growth (from 8.0% in Q1 to 5.8% in Q4) witnessed through FY 2019."
)


# The library the questions are understood against: the two meetings' minutes (dates as shipped).
LIBRARY = [
    LibDoc(8, "mpc_minutes", "RBI MPC Minutes, February 2019", D(2019, 2, 21), D(2019, 2, 5), D(2019, 2, 7), False),
    LibDoc(9, "mpc_minutes", "RBI MPC Minutes, August 2019", D(2019, 8, 21), D(2019, 8, 5), D(2019, 8, 7), False),
]


def _passage(chunk_id: int, text: str, page: int, **extra: Any) -> dict[str, Any]:
    return {
        "chunk_id": chunk_id,
        "document_id": 9,
        "document_title": "RBI MPC Minutes, August 2019",
        "doc_type": "mpc_minutes",
        "doc_date": "2019-08-21",
        "period_start": "2019-08-05",
        "period_end": "2019-08-07",
        "text": text,
        "page": str(page),
        "page_number": page,
        "citation": f"RBI MPC Minutes, August 2019, p. {page}",
        "url": f"/research/documents/9/?page={page}",
        **extra,
    }


def _answer(question: str, passages: list[dict[str, Any]]) -> tuple[Composer, str] | None:
    c = Composer(question)
    if not compose_revision(c, understand(question, LIBRARY), passages):
        return None
    checked = verify_answer(
        c.draft,
        c.claims,
        question=question,
        outputs={},
        chunk_texts={p["chunk_id"]: p["text"] for p in passages},
        citations=c.citations,
        names=[p["document_title"] for p in passages],
    )
    assert checked["status"] == "verified", checked["problems"]
    return c, render_text(c.draft, c.claims)


def test_the_size_of_a_revision_is_both_quoted_figures_and_their_difference() -> None:
    question = "By how much was the GDP growth projection for 2019-20 revised down in August 2019?"
    # The member's statement ranks first, as the search gave it; it is a member's, and not a revision.
    passages = [_passage(1, MEMBER, 7, in_statement=True), _passage(2, RESOLUTION, 5)]
    answered = _answer(question, passages)
    assert answered is not None
    c, text = answered
    assert text.startswith(
        "In RBI MPC Minutes, August 2019, the real GDP growth projection for 2019-20 was revised down from 7.0 per "
        "cent (in the June policy) to 6.9 per cent: a change of −0.1 percentage points [Calculated: 6.9 - 7.0]."
    )
    assert "[Source: RBI MPC Minutes, August 2019, p. 5]" in text and "5.8" not in text.split("“")[0]
    calc = next(claim for claim in c.claims if claim["kind"] == "calc")
    assert calc["value"] == pytest.approx(6.9 - 7.0)
    checks = assess(understand(question, LIBRARY), c, {p["chunk_id"]: p for p in passages})
    assert checks["ok"] is True, checks


@pytest.mark.parametrize(
    ("question", "verdict"),
    [
        ("Was the GDP growth projection for 2019-20 raised in August 2019?", "No. "),
        ("Did the MPC lower its GDP growth projection for 2019-20 in August 2019?", "Yes. "),
        ("How was the GDP growth projection for 2019-20 revised in August 2019?", ""),
    ],
)
def test_a_yes_no_on_the_revision_is_answered_by_its_direction(question: str, verdict: str) -> None:
    answered = _answer(question, [_passage(2, RESOLUTION, 5)])
    assert answered is not None and answered[1].startswith(f"{verdict}In RBI MPC Minutes, August 2019,")


def test_no_revision_answer_from_a_member_another_metric_or_for_two_meetings() -> None:
    asked = "By how much was the GDP growth projection for 2019-20 revised down in August 2019?"
    assert _answer(asked, [_passage(2, RESOLUTION, 5, in_statement=True)]) is None
    assert _answer(asked.replace("GDP growth", "CPI inflation"), [_passage(2, RESOLUTION, 5)]) is None
    assert _answer(asked.replace("2019-20", "2020-21"), [_passage(2, RESOLUTION, 5)]) is None
    assert (
        _answer("What was the GDP growth projection for 2019-20 in August 2019?", [_passage(2, RESOLUTION, 5)]) is None
    )
    two = "How did the GDP growth projection for 2019-20 change between the February and August 2019 minutes?"
    assert _answer(two, [_passage(2, RESOLUTION, 5)]) is None


def test_a_change_between_two_named_meetings_must_cite_both() -> None:
    question = "How did the GDP growth projection for 2019-20 change between the February and August 2019 minutes?"
    u = understand(question, LIBRARY)
    assert [p.label for p in u.doc_periods] == ["February 2019", "August 2019"]
    c = Composer(question)
    august = _passage(2, RESOLUTION, 5)
    c.quote(august, RESOLUTION, "real GDP growth")
    checks = {x["check"]: x for x in assess(u, c, {2: august})["checks"]}
    assert checks["document"]["ok"] is False
    assert checks["document"]["detail"].startswith("cites no document of February 2019, which the question compares")
    february = {**_passage(3, "GDP growth for 2019-20 is projected at 7.4 per cent.", 4), "document_id": 8}
    february |= {"document_title": "RBI MPC Minutes, February 2019", "doc_date": "2019-02-21"}
    february |= {"period_start": "2019-02-05", "period_end": "2019-02-07"}
    c.quote(february, february["text"], "real GDP growth")
    assert {x["check"]: x for x in assess(u, c, {2: august, 3: february})["checks"]}["document"]["ok"] is True


@pytest.mark.parametrize(
    ("text", "labels"),
    [
        ("between the February and August 2019 minutes", ["February 2019", "August 2019"]),
        ("the June and August 2024 meetings", ["June 2024", "August 2024"]),
        ("December and February 2024", ["December 2023", "February 2024"]),  # the year before
        ("August 2024 and June", ["August 2024"]),  # no year to lend
    ],
)
def test_a_month_before_another_with_its_year_shares_it(text: str, labels: list[str]) -> None:
    assert [p.label for p in find_periods(text)] == labels


def test_the_revision_pattern_and_the_points_it_shows() -> None:
    m = REVISED.search(RESOLUTION)
    assert m is not None and (m.group("before"), m.group("after")) == ("7.0", "6.9")
    assert REVISED.search("GDP growth for 2019-20 is projected at 7.2 per cent") is None
    assert asks_revision("Did the MPC raise its inflation projection for 2024-25?")
    assert not asks_revision("What was the GDP growth projection for 2019-20?")
    assert percent(-0.1, signed=True, digits=1, unit=POINTS_UNIT) == "−0.1 percentage points"
    assert percent(0.2, signed=True, unit=POINTS_UNIT) == "+0.20 percentage points"
    assert percent(0.0, signed=True, unit=POINTS_UNIT) == "0.00 percentage points"


FEBRUARY = (
    "Taking into consideration the above factors, GDP growth for 2019-20 is projected at 7.4 per cent – in the range "
    "of 7.2-7.4 per cent in H1, and 7.5 per cent in Q3 – with risks evenly balanced."
)  # February 2019 minutes, p. 5 (read from the PDF)


def _february(chunk_id: int, text: str, **extra: Any) -> dict[str, Any]:
    passage = {**_passage(chunk_id, text, 5, **extra), "document_id": 8}
    passage |= {"document_title": "RBI MPC Minutes, February 2019", "citation": "RBI MPC Minutes, February 2019, p. 5"}
    return passage | {"doc_date": "2019-02-21", "period_start": "2019-02-05", "period_end": "2019-02-07"}


def test_a_change_between_two_meetings_is_each_meetings_own_figure_and_their_difference() -> None:
    question = "How did the GDP growth projection for 2019-20 change between the February and August 2019 minutes?"
    # August's own sentence, a member's aside on February's figure, and February's resolution.
    aside = _passage(3, "GDP growth projection for 2019-20 was 7.4 per cent in February 2019.", 12, in_statement=True)
    passages = [_passage(2, RESOLUTION, 5), aside, _february(1, FEBRUARY)]
    c = Composer(question)
    assert compose_projection_change(c, understand(question, LIBRARY), passages)
    chunks = {p["chunk_id"]: p["text"] for p in passages}
    checked = verify_answer(c.draft, c.claims, question=question, outputs={}, chunk_texts=chunks, citations=c.citations)
    assert checked["status"] == "verified", checked["problems"]
    text = render_text(c.draft, c.claims)
    assert text.startswith(
        "The real GDP growth projection for 2019-20: 7.4 per cent in RBI MPC Minutes, February 2019; 6.9 per cent in "
        "RBI MPC Minutes, August 2019. A change of −0.5 percentage points [Calculated: 6.9 - 7.4]."
    )
    assert [x["chunk_id"] for x in c.citations] == [1, 2]  # each meeting's own sentence, in date order
    assert assess(understand(question, LIBRARY), c, {p["chunk_id"]: p for p in passages})["ok"] is True


def test_a_change_between_two_meetings_with_one_meetings_figure_missing_is_not_answered() -> None:
    question = "How did the GDP growth projection for 2019-20 change between the February and August 2019 minutes?"
    u = understand(question, LIBRARY)
    only_august = [_passage(2, RESOLUTION, 5)]
    assert compose_projection_change(Composer(question), u, only_august) is False
    members_only = [*only_august, _february(1, FEBRUARY, in_statement=True)]
    assert compose_projection_change(Composer(question), u, members_only) is False
    one_meeting = "By how much was the GDP growth projection for 2019-20 revised down in August 2019?"
    assert compose_projection_change(Composer(one_meeting), understand(one_meeting, LIBRARY), only_august) is False
