"""Answers computed from statement cells on the deterministic engine, over a library of four
filings (data/filings; the ``apple_10q`` fixture of tests/research/agent/conftest.py): the Apple
10-Q for the quarter ended 1 July 2023, eBay's first-quarter 2023 earnings release, Adobe's 10-Q
for the quarter ended 2 June 2023 and Costco's third-quarter fiscal 2023 release. Expected figures
were read by hand from the filings' statements and computed by hand from those cells; Apple's
printed page labels are its 10-Q footer numbers (PDF page − 3)."""

from __future__ import annotations

from typing import Any

import pytest

from research.agent.verify.claims import render_text

pytestmark = pytest.mark.django_db


def _answer(turn: Any) -> str:
    return render_text(turn.answer, turn.claims)


def _verified(turn: Any) -> None:
    assert turn.status == "done", (turn.status, turn.answer, turn.verification)  # the whole record, whatever failed
    assert turn.verification["status"] == "verified", turn.verification


def test_a_metric_is_answered_with_the_exact_cell_its_units_and_page(apple_10q: Any, ask: Any) -> None:
    turn = ask("What was Apple's capital expenditure in the nine months ended July 1, 2023?")
    text = _answer(turn)
    _verified(turn)
    assert "Capital expenditure (Nine Months Ended July 1, 2023): $8,796 million paid out" in text
    assert "“Payments for acquisition of property, plant and equipment (8,796) (7,419)”" in text
    assert "p. 5 (PDF p. 8)" in text
    cell = next(c for c in turn.claims if c["kind"] == "cell")
    assert cell["value"] == -8796 and cell["quote_figure"] == "8,796"
    assert any(c["page"] == "5" and "chunk=" in c["url"] and "page=8" in c["url"] for c in turn.citations)


def test_a_margin_is_computed_by_the_calculator_from_cited_cells(apple_10q: Any, ask: Any) -> None:
    turn = ask("What was Apple's gross margin percentage in Q3 2023?")
    text = _answer(turn)
    _verified(turn)
    # 36,413 / 81,797 × 100 = 44.5163… (gross margin over total net sales, three months to 1 July 2023)
    assert "Gross margin percentage (Three Months Ended July 1, 2023): 44.52% [Calculated: 36413 / 81797 * 100]" in text
    assert "$36,413 million" in text and "$81,797 million" in text
    calc = next(c for c in turn.claims if c["kind"] == "calc")
    assert calc["value"] == pytest.approx(36413 / 81797 * 100)


def test_growth_is_the_difference_and_the_percentage_change_of_two_cells(apple_10q: Any, ask: Any) -> None:
    turn = ask("By how much did Apple's services revenue grow year over year in the quarter?")
    text = _answer(turn)
    _verified(turn)
    # Services net sales: 21,213 (three months to 1 Jul 2023) against 19,604 (to 25 Jun 2022):
    # +1,609, i.e. +8.2073…%.
    assert "rose from $19,604 million (Three Months Ended June 25, 2022) to $21,213 million" in text
    assert "+$1,609 million [Calculated: 21213 - 19604]" in text
    assert "+8.21% [Calculated: pct_change(19604, 21213)]" in text


def test_a_yes_no_question_needing_a_calculation_says_yes_and_shows_it(apple_10q: Any, ask: Any) -> None:
    turn = ask("Did any of Apple's segments exceed 20% of revenue in the quarter?")
    text = _answer(turn)
    _verified(turn)
    assert text.startswith("Yes — in the Three Months Ended July 1, 2023")
    # Americas 35,383 / 81,797 = 43.26%; Europe 20,205 / 81,797 = 24.70% (over 20%);
    # Greater China 15,758 → 19.26%, Japan 4,821 → 5.89%, Rest of Asia Pacific 5,630 → 6.88%.

    over, _, under = text.partition("At or below it:")
    assert "Americas $35,383 million: 43.26%" in over and "Europe $20,205 million: 24.70%" in over
    assert "Greater China $15,758 million: 19.26%" in under and "Japan $4,821 million: 5.89%" in under
    assert "Rest of Asia Pacific $5,630 million: 6.88%" in under


def test_a_higher_threshold_gives_no(apple_10q: Any, ask: Any) -> None:
    turn = ask("Did any Apple segment exceed 50% of revenue in the quarter?")
    _verified(turn)
    assert _answer(turn).startswith("No — in the Three Months Ended July 1, 2023")


def test_the_filing_of_the_company_named_is_read(apple_10q: Any, ask: Any) -> None:
    turn = ask("How much did Costco's total revenue grow year over year in the third quarter of fiscal 2023?")
    text = _answer(turn)
    _verified(turn)
    # Total revenue 53,648 (12 weeks to 7 May 2023) against 52,596 (to 8 May 2022): +1,052, +2.0001%.
    assert (
        "rose from $52,596 million (12 Weeks Ended May 8, 2022) to $53,648 million (12 Weeks Ended May 7, 2023)" in text
    )
    assert (
        "+$1,052 million [Calculated: 53648 - 52596]" in text
        and "+2.00% [Calculated: pct_change(52596, 53648)]" in text
    )
    assert "Costco Q3 fiscal 2023 earnings release, p. 3" in text


def test_a_line_the_filer_prints_is_quoted_rather_than_recomputed(apple_10q: Any, ask: Any) -> None:
    turn = ask("What was eBay's free cash flow in the first quarter of 2023?")
    text = _answer(turn)
    _verified(turn)
    assert text.startswith("Free cash flow (Three Months Ended March 31, 2023): $709 million")
    assert "eBay Q1 2023 earnings release, p. 15" in text


def test_free_cash_flow_and_operating_margin_are_computed_when_not_printed(apple_10q: Any, ask: Any) -> None:
    fcf = ask("What was Adobe's free cash flow in the six months ended June 2, 2023?")
    _verified(fcf)
    # Net cash provided by operating activities 3,832 less purchases of property and equipment (222).
    assert "Free cash flow (Six Months Ended June 2, 2023): $3,610 million [Calculated: 3832 - 222]" in _answer(fcf)
    margin = ask("What was Adobe's operating margin in the three months ended June 2, 2023?")
    _verified(margin)
    # Operating income 1,624 / total revenue 4,816 = 33.7209…%.
    assert "Operating margin (Three Months Ended June 2, 2023): 33.72% [Calculated: 1624 / 4816 * 100]" in _answer(
        margin
    )


def test_per_share_figures_are_not_in_millions(apple_10q: Any, ask: Any) -> None:
    turn = ask("What was Adobe's diluted EPS in the quarter ended June 2, 2023?")
    _verified(turn)
    assert _answer(turn).startswith("Diluted earnings per share (Three Months Ended June 2, 2023): $2.82 per share")


def test_a_category_share_test(apple_10q: Any, ask: Any) -> None:
    turn = ask("Did any of Apple's product categories exceed 25% of net sales in Q3 2023?")
    text = _answer(turn)
    _verified(turn)
    # iPhone 39,669 / 81,797 = 48.50%; Services 21,213 / 81,797 = 25.93%; Mac 6,840 → 8.36%.
    assert text.startswith("Yes — in the Three Months Ended July 1, 2023")
    assert "iPhone $39,669 million: 48.50%" in text and "Services $21,213 million: 25.93%" in text
    assert "Mac $6,840 million: 8.36%" in text.partition("At or below it:")[2]


def test_a_period_the_statement_does_not_have_is_not_answered_from_another(apple_10q: Any, ask: Any) -> None:
    # Apple's cash-flow statement has nine-month columns only: no three-month capital expenditure.
    turn = ask("What was Apple's capital expenditure in the three months ended July 1, 2023?")
    assert not any(c["kind"] == "cell" for c in turn.claims)
    assert "Capital expenditure (Nine Months Ended" not in _answer(turn)


def test_without_a_company_name_the_filing_with_that_period_answers(apple_10q: Any, ask: Any) -> None:
    # Only Adobe's 10-Q has a six-month column ending 2 June 2023: purchases of property and equipment (222).
    turn = ask("What was the capital expenditure in the six months ended June 2, 2023?")
    _verified(turn)
    assert _answer(turn).startswith("Capital expenditure (Six Months Ended June 2, 2023): $222 million paid out")
