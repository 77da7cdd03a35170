"""The chat verifier (research/agent/verify/claims.py) without a database: each kind of claim checked
against values worked out by hand, tampering caught, and figures nothing vouches for refused.

The bars are handed to the verifier as its ``bars`` argument (the seam it has for this): INFY.NS
closes 100, 120, 90, 117 on 31 Aug, 1 Sep, 29 Sep, 30 Sep 2025."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from core.exceptions import ApplicationError
from research.agent.verify.claims import check_claim, recompute_calc, render_text, verify_answer

D = dt.date
DATES = [D(2025, 8, 31), D(2025, 9, 1), D(2025, 9, 29), D(2025, 9, 30)]
CLOSES = [100.0, 120.0, 90.0, 117.0]


def bars(symbol: str) -> tuple[list[dt.date], list[float]]:
    if symbol != "INFY.NS":
        raise ApplicationError("unknown_ticker", f"{symbol} is not in the cache.")
    return DATES, CLOSES


QUOTE = {"tool": "get_stock_quote", "symbol": "INFY.NS", "as_of": "2025-09-30", "last_close": 117.0,
         "change_1d_pct": 30.0, "return_30d_pct": 17.0}  # fmt: skip


def _tool_claim(path: list[Any], value: float, **extra: Any) -> dict[str, Any]:
    return {"id": "c1", "kind": "tool", "result_key": "market_data:1", "path": path, "value": value, **extra}


@pytest.mark.parametrize(("field", "value"), [("last_close", 117.0), ("change_1d_pct", 30.0), ("return_30d_pct", 17.0)])
def test_a_quote_figure_is_recomputed_from_the_bars(field: str, value: float) -> None:
    output = {"calls": [QUOTE]}
    claim = _tool_claim(["calls", 0, field], value)
    assert check_claim(claim, {"market_data:1": output}, {}, bars) is None
    assert (claim["recompute"], claim["recomputed"]) == ("bars", pytest.approx(value))


def test_a_tampered_tool_figure_is_caught_twice() -> None:
    forged_output = {"calls": [{**QUOTE, "last_close": 117.01}]}  # the stored output itself was altered
    claim = _tool_claim(["calls", 0, "last_close"], 117.01)
    assert check_claim(claim, {"market_data:1": forged_output}, {}, bars) == (
        "c1: recomputed from the bars 117.0, the claim says 117.01"
    )
    lying = _tool_claim(["calls", 0, "last_close"], 118.0)  # the claim differs from its output
    assert check_claim(lying, {"market_data:1": {"calls": [QUOTE]}}, {}, bars) == (
        "c1: tool output says 117.0, the claim says 118.0"
    )
    missing = _tool_claim(["calls", 0, "high_52w"], 120.0)
    assert check_claim(missing, {"market_data:1": {"calls": [QUOTE]}}, {}, bars) == (
        "c1: the tool output has no value at ['calls', 0, 'high_52w']"
    )


def test_bars_that_cannot_be_had_leave_the_claim_unverified() -> None:
    later = {"calls": [{**QUOTE, "as_of": "2025-10-01"}]}
    claim = _tool_claim(["calls", 0, "last_close"], 117.0)
    assert check_claim(claim, {"market_data:1": later}, {}, bars) == (
        "c1: cannot recompute from the bars (the cached bars of INFY.NS have no bar dated 2025-10-01)"
    )
    assert (claim["recompute"], claim["recomputed"]) == ("bars", None)
    other = {"calls": [{**QUOTE, "symbol": "TCS.NS"}]}
    assert check_claim(_tool_claim(["calls", 0, "last_close"], 117.0), {"market_data:1": other}, {}, bars) == (
        "c1: cannot recompute from the bars (no bars for TCS.NS: TCS.NS is not in the cache.)"
    )


def test_a_price_history_close_is_read_from_the_cache_on_its_own_date() -> None:
    history = {"tool": "get_price_history", "symbol": "INFY.NS", "bars": [{"date": "2025-09-01", "close": 120.0}]}
    claim = _tool_claim(["calls", 0, "bars", 0, "close"], 120.0)
    assert check_claim(claim, {"market_data:1": {"calls": [history]}}, {}, bars) is None
    assert claim["recomputed"] == 120.0
    fundamentals = {"tool": "get_fundamentals", "symbol": "INFY.NS", "trailing_pe": 24.5}
    pe = _tool_claim(["calls", 0, "trailing_pe"], 24.5)
    assert check_claim(pe, {"market_data:1": {"calls": [fundamentals]}}, {}, bars) is None
    assert (pe["recompute"], pe["recomputed"]) == ("output_only", None)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("pct_change(80, 100)", Decimal(25)),
        ("growth_rate(-50, -25)", Decimal(50)),
        ("ratio(3, 4)", Decimal("0.75")),
        ("cagr(100, 121, 2)", Decimal(10)),
        ("2 ** 3 ** 2", Decimal(512)),  # right-associative
        ("(1 + 2) * 3 - 4 / 8", Decimal("8.5")),
        ("-2 ** 2", Decimal(-4)),
        ("7 % 4 + +1", Decimal(4)),
    ],
)
def test_calculations_are_recomputed_independently(expression: str, expected: Decimal) -> None:
    assert recompute_calc(expression) == pytest.approx(expected)


@pytest.mark.parametrize("expression", ["ratio(1, 0)", "(1 + 2", "1 + 2)", "2 +", "sqrt(4)", "1 $ 2", ""])
def test_what_cannot_be_recomputed_is_said_so(expression: str) -> None:
    assert recompute_calc(expression) is None


def test_calc_table_and_quote_claims() -> None:
    calc = {"id": "c2", "kind": "calc", "expression": "pct_change(80, 100)", "value": 25.0}
    assert check_claim(calc, {}, {}, bars) is None
    assert check_claim({**calc, "value": 25.001}, {}, {}, bars) == "c2: recomputed 25, the claim says 25.001"
    assert check_claim({**calc, "expression": "sqrt(4)"}, {}, {}, bars) == "c2: cannot recompute"
    assert check_claim({**calc, "expression": "sqrt(4)", "recompute": "not_applicable"}, {}, {}, bars) is None
    votes = {7: "Resolution ... Member Vote Dr. A Yes Dr. B Yes Prof. C No Statement by Dr. A"}
    table = {"id": "c3", "kind": "table", "chunk_id": 7, "value": 2, "against": 1, "display": "2 to 1"}
    assert check_claim(table, {}, votes, bars) is None
    assert check_claim({**table, "value": 3}, {}, votes, bars) == (
        "c3: re-counting the table gives (2, 1), the claim says '2 to 1'"
    )
    passage = {9: "CPI inflation is projected at\n4.5 per cent for 2024-25."}
    quote = {"id": "c4", "kind": "quote", "chunk_id": 9, "display": "4.5 per cent"}
    assert check_claim(quote, {}, passage, bars) is None
    assert check_claim({**quote, "display": "4.6 per cent"}, {}, passage, bars) == (
        "c4: the cited passage does not contain '4.6 per cent'"
    )
    assert check_claim({"id": "c5", "kind": "guess"}, {}, {}, bars) == "c5: unknown claim kind 'guess'"


def test_an_answer_verifies_only_when_every_figure_is_vouched_for() -> None:
    claims = [{"id": "c1", "kind": "calc", "expression": "ratio(3, 4)", "value": 0.75, "display": "0.75"}]
    template = "The ratio is [[c1]] on 30 Sep 2025 over the 30-day window of NIFTY 50 [Source: note 7]."
    ok = verify_answer(template, claims, question="ratio of 3 to 4?", outputs={}, chunk_texts={}, citations=[],
                       bars=bars, names=["NIFTY 50"])  # fmt: skip
    assert (ok["status"], ok["checked"], ok["problems"]) == ("verified", 1, [])
    bad = verify_answer("It is [[c1]], up 12.5 and [[c9]]; “made up” he said.", claims, question="ratio of 3 to 4?",
                        outputs={}, chunk_texts={}, citations=[], bars=bars)  # fmt: skip
    assert bad["status"] == "failed" and bad["problems"] == [
        "[[c9]] refers to no claim",
        "the quote “made up…” is not verbatim in a cited passage",
        "the figure 12.5 is neither a tool claim nor a quoted passage",
    ]
    echoed = verify_answer("You asked about 12.5.", [], question="What is 12.5?", outputs={}, chunk_texts={},
                           citations=[], bars=bars)  # fmt: skip
    assert echoed["status"] == "verified"


def test_rendering_replaces_each_reference_by_its_display() -> None:
    claims = [{"id": "c1", "display": "₹117.00"}, {"id": "c2", "display": "+30.00%"}]
    assert (
        render_text("Closed at [[c1]] ([[c2]]); [[c3]] stays.", claims) == "Closed at ₹117.00 (+30.00%); [[c3]] stays."
    )
