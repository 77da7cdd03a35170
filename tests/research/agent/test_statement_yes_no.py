"""Yes/no questions that need a calculation over statement cells, and margins asked as a percentage
(research/agent/compose/statements/yes_no.py, compose/statements/formula.py), over the four filings of
test_statement_answers.py (Apple's 10-Q to 1 July 2023, eBay's Q1 2023 release, Adobe's 10-Q to 2
June 2023, Costco's Q3 fiscal 2023 release). Every expected figure was read by hand from the
filings' statements and computed by hand from those cells."""

from __future__ import annotations

from typing import Any

import pytest

from research.agent.compose.statements.formula import spelled_terms
from research.agent.compose.statements.yes_no import Test as YesNo
from research.agent.compose.statements.yes_no import parse_test
from research.agent.verify.claims import render_text


def _verified_text(turn: Any) -> str:
    assert turn.status == "done", (turn.status, turn.verification["problems"])
    assert turn.verification["status"] == "verified", turn.verification
    return render_text(turn.answer, turn.claims)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Did services exceed 25% of Apple's net sales in the quarter?", YesNo("share", True, 25.0, "25%")),
        ("Was more than half of eBay's volume from the U.S.?", YesNo("share", True, 50.0, "half")),
        ("Did fees make up less than 2% of total revenue?", YesNo("share", False, 2.0, "2%")),
        ("Did eBay's net revenues grow by more than 5% year over year?", YesNo("growth", True, 5.0, "5%")),
        ("Did McDonald's net income more than double year over year?", YesNo("times", True, 2.0, "double")),
        ("Did Costco's operating income decline year over year?", YesNo("change", False)),
        ("Did Intel's research and development exceed its gross margin in dollars?", YesNo("versus", True)),
        ("Did Adobe's R&D expense grow faster than its total revenue?", YesNo("faster", True)),
        ("Was eBay's gross margin above 70% in the quarter?", YesNo("level", True, 70.0, "70%")),
        ("Was the effective tax rate below 21%?", YesNo("level", False, 21.0, "21%")),
        ("What was Apple's services share of net sales?", None),  # not a yes/no question
    ],
)
def test_the_yes_no_test_a_question_asks(question: str, expected: YesNo | None) -> None:
    assert parse_test(question) == expected


def test_a_spelled_out_margin_names_its_three_terms() -> None:
    found = spelled_terms(
        "What was the merchandise gross margin (net sales less merchandise costs, as a percentage of net sales)?"
    )
    assert found == (
        "merchandise gross margin",
        ("revenue", "cost_of_revenue", "revenue"),
        ("net sales", "merchandise costs", "net sales"),
    )
    assert spelled_terms("What was the gross margin in the quarter?") is None


@pytest.mark.django_db
@pytest.mark.usefixtures("apple_10q")
def test_a_share_above_the_threshold_says_yes_first(ask: Any) -> None:
    text = _verified_text(ask("Did services exceed 25% of Apple's net sales in the quarter ended July 1, 2023?"))
    # Services 21,213 / total net sales 81,797 = 25.934 %
    assert text.startswith("Yes. Services was 25.93% [Calculated: 21213 / 81797 * 100] of revenue")
    assert "That is above 25% of revenue." in text and "(PDF p. 4)" in text


@pytest.mark.django_db
@pytest.mark.usefixtures("apple_10q")
def test_a_share_below_the_threshold_says_no(ask: Any) -> None:
    text = _verified_text(ask("Did services exceed 30% of Apple's net sales in the quarter ended July 1, 2023?"))
    assert text.startswith("No. Services was 25.93%") and "at or below 30% of revenue" in text


@pytest.mark.django_db
@pytest.mark.usefixtures("apple_10q")
def test_growth_below_the_threshold_says_no(ask: Any) -> None:
    text = _verified_text(
        ask("Did eBay's net revenues grow by more than 5% year over year in the first quarter of 2023?")
    )
    # 2,510 against 2,483: +27, +1.087 %
    assert text.startswith("No. Revenue rose from $2,483 million")
    assert "+1.09% [Calculated: pct_change(2483, 2510)]" in text and "That is at or below 5%." in text


@pytest.mark.django_db
@pytest.mark.usefixtures("apple_10q")
def test_more_than_double_is_the_ratio_of_the_two_cells(ask: Any) -> None:
    text = _verified_text(
        ask("Did Apple's net income more than double year over year in the quarter ended July 1, 2023?")
    )
    # 19,881 / 19,442 = 1.0226
    assert text.startswith("No. Net income rose from $19,442 million")
    assert "1.02× [Calculated: ratio(19881, 19442)] the earlier one: not more than double." in text


@pytest.mark.django_db
@pytest.mark.usefixtures("apple_10q")
def test_a_decline_says_yes_with_both_cells(ask: Any) -> None:
    text = _verified_text(
        ask("Did Costco's operating income decline year over year in the third quarter of fiscal 2023?")
    )
    # 1,679 (12 weeks to 7 May 2023) against 1,791 (to 8 May 2022): −112, −6.25 %
    assert text.startswith("Yes. Operating income fell from $1,791 million (12 Weeks Ended May 8, 2022)")
    assert "−$112 million [Calculated: 1679 - 1791]" in text


@pytest.mark.django_db
@pytest.mark.usefixtures("apple_10q")
def test_one_line_exceeding_another_is_their_difference(ask: Any) -> None:
    text = _verified_text(
        ask(
            "Did Apple's research and development exceed its selling, general and administrative expenses "
            "in the quarter ended July 1, 2023?"
        )
    )
    # R&D 7,442 against SG&A 5,973: +1,469
    assert text.startswith("Yes. Research and development $7,442 million against")
    assert "$5,973 million" in text and "+$1,469 million [Calculated: 7442 - 5973]" in text


@pytest.mark.django_db
@pytest.mark.usefixtures("apple_10q")
def test_growing_faster_compares_two_growth_rates(ask: Any) -> None:
    text = _verified_text(
        ask(
            "Did Adobe's research and development expense grow faster than its total revenue year over year "
            "in the quarter ended June 2, 2023?"
        )
    )
    # R&D 876 against 738: +18.70 %; total revenue 4,816 against 4,386: +9.80 %
    assert text.startswith("Yes. Research and development grew +18.70% [Calculated: pct_change(738, 876)]")
    assert "revenue grew +9.80% [Calculated: pct_change(4386, 4816)]" in text


@pytest.mark.django_db
@pytest.mark.usefixtures("apple_10q")
def test_a_gross_margin_is_a_percentage_not_the_dollar_line(ask: Any) -> None:
    text = _verified_text(ask("What was eBay's gross margin in the first quarter of 2023?"))
    # gross profit 1,810 / net revenues 2,510 = 72.11 %
    assert "72.11% [Calculated: 1810 / 2510 * 100]" in text


@pytest.mark.django_db
@pytest.mark.usefixtures("apple_10q")
def test_a_spelled_out_margin_reads_the_rows_as_written(ask: Any) -> None:
    text = _verified_text(
        ask(
            "What was Costco's merchandise gross margin (net sales less merchandise costs, as a percentage of "
            "net sales) in the third quarter of fiscal 2023?"
        )
    )
    # (net sales 52,604 − merchandise costs 47,175) / 52,604 = 10.32 % (not total revenue 53,648)
    assert text.startswith("Merchandise gross margin (12 Weeks Ended May 7, 2023): 10.32%")
    assert "[Calculated: (52604 - 47175) / 52604 * 100]" in text


@pytest.mark.django_db
@pytest.mark.usefixtures("apple_10q")
def test_a_margin_against_a_threshold(ask: Any) -> None:
    above = _verified_text(ask("Was eBay's gross margin above 70% in the first quarter of 2023?"))
    # gross profit 1,810 / net revenues 2,510 = 72.11 %
    assert above.startswith("Yes. Gross margin percentage (Three Months Ended March 31, 2023): 72.11%")
    assert "That is above 70%." in above
    below = _verified_text(ask("Was Adobe's operating margin below 30% in the three months ended June 2, 2023?"))
    # operating income 1,624 / total revenue 4,816 = 33.72 %
    assert below.startswith("No. Operating margin (Three Months Ended June 2, 2023): 33.72%")
