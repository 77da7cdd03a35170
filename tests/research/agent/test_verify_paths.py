"""The chat verifier's other paths without a database: compare_returns horizons, a portfolio's
holdings and its own figures, the memo that keeps one cache read per symbol, and the edges of
the calc, table, quote and stray-figure checks. Expected values are worked out by hand here.

INFY.NS closes 100, 120, 90, 117 and TCS.NS 50, 55, 44, 66 on 31 Aug, 1 Sep, 29 Sep, 30 Sep 2025.
The portfolio's risk-free rate comes from the database (``_portfolio_risk_free``, covered with a
database by tests/research/agent/test_verified_numbers.py); here it is set to 5 % for portfolio 7."""

from __future__ import annotations

import datetime as dt
import math
import statistics
from decimal import Decimal
from typing import Any

import pytest

from core.exceptions import ApplicationError
from portfolios import recompute
from research.agent.verify import claims as verify
from research.agent.verify.claims import check_claim, recompute_calc

D = dt.date
DATES = [D(2025, 8, 31), D(2025, 9, 1), D(2025, 9, 29), D(2025, 9, 30)]
CLOSES = {"INFY.NS": [100.0, 120.0, 90.0, 117.0], "TCS.NS": [50.0, 55.0, 44.0, 66.0]}


class Bars:
    """The bars seam, counting the reads per symbol."""

    def __init__(self) -> None:
        self.reads: list[str] = []

    def __call__(self, symbol: str) -> tuple[list[dt.date], list[float]]:
        self.reads.append(symbol)
        if symbol not in CLOSES:
            raise ApplicationError("unknown_ticker", f"{symbol} is not in the cache.")
        return DATES, CLOSES[symbol]


def claim(key: str, path: list[Any], value: float, cid: str = "c1") -> dict[str, Any]:
    return {"id": cid, "kind": "tool", "result_key": key, "path": path, "value": value}


# compare_returns: INFY from the last bar on or before 2 Sep (1 Sep, 120) to 29 Sep (90): −25 %;
# the benchmark TCS from 31 Aug (50, the first bar) to 30 Sep (66): +32 %.
ROW = {"symbol": "INFY.NS", "start_date": "2025-09-01", "end_date": "2025-09-29",
       "start_close": 120.0, "end_close": 90.0, "return_pct": -25.0, "volatility_pct": 3.0}  # fmt: skip
BENCH = {"symbol": "TCS.NS", "start_date": "2025-08-31", "end_date": "2025-09-30",
         "start_close": 50.0, "end_close": 66.0, "return_pct": 32.0}  # fmt: skip


def compare(requested_start: str = "2025-09-02", **row: Any) -> dict[str, Any]:
    call = {"tool": "compare_returns", "requested_start": requested_start, "rows": [{**ROW, **row}], "benchmark": BENCH}
    return {"market_data:1": {"calls": [call]}}


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (["rows", 0, "start_close"], 120.0),
        (["rows", 0, "end_close"], 90.0),
        (["rows", 0, "return_pct"], -25.0),
        (["benchmark", "start_close"], 50.0),
        (["benchmark", "end_close"], 66.0),
        (["benchmark", "return_pct"], 32.0),
    ],
)
def test_a_compare_returns_figure_is_rederived_from_its_horizon(path: list[Any], value: float) -> None:
    c = claim("market_data:1", ["calls", 0, *path], value)
    outputs = compare() if path[0] == "rows" else compare(requested_start="2025-08-31")
    assert check_claim(c, outputs, {}, Bars()) is None
    assert (c["recompute"], c["recomputed"]) == ("bars", pytest.approx(value))


def test_a_horizon_with_the_wrong_baseline_is_not_verified() -> None:
    c = claim("market_data:1", ["calls", 0, "rows", 0, "return_pct"], -25.0)
    assert check_claim(c, compare(start_date="2025-08-31"), {}, Bars()) == (
        "c1: cannot recompute from the bars (INFY.NS: the baseline is not the last bar on or before 2025-09-02)"
    )
    # a horizon starting before the first bar has no baseline, even one dated like the last bar
    early = compare(requested_start="2025-08-01", start_date="2025-09-30")
    assert check_claim(claim("market_data:1", c["path"], -25.0), early, {}, Bars()) == (
        "c1: cannot recompute from the bars (INFY.NS: the baseline is not the last bar on or before 2025-08-01)"
    )


def test_only_the_horizon_fields_of_compare_returns_are_rederived() -> None:
    vol = claim("market_data:1", ["calls", 0, "rows", 0, "volatility_pct"], 3.0)
    assert check_claim(vol, compare(), {}, Bars()) is None
    assert (vol["recompute"], vol["recomputed"]) == ("output_only", None)
    other = {"market_data:1": {"calls": [{"tool": "get_fundamentals", "return_pct": 4.0}]}}
    ret = claim("market_data:1", ["calls", 0, "return_pct"], 4.0)
    assert check_claim(ret, other, {}, Bars()) is None
    assert ret["recompute"] == "output_only"


# analyze_portfolio: INFY 60 %, TCS 40 % from 1 Sep to 30 Sep. Daily returns: 29 Sep
# 0.6 × (90/120 − 1) + 0.4 × (44/55 − 1) = −0.23; 30 Sep 0.6 × (117/90 − 1) + 0.4 × (66/44 − 1) = 0.38.
PORTFOLIO: dict[str, Any] = {"portfolio_id": 7, "start": "2025-09-01", "end": "2025-09-30",
             "assets": [{"symbol": "INFY.NS", "weight": 0.6}, {"symbol": "TCS.NS", "weight": 0.4, "total_return": 0.2}],
             "total_return": 0.0626, "max_drawdown": -0.23}  # fmt: skip
RETURNS = [-0.23, 0.38]


@pytest.fixture
def risk_free(monkeypatch: pytest.MonkeyPatch) -> None:
    def rate(out: dict[str, Any]) -> float:
        assert out["portfolio_id"] == 7
        return 0.05

    monkeypatch.setattr(verify, "_portfolio_risk_free", rate)


def _sharpe_by_hand(returns: list[float], rf: float) -> float:
    excess = [r - ((1 + rf) ** (1 / 252) - 1) for r in returns]
    return statistics.mean(excess) / statistics.stdev(excess) * math.sqrt(252)


@pytest.mark.usefixtures("risk_free")
def test_a_portfolio_figure_is_recomputed_from_the_holdings_bars() -> None:
    outputs = {"portfolio_analyzer:1": PORTFOLIO}
    memo: dict[str, Any] = {}
    total = claim("portfolio_analyzer:1", ["total_return"], 0.0626)
    assert check_claim(total, outputs, {}, Bars(), memo) is None
    assert total["recomputed"] == pytest.approx(0.77 * 1.38 - 1)
    # the memo keeps the portfolio's daily returns for the output's other claims
    assert list(memo) == ["portfolio returns of portfolio_analyzer:1"]
    assert memo["portfolio returns of portfolio_analyzer:1"] == pytest.approx(RETURNS)
    sharpe = _sharpe_by_hand(RETURNS, 0.05)
    outputs["portfolio_analyzer:1"] = {**PORTFOLIO, "sharpe": sharpe}
    s = claim("portfolio_analyzer:1", ["sharpe"], sharpe)
    assert check_claim(s, outputs, {}, Bars()) is None
    assert (s["recompute"], s["recomputed"]) == ("bars", pytest.approx(sharpe))
    dd = claim("portfolio_analyzer:1", ["max_drawdown"], -0.23)
    assert check_claim(dd, outputs, {}, Bars()) is None
    assert dd["recomputed"] == pytest.approx(-0.23)


def test_a_holdings_total_return_runs_from_its_first_to_its_last_day() -> None:
    assets = [PORTFOLIO["assets"][0], {"symbol": "TCS.NS", "weight": 0.4, "total_return": -0.2}]
    outputs = {"portfolio_analyzer:1": {**PORTFOLIO, "end": "2025-09-29", "assets": assets}}
    c = claim("portfolio_analyzer:1", ["assets", 1, "total_return"], -0.2)  # 44 / 55 − 1
    assert check_claim(c, outputs, {}, Bars()) is None
    assert (c["recompute"], c["recomputed"]) == ("bars", pytest.approx(-0.2))
    weight = claim("portfolio_analyzer:1", ["assets", 1, "weight"], 0.4)
    assert check_claim(weight, outputs, {}, Bars()) is None
    assert weight["recompute"] == "output_only"
    # over the last two days only: 66 / 44 − 1
    late = {
        "portfolio_analyzer:1": {
            **PORTFOLIO,
            "start": "2025-09-29",
            "assets": [*assets[:1], {**assets[1], "total_return": 0.5}],
        }
    }
    c = claim("portfolio_analyzer:1", ["assets", 1, "total_return"], 0.5)
    assert check_claim(c, late, {}, Bars()) is None
    assert c["recomputed"] == pytest.approx(0.5)


def test_figures_other_tools_report_under_metric_names_are_read_from_the_output() -> None:
    fundamentals = {"tool": "get_fundamentals", "symbol": "INFY.NS", "as_of": "2025-09-30", "last_close": 118.0,
                    "close": 118.0, "total_return": 0.3, "bars": [{"date": "2025-09-30", "close": 118.0}]}  # fmt: skip
    history = {"tool": "get_price_history", "symbol": "INFY.NS", "bars": [{"date": "2025-09-30", "volume": 5.0}]}
    outputs = {"market_data:1": {"calls": [fundamentals, history]}}
    for path, value in [
        (["calls", 0, "last_close"], 118.0),
        (["calls", 0, "close"], 118.0),
        (["calls", 0, "total_return"], 0.3),
        (["calls", 0, "bars", 0, "close"], 118.0),
        (["calls", 1, "bars", 0, "volume"], 5.0),
    ]:
        c = claim("market_data:1", path, value)
        assert check_claim(c, outputs, {}, Bars()) is None, path
        assert (c["recompute"], c["recomputed"]) == ("output_only", None), path


@pytest.mark.usefixtures("risk_free")
def test_an_answer_reads_each_symbol_once_and_each_portfolio_once(monkeypatch: pytest.MonkeyPatch) -> None:
    computed: list[list[float]] = []
    original = recompute.portfolio_returns

    def counted(*args: Any, **kwargs: Any) -> tuple[list[dt.date], list[float]]:
        result = original(*args, **kwargs)
        computed.append(result[1])
        return result

    monkeypatch.setattr(recompute, "portfolio_returns", counted)
    # a second portfolio, all in TCS from 1 Sep: 44/55 − 1 = −0.2, then 66/44 − 1 = +0.5 → total +0.2
    tcs_only = {**PORTFOLIO, "assets": [{"symbol": "TCS.NS", "weight": 1.0}], "total_return": 0.2}
    outputs = {"portfolio_analyzer:1": PORTFOLIO, "portfolio_analyzer:2": tcs_only,
               "market_data:1": {"calls": [{"tool": "get_stock_quote", "symbol": "INFY.NS", "as_of": "2025-09-30",
                                            "last_close": 117.0}]}}  # fmt: skip
    claims = [
        claim("portfolio_analyzer:1", ["total_return"], 0.0626, "c1"),
        claim("portfolio_analyzer:1", ["max_drawdown"], -0.23, "c2"),
        claim("portfolio_analyzer:2", ["total_return"], 0.2, "c3"),
        claim("market_data:1", ["calls", 0, "last_close"], 117.0, "c4"),
        {"id": "c5", "kind": "calc", "expression": "ratio(3, 4)", "value": 0.75},
        {"id": "c6", "kind": "quote", "chunk_id": 4, "display": "4.5 per cent"},
    ]
    bars = Bars()
    result = verify.verify_answer("[[c1]] [[c2]] [[c3]] [[c4]] [[c5]] [[c6]]", claims, question="", outputs=outputs,
                                  chunk_texts={4: "at 4.5 per cent"}, citations=[], bars=bars)  # fmt: skip
    assert (result["status"], result["problems"], result["checked"]) == ("verified", [], 6)
    assert sorted(bars.reads) == ["INFY.NS", "TCS.NS"]
    assert computed == [pytest.approx(RETURNS), pytest.approx([-0.2, 0.5])]
    assert result["claims"] == [
        {"id": "c1", "recompute": "bars", "recomputed": pytest.approx(0.0626)},
        {"id": "c2", "recompute": "bars", "recomputed": pytest.approx(-0.23)},
        {"id": "c3", "recompute": "bars", "recomputed": pytest.approx(0.2)},
        {"id": "c4", "recompute": "bars", "recomputed": 117.0},
    ]


def test_a_failed_check_is_reported_in_the_answer() -> None:
    claims = [claim("market_data:1", ["calls", 0, "last_close"], 118.0)]
    outputs = {"market_data:1": {"calls": [{"tool": "get_stock_quote", "symbol": "INFY.NS", "as_of": "2025-09-30",
                                            "last_close": 118.0}]}}  # fmt: skip
    result = verify.verify_answer("[[c1]]", claims, question="", outputs=outputs, chunk_texts={}, citations=[],
                                  bars=Bars())  # fmt: skip
    assert result["problems"] == ["c1: recomputed from the bars 117.0, the claim says 118.0"]


def test_result_keys_and_timestamps_are_read_as_written() -> None:
    quote = {"tool": "get_stock_quote", "symbol": "INFY.NS", "as_of": "2025-09-30T15:30:00+05:30", "last_close": 117.0}
    c = claim("market_data:run:1", ["calls", 0, "last_close"], 117.0)  # the node is before the first colon
    assert check_claim(c, {"market_data:run:1": {"calls": [quote]}}, {}, Bars()) is None
    assert c["recompute"] == "bars"
    # a node other than market_data holds no tool calls, whatever its output looks like
    other = claim("web_search:1", ["calls", 0, "last_close"], 117.0)
    assert check_claim(other, {"web_search:1": {"calls": [quote]}}, {}, Bars()) is None
    assert other["recompute"] == "output_only"
    first = {"tool": "get_price_history", "symbol": "INFY.NS", "bars": [{"date": "2025-08-31", "close": 100.0}]}
    bar = claim("market_data:1", ["calls", 0, "bars", 0, "close"], 100.0)  # the first bar of the cache
    assert check_claim(bar, {"market_data:1": {"calls": [first]}}, {}, Bars()) is None
    assert (bar["recompute"], bar["recomputed"]) == ("bars", 100.0)
    # a claim with no result key reads the output stored under the empty key
    bare = {"id": "c1", "kind": "tool", "path": ["value"], "value": 3.0}
    assert check_claim(bare, {"": {"value": 3.0}}, {}, Bars()) is None
    assert bare["recompute"] == "output_only"


def test_exact_decimal_recomputation() -> None:
    assert recompute_calc("ratio(1, 3)") == Decimal("0.3333333333333333333333333333")  # 28 digits
    assert recompute_calc("1 + .") is None
    assert recompute_calc("(1 + 2") is None
