"""A fiscal year's projection asked with no meeting named is the latest meeting's own. Sentences read
by hand from the MPC minutes named (pypdfium2 text of ../shared/data/rbi/mpc-minutes). Pure."""

from __future__ import annotations

import datetime as dt

import pytest

from research.agent.evidence.levels import projecting_meetings, projection_year, projects_now
from research.agent.question.lexicon import METRICS
from research.agent.question.periods import Period, find_periods

# August 2019, p. 5 (paragraphs 23 and 24 of the resolution).
JUNE_VIEW = (
    "In the MPC’s June resolution, real GDP growth for 2019-20 was projected at 7.0 per cent – in the range of "
    "6.4-6.7 per cent for H1:2019-20 and 7.2-7.5 per cent for H2 – with risks evenly balanced."
)
REVISED = (
    "Taking into consideration the above factors, real GDP growth for 2019-20 is revised downwards from 7.0 per "
    "cent in the June policy to 6.9 per cent – in the range of 5.8-6.6 per cent for H1:2019-20"
)
# August 2024, p. 3.
PROJECTED = "Assuming a normal monsoon, CPI inflation for 2024-25 is projected at 4.5 per cent with Q2 at 4.4 per cent."
# February 2023, p. 7 (a member's statement): an estimate by the NSO, no projection.
ESTIMATE = (
    "The trends in various indicators of level of economic activity point to achieving the FAE of GDP growth of 7 "
    "per cent in 2022-23."
)


def _at(sentence: str, number: str) -> tuple[int, str, str]:
    return (sentence.index(f"{number} per"), number, "per cent")


@pytest.mark.parametrize(
    ("sentence", "number", "now"),
    [(JUNE_VIEW, "7.0", False), (REVISED, "6.9", True), (PROJECTED, "4.5", True), (ESTIMATE, "7", False)],
)
def test_a_meeting_projects_its_own_figure_not_an_earlier_ones(sentence: str, number: str, now: bool) -> None:
    assert projects_now(sentence, _at(sentence, number)) is now


def _fy(text: str) -> Period:
    (period,) = [p for p in find_periods(text) if p.kind == "fy"]
    return period


def test_only_a_fiscal_years_projection_of_one_metric_with_no_meeting_named_is_asked() -> None:
    gdp = [m for m in METRICS if m.key == "gdp"]
    cpi = [m for m in METRICS if m.key == "cpi"]
    year = _fy("2024-25")
    assert projection_year("What is the CPI inflation projection for 2024-25?", cpi, [year], False) == year
    assert projection_year("What was CPI inflation in 2024-25?", cpi, [year], False) is None  # an outcome
    assert projection_year("What is the CPI inflation projection for 2024-25?", cpi, [year], True) is None
    assert projection_year("What are the GDP and CPI projections for 2024-25?", gdp + cpi, [year], False) is None


def test_the_meetings_that_may_project_a_year_latest_first() -> None:
    dates = [dt.date(2023, 2, 8), dt.date(2023, 10, 6), dt.date(2024, 2, 6), dt.date(2024, 8, 6), dt.date(2025, 6, 6)]
    # 2024-25 (April 2024 to March 2025): from February 2023 (fourteen months before) to April 2025.
    latest_first = [dt.date(2024, 8, 6), dt.date(2024, 2, 6), dt.date(2023, 10, 6), dt.date(2023, 2, 8)]
    assert projecting_meetings(_fy("2024-25"), dates) == latest_first
    assert projecting_meetings(_fy("2025-26"), dates) == [dt.date(2025, 6, 6), dt.date(2024, 8, 6), dt.date(2024, 2, 6)]


def test_a_long_quote_never_ends_on_a_figure_cut_from_its_unit() -> None:
    from research.agent.compose.composer import excerpt

    # August 2019, p. 5, as the chat quotes it: 320 characters had ended "… is projected at 7.4 per".
    sentence = (
        f"{REVISED} and 7.3-7.5 per cent for H2 – with risks somewhat tilted to the downside; GDP growth for "
        "Q1:2020-21 is projected at 7.4 per cent."
    )
    shown = excerpt(sentence, "6.9")
    assert shown.endswith("with risks somewhat tilted to the downside")
    assert sentence.startswith(shown)
