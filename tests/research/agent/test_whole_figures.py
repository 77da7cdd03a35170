"""A figure is a whole number. The verifier's quote check had looked for the quoted digits anywhere in
the cited passage, so a claim of 4.5 per cent passed on a passage that says 14.5 per cent, and one of
234.5 on "1,234.5". The reader of figures took "1,234.5 per cent" for 234.5 the same way. Sentences
written by hand for the case; the first is the October 2020 minutes' (p. 3), as pypdfium2 reads it."""

from __future__ import annotations

import pytest

from research.agent.compose.composer import Composer
from research.agent.text.sentences import figures_in
from research.agent.verify.claims import check_claim

OCTOBER_2020 = (
    "Taking into consideration the above factors and the uncertain COVID-19 trajectory, real GDP growth in 2020-21 "
    "is expected to be negative at (-)9.5 per cent, with risks tilted to the downside: (-)9.8 per cent in "
    "Q2:2020-21; (-)5.6 per cent in Q3; and 0.5 per cent in Q4."
)
GROUPED = "Credit to the sector grew 1,234.5 per cent from a small base, against 14.5 per cent a year earlier."


def _quote(number: str) -> dict:
    passage = {"chunk_id": 3, "citation": "A passage, p. 1", "url": "/d/3", "document_id": 3}
    composer = Composer("How fast did credit grow?")
    composer.quote_claim(passage, number, "per cent", "credit growth")
    return composer.claims[0]


def test_a_thousands_group_belongs_to_the_figure() -> None:
    assert [(f[1], f[2]) for f in figures_in(GROUPED)] == [("1,234.5", "per cent"), ("14.5", "per cent")]
    assert _quote("1,234.5")["value"] == 1234.5


@pytest.mark.parametrize("number", ["1,234.5", "14.5"])
def test_a_figure_the_passage_gives_is_verified(number: str) -> None:
    assert check_claim(_quote(number), {}, {3: GROUPED}) is None


@pytest.mark.parametrize("number", ["234.5", "34.5", "4.5", "1,234", "1", "14"])
def test_digits_inside_another_figure_are_not_that_figure(number: str) -> None:
    assert "does not contain" in str(check_claim(_quote(number), {}, {3: GROUPED}))


def test_a_figure_at_a_sentence_end_is_whole() -> None:
    # "0.5 per cent in Q4." — the full stop after the sentence is no decimal point; 9.5 is (-)9.5.
    assert check_claim(_quote("0.5"), {}, {3: OCTOBER_2020}) is None
    assert "negative" in str(check_claim(_quote("9.5"), {}, {3: OCTOBER_2020}))


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"value": 8.0}, "the claim says 8.0"),  # a value that is not the figure quoted
        ({"display": "8.5 per cent"}, "the answer shows '8.5 per cent'"),  # a shown figure that is not it
    ],
)
def test_the_value_and_the_shown_figure_are_the_quoted_figure(change: dict, reason: str) -> None:
    claim = _quote("14.5")
    assert (claim["value"], claim["display"]) == (14.5, "14.5 per cent")
    assert reason in str(check_claim(claim | change, {}, {3: GROUPED}))


def test_a_signed_figure_reads_the_same_in_the_passage_the_claim_and_the_answer() -> None:
    claim = _quote("(-)9.5")
    assert (claim["value"], claim["display"]) == (-9.5, "−9.5 per cent")
    assert check_claim(claim, {}, {3: OCTOBER_2020}) is None
    assert "shows" in str(check_claim(claim | {"display": "9.5 per cent"}, {}, {3: OCTOBER_2020}))


def test_a_month_asked_is_no_fiscal_years_figure() -> None:
    from research.agent.question.lexicon import METRICS
    from research.agent.question.periods import find_periods
    from research.agent.question.understand import Understanding
    from research.agent.verify.relevance import reading_month

    cpi = [m for m in METRICS if m.key == "cpi"]
    repo = [m for m in METRICS if m.key == "repo"]
    (june,) = [p for p in find_periods("June 2024") if p.kind == "month"]
    asked = "What was headline CPI inflation in June 2024?"
    assert reading_month(Understanding(doc_periods=[june], metrics=cpi), asked) == june
    # The June 2024 minutes named, a projection asked, a policy rate: the month is the meeting's.
    assert (
        reading_month(Understanding(doc_periods=[june], metrics=cpi), "CPI inflation in the June 2024 minutes?") is None
    )
    assert reading_month(Understanding(doc_periods=[june], metrics=cpi), "The CPI projection in June 2024?") is None
    assert (
        reading_month(Understanding(doc_periods=[june], metrics=repo), "What was the repo rate in June 2024?") is None
    )
