"""The deterministic judge: number normalisation, figure matching, exact recomputation, citations
and tracing of shown figures. Expected values are written by hand."""

from __future__ import annotations

from decimal import Decimal

import pytest

from evaluation import judge


@pytest.mark.parametrize(
    ("expected", "shown"),
    [
        ("6.50%", "the repo rate was kept at 6.5 per cent"),
        ("6.5 per cent", "unchanged at 6.50%"),
        ("6.50%", "6.50 percent"),
        ("1441.80", "last close 1,441.80 INR"),
        ("-3.85%", "Result: -3.85 %"),
        ("1410000", "₹14,10,000 crore"),
        ("25 bps", "a cut of 25 basis points"),
        ("-0.27%", "1-day change −0.27 %"),
    ],
)
def test_expected_figure_is_found_after_normalisation(expected: str, shown: str) -> None:
    assert judge.missing_figures([expected], shown) == []


@pytest.mark.parametrize(
    ("expected", "shown"),
    [
        ("6.50%", "6.25 per cent"),
        ("6.50%", "6.5 bps"),  # a percent is not basis points
        ("1441.80", "1,441.90"),
        ("2.88%", "2.9 %"),  # shown less precisely than expected: 2.9 does not round to 2.88
    ],
)
def test_a_different_figure_is_missing(expected: str, shown: str) -> None:
    assert judge.missing_figures([expected], shown) == [expected]


def test_figure_parse_units_and_places() -> None:
    assert judge.figure("6.5 per cent") == judge.Figure(Decimal("6.5"), 1, "%")
    assert judge.figure("−12.14%") == judge.Figure(Decimal("-12.14"), 2, "%")
    with pytest.raises(ValueError, match="exactly one figure"):
        judge.figure("6.5 and 7.0")


def test_exact_recompute_of_calculator_expressions() -> None:
    assert judge.recompute("pct_change(6.50, 6.25)") == pytest.approx(-3.846153846, abs=1e-9)
    assert judge.recompute("(1523.2 - 1480.5) / 1480.5 * 100") == pytest.approx(2.884160756, abs=1e-9)
    assert judge.recompute("0.4*12.1 + 0.6*8.3") == Decimal("9.82")  # exact: Fraction compares equal
    assert judge.recompute("12.5% * 200") == 25
    assert judge.recompute("__import__('os')") is None


CHUNKS = {
    7: {
        "text": "the MPC decided to keep the policy repo rate unchanged at 6.50 per cent.",
        "title": "RBI MPC Minutes, August 2024",
        "page": "3",
        "stem": "x",
    },
}


def test_citation_resolves_only_to_its_stored_passage_title_and_page() -> None:
    good = {"chunk_id": 7, "citation": "RBI MPC Minutes, August 2024, p. 3", "quote": "unchanged at 6.50 per cent."}
    assert judge.citation_resolves(good, CHUNKS)
    assert not judge.citation_resolves({**good, "citation": "RBI MPC Minutes, August 2024, p. 4"}, CHUNKS)
    assert not judge.citation_resolves({**good, "quote": "unchanged at 6.25 per cent."}, CHUNKS)
    assert not judge.citation_resolves({**good, "chunk_id": 99}, CHUNKS)


def test_trace_figures_counts_quotes_tool_claims_and_refuses_the_rest() -> None:
    steps = [{"node": "market_data", "outputs": {"calls": [{"last_close": 1441.8}]}}]
    claims = [
        {
            "kind": "tool",
            "result_key": "market_data:0",
            "path": ["calls", 0, "last_close"],
            "value": 1441.8,
            "display": "1,441.80",
        },
        {"kind": "calc", "expression": "pct_change(6.50, 6.25)", "value": -3.8461538461538463, "display": "-3.85 %"},
    ]
    answer = (
        "“the MPC decided to keep the policy repo rate unchanged at 6.50 per cent.” "
        "[Source: RBI MPC Minutes, August 2024, p. 3]\n"
        "INFY last close 1,441.80 INR on 2025-09-30, 30-day return n/a. "
        "Result: -3.85 % [Calculated: pct_change(6.50, 6.25)]"
    )
    assert judge.trace_figures(answer, "question", claims, steps, CHUNKS) == (3, 3, [])
    traced, shown, problems = judge.trace_figures(
        answer + " The rate will be 9.25 per cent.", "q", claims, steps, CHUNKS
    )
    assert (traced, shown) == (3, 4) and "9.25" in problems[0]
    # A tool claim whose stored output says something else is not traced.
    moved = [{"node": "market_data", "outputs": {"calls": [{"last_close": 1441.81}]}}]
    assert judge.trace_figures("close 1,441.80", "q", claims, moved, CHUNKS)[:2] == (0, 1)
    # A figure the question gave may be repeated.
    assert judge.trace_figures("You asked about 2,500.", "INFY closed at 2,500", [], [], {})[:2] == (0, 0)


def test_a_vote_split_is_one_compound_figure_matched_whole() -> None:
    # A vote split such as 4–2 is one figure: "4" and "2" found apart are not the split.
    assert judge.missing_figures(["4–2"], "The MPC voted 4-2 to keep the repo rate.") == []
    assert judge.missing_figures(["4–2"], "The MPC voted 4 – 2 to keep the repo rate.") == []
    assert judge.missing_figures(["4–2"], "Four members (2 external) voted; 4 in favour.") == ["4–2"]
    assert judge.expected_figure("6–0") == "6–0"
    with pytest.raises(ValueError):
        judge.expected_figure("no figure here")
