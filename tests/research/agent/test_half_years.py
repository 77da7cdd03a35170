"""Halves and quarters of a fiscal year are not the year, and a range is read as a range.

"What was the GDP growth projection for 2019-20?" had been answered "7.4 per cent", verified, from
the April 2019 minutes' "GDP growth for 2019-20 is projected at 7.2 per cent – in the range of
6.8-7.1 per cent in H1:2019-20 and 7.3-7.4 per cent in H2": the upper end of the second half's
range, because "H1:2019-20" was read as the fiscal year itself. "What was the CPI inflation
projection for 2019-20?" had been answered with Q2's "3.1 per cent". Every sentence below was read
by hand from the PDF page named (pypdfium2 text of ../shared/data/rbi/mpc-minutes). Pure, except
the chat over the shipped library at the end."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from research.agent.evidence.levels import figure_year, locate, range_low
from research.agent.question.periods import find_periods, mentions
from tests.research.agent.golden import Runner

# MPC minutes, April 2019, p. 5 ("2019- 20" as the PDF breaks it).
APRIL_2019 = (
    "Taking into consideration the above factors, GDP growth for 2019- 20 is projected at 7.2 per cent – in the "
    "range of 6.8-7.1 per cent in H1:2019-20 and 7.3-7.4 per cent in H2 – with risks evenly balanced."
)
# MPC minutes, August 2019, p. 5.
AUGUST_2019_CPI = (
    "Taking into consideration these factors and the impact of recent policy rate cuts, the path of CPI "
    "inflation is projected at 3.1 per cent for Q2:2019-20 and 3.5-3.7 per cent for H2:2019-20, with risks "
    "evenly balanced."
)
# MPC minutes, October 2018, p. 6.
OCTOBER_2018 = (
    "GDP growth for Q1:2019-20 is now projected marginally lower at 7.4 per cent as against 7.5 per cent in the "
    "August resolution, mainly due to the strong base effect (Chart 2)."
)


def test_a_half_of_a_fiscal_year_is_its_own_period() -> None:
    (year, first_half) = find_periods(APRIL_2019)
    assert (year.kind, year.label) == ("fy", "2019-20")
    assert (first_half.kind, first_half.label) == ("half", "H1 2019-20")
    assert (first_half.start, first_half.end) == (dt.date(2019, 4, 1), dt.date(2019, 9, 30))
    assert [p.label for p in find_periods("the second half of 2024-25 and H1 FY25")] == ["H2 2024-25", "H1 2024-25"]
    assert find_periods("H2 2019-20")[0].start == dt.date(2019, 10, 1)
    assert mentions(AUGUST_2019_CPI, find_periods("H2 2019-20")[0])
    assert not mentions(AUGUST_2019_CPI, find_periods("H1 2019-20")[0])


def test_the_figure_of_a_quarter_or_half_is_not_the_years() -> None:
    assert figure_year(APRIL_2019, "7.2") == "2019-20"
    assert figure_year(APRIL_2019, "7.1") == "H1 2019-20"
    assert figure_year(AUGUST_2019_CPI, "3.1") == "Q2 2019-20"
    assert figure_year(OCTOBER_2018, "7.4") == "Q1 2019-20"  # named before it, with no figure between


def _low(sentence: str, number: str) -> str | None:
    figure = locate(sentence, number)
    assert figure is not None
    return range_low(sentence, figure)


def test_a_range_is_read_by_both_ends_and_a_move_is_not_a_range() -> None:
    assert _low(APRIL_2019, "7.1") == "6.8"
    assert _low(APRIL_2019, "7.2") is None
    assert _low(AUGUST_2019_CPI, "3.7") == "3.5"
    assert _low("growth is seen between 6.5 and 6.9 per cent", "6.9") == "6.5"
    assert _low("inflation rose from 5.1 to 6.0 per cent", "6.0") is None


@pytest.mark.parametrize(
    ("sentence", "question", "figure"),
    [
        (APRIL_2019, "What was the GDP growth projection for 2019-20?", ("7.2", "per cent")),  # not H2's 7.4
        (APRIL_2019, "What was the GDP growth projection for H1 2019-20?", ("7.1", "per cent")),
        (AUGUST_2019_CPI, "What was the CPI inflation projection for 2019-20?", None),  # Q2's and H2's only
        (AUGUST_2019_CPI, "What is the CPI inflation projection for H2 2019-20?", ("3.7", "per cent")),
        (OCTOBER_2018, "What was the GDP growth projection for 2019-20?", None),  # Q1's
    ],
)
def test_the_level_of_a_year_is_not_a_quarters_or_halfs(
    sentence: str, question: str, figure: tuple[str, str] | None
) -> None:
    from research.agent.evidence.anchors import anchor_figure
    from research.agent.question.understand import understand

    assert anchor_figure(sentence, understand(question, [])) == figure


def test_the_verifier_reads_a_quarters_figure_quoted_for_the_year() -> None:
    from research.agent.compose.composer import Composer
    from research.agent.question.understand import understand
    from research.agent.verify.relevance import assess

    question = "What was the GDP growth projection for 2019-20?"
    passage = {"chunk_id": 5, "citation": "RBI MPC Minutes, October 2018, p. 6", "url": "/d/5", "document_id": 5}
    meta = {5: {"document_id": 5, "doc_type": "mpc_minutes", "citation": "RBI MPC Minutes, October 2018, p. 6"}}
    u = understand(question, [])
    c = Composer(question)
    c.parts.append(f"Real GDP growth (2019-20): {c.quote_claim(passage, '7.4', 'per cent', 'real GDP growth')}")
    c.quote(passage, OCTOBER_2018, "real GDP growth", figure_claim=False)
    failed = [x for x in assess(u, c, meta)["checks"] if not x["ok"]]
    assert failed == [{"check": "period", "ok": False, "detail": "the figure is for Q1 2019-20, not for 2019-20"}]


def test_the_chat_answers_the_year_and_the_half_asked(
    demo_library: dict[str, Any], make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from research.agent.verify.claims import render_text

    runner = Runner(make_user, django_capture_on_commit_callbacks, demo_library)
    user = make_user("analyst")
    half = runner.ask(user, "What was the GDP growth projection for H1 2019-20 in the April 2019 minutes?", None)
    assert render_text(half.answer, half.claims).startswith(
        "Real GDP growth (H1 2019-20): between 6.8 and 7.1 per cent, according to RBI MPC Minutes, April 2019."
    )
    assert half.verification["status"] == "verified"
    year = runner.ask(user, "What was the GDP growth projection for 2019-20 in the April 2019 minutes?", None)
    assert render_text(year.answer, year.claims).startswith(
        "Real GDP growth (2019-20): 7.2 per cent, according to RBI MPC Minutes, April 2019."
    )
