"""A figure in the bracket a period opens is that period's. "What was CPI inflation in April 2024?" had
been answered "CPI inflation: 5.1 per cent" from the April 2024 minutes (p. 11, read by hand with
pypdfium2): "CPI headline inflation during January-February 2024 (5.1 per cent in each of the months)
…", with no word of which months the figure is for. Pure."""

from __future__ import annotations

import pytest

from research.agent.evidence.levels import dated_before

APRIL_2024 = (
    "CPI headline inflation during January-February 2024 (5.1 per cent in each of the months) has moderated "
    "from the elevated level seen in December 2023 (5.7 per cent)."
)


@pytest.mark.parametrize(("number", "label"), [("5.1", "January-February 2024"), ("5.7", "December 2023")])
def test_a_bracketed_figure_is_dated_by_the_period_before_it(number: str, label: str) -> None:
    found = dated_before(APRIL_2024, (APRIL_2024.index(number), number, "per cent"))
    assert found is not None and found.label == label


def test_a_figure_not_in_a_periods_bracket_is_not_dated_by_it() -> None:
    sentence = "Inflation in December 2023 was high, at 5.7 per cent."
    assert dated_before(sentence, (sentence.index("5.7"), "5.7", "per cent")) is None
