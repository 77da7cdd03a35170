"""Portfolio analytics (portfolios/analytics.py) at its edges, with values worked out by hand:
holdings at the limit, several bad tickers at once, weights that add up to less than one, the
alignment memo, more dropped dates than the examples show, growth that overflows, and an asset
that never moves (its correlations are 0, its share of the risk nothing)."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pytest

from core.exceptions import ApplicationError
from portfolios import analytics
from portfolios.market import Series

D = dt.date
UNSUPPORTED = "is not a ticker we support: use NSE (RELIANCE.NS), BSE (500325.BO), US (AAPL) or an index (^NSEI)."


def series(symbol: str, bars: list[tuple[dt.date, float]], version: int = 0) -> Series:
    dates = tuple(d for d, _ in bars)
    return Series(symbol=symbol, name=symbol, currency="INR", source="snapshot", dates=dates, version=version,
                  ordinals=np.array([d.toordinal() for d in dates], dtype=np.int64),
                  closes=np.array([c for _, c in bars]))  # fmt: skip


def refused(items: list[tuple[object, object]], *, normalise: bool = False) -> ApplicationError:
    with pytest.raises(ApplicationError) as caught:
        analytics.clean_holdings(items, normalise=normalise, max_holdings=3)
    assert caught.value.code == "invalid_input"
    return caught.value


def test_holdings_at_the_limit_and_weights_summing_below_one() -> None:
    full = analytics.clean_holdings([("A", 0.5), ("B", 0.25), ("C", 0.25)], normalise=False, max_holdings=3)
    assert (full.symbols, full.weights, full.notices) == (["A", "B", "C"], [0.5, 0.25, 0.25], [])
    half = analytics.clean_holdings([("A", 0.25), ("B", 0.25)], normalise=True, max_holdings=3)
    assert (half.symbols, half.weights) == (["A", "B"], [0.5, 0.5])
    assert half.notices == ["The weights added up to 0.5; they were normalised to add up to 1."]


def test_several_bad_entries_are_named_together() -> None:
    bad = refused([("!1", 1), ("!2", 1), ("!3", 1)])
    assert bad.message == f"'!1' {UNSUPPORTED} '!2' {UNSUPPORTED} '!3' {UNSUPPORTED}"
    with pytest.raises(ApplicationError) as six:
        analytics.clean_holdings([(f"!{i}", 1) for i in range(6)], normalise=False, max_holdings=9)
    assert six.value.message == " ".join(f"'!{i}' {UNSUPPORTED}" for i in range(5))  # the first five
    assert refused([("A", 0.2), ("a", 0.2), ("B", 0.3), ("b", 0.3)]).message == (
        "4 tickers is more than the 3 a portfolio may hold."
    )
    with pytest.raises(ApplicationError, match=r"^Each ticker may appear once; duplicated: A, B\.$"):
        analytics.clean_holdings([("A", 0.2), ("a", 0.2), ("B", 0.3), ("b", 0.3)], normalise=False, max_holdings=4)
    assert refused([("A", 0.5), ("B", "")]).message == "Give a weight for every ticker, or for none (equal weights)."
    word = "x" * 45
    assert refused([("A", word)]).message == f"The weight of A ('{'x' * 40}') is not a number."


def test_the_alignment_memo_is_keyed_on_each_series_version() -> None:
    days = [D(2025, 2, 3), D(2025, 2, 4), D(2025, 2, 5)]
    v1 = series("M.NS", list(zip(days, [10.0, 11.0, 12.0], strict=True)), version=101)
    v2 = series("M.NS", list(zip(days, [10.0, 12.0, 15.0], strict=True)), version=102)
    analytics._ALIGN_MEMO.clear()  # an earlier analysis in this process may have filled it
    first = analytics._align([v1])
    assert analytics._align([v1]) is first  # a warm re-analysis reuses the aligned matrix
    assert first[1].flags.writeable is False  # shared, so nobody may write into it
    assert analytics.analyse([v2], [1.0], rf_annual=0.0).total_return == pytest.approx(0.5)
    # without a version there is no memo: new closes are always read
    u1 = series("U.NS", list(zip(days, [10.0, 11.0, 12.0], strict=True)))
    u2 = series("U.NS", list(zip(days, [10.0, 12.0, 14.0], strict=True)))
    assert analytics.analyse([u1], [1.0], rf_annual=0.0).total_return == pytest.approx(0.2)
    assert analytics.analyse([u2], [1.0], rf_annual=0.0).total_return == pytest.approx(0.4)


def test_the_newest_five_dropped_dates_are_shown() -> None:
    every = [D(2025, 3, d) for d in range(3, 13)]  # 3..12 March
    a = series("A.NS", [(d, 100.0 + i) for i, d in enumerate(every)])
    b = series("B.NS", [(d, 50.0 + i) for i, d in enumerate(every[:4])])  # only 3..6 March
    out = analytics.analyse([a, b], [0.5, 0.5], rf_annual=0.0)
    assert out.dropped_dates == 6
    assert out.dropped_examples == [D(2025, 3, d) for d in (8, 9, 10, 11, 12)]


def test_short_or_broken_series_give_a_clear_error() -> None:
    days = [D(2025, 4, 1), D(2025, 4, 2), D(2025, 4, 3)]
    with pytest.raises(ApplicationError) as short:
        analytics.analyse([series("S.NS", list(zip(days[:2], [1.0, 2.0], strict=True)))], [1.0], rf_annual=0.0)
    assert short.value.message == "The holdings share fewer than three trading days; nothing to analyse."
    # each day's return is finite (×1e300) but the growth of one unit overflows on the second day
    huge = series("H.NS", list(zip(days, [1e-300, 1.0, 1e300], strict=True)))
    with pytest.raises(ApplicationError) as overflow:
        analytics.analyse([huge], [1.0], rf_annual=0.0)
    assert (overflow.value.code, overflow.value.message) == (
        "no_data",
        "The stored prices give no finite returns (a close of 0?); nothing to analyse.",
    )


def test_an_asset_that_never_moves_has_no_correlation_and_no_risk() -> None:
    days = [D(2025, 5, d) for d in (5, 6, 7, 8)]
    flat = series("F.NS", list(zip(days, [10.0, 10.0, 10.0, 10.0], strict=True)))
    moving = series("M.NS", list(zip(days, [100.0, 110.0, 99.0, 108.9], strict=True)))  # +10 %, −10 %, +10 %
    out = analytics.analyse([flat, moving], [0.5, 0.5], rf_annual=0.0)
    assert out.correlation == [[1.0, 0.0], [0.0, 1.0]]
    flat_row, moving_row = out.assets
    assert (flat_row["annualised_volatility"], flat_row["contribution_to_risk"]) == (0.0, 0.0)
    assert moving_row["contribution_to_risk"] == pytest.approx(1.0)
    assert moving_row["total_return"] == pytest.approx(0.089)
    assert flat_row["total_return"] == 0.0
    sd = math.sqrt(((0.1 - 1 / 30) ** 2 * 2 + (-0.1 - 1 / 30) ** 2) / 2)  # sample sd of +10 %, −10 %, +10 %
    assert moving_row["annualised_volatility"] == pytest.approx(sd * math.sqrt(252))


def test_a_portfolio_that_never_moves_has_no_risk_to_share() -> None:
    days = [D(2025, 5, d) for d in (5, 6, 7)]
    flat = [series(s, list(zip(days, [10.0, 10.0, 10.0], strict=True))) for s in ("F.NS", "G.NS")]
    out = analytics.analyse(flat, [0.5, 0.5], rf_annual=0.0)
    assert [row["contribution_to_risk"] for row in out.assets] == [0.0, 0.0]
    assert (out.total_return, out.annualised_volatility, out.sharpe, out.sortino) == (0.0, 0.0, None, None)
