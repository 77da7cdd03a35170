"""Portfolio analytics (portfolios/analytics.py) on two holdings and a benchmark small enough to check
by hand, with Python's ``statistics`` and empyrical-reloaded as peers for the moments and ratios.

A trades on 1, 2, 3, 6 and 7 Jan; B on 1, 2, 6, 7 and 8 Jan: the common days are 1, 2, 6 and 7 Jan
and two dates are dropped (3 Jan, 8 Jan). On the common days A returns +10 %, −1 %, +10 % and B
−10 %, −20 %, +50 %; half in each gives 0 %, −10.5 %, +30 %: growth 1, 1, 0.895, 1.1635.
"""

from __future__ import annotations

import datetime as dt
import math
import statistics

import empyrical
import numpy as np
import pandas as pd
import pytest

from core.exceptions import ApplicationError
from portfolios import analytics
from portfolios.market import Series

D = dt.date
ROOT_252 = math.sqrt(252)


def _series(symbol: str, bars: list[tuple[dt.date, float]]) -> Series:
    dates = tuple(d for d, _ in bars)
    return Series(symbol=symbol, name=f"{symbol} Ltd", currency="INR", source="snapshot", dates=dates,
                  ordinals=np.array([d.toordinal() for d in dates], dtype=np.int64),
                  closes=np.array([c for _, c in bars]))  # fmt: skip


A = _series("A.NS", [(D(2025, 1, 1), 100.0), (D(2025, 1, 2), 110.0), (D(2025, 1, 3), 99.0),
                     (D(2025, 1, 6), 108.9), (D(2025, 1, 7), 119.79)])  # fmt: skip
B = _series("B.NS", [(D(2025, 1, 1), 50.0), (D(2025, 1, 2), 45.0), (D(2025, 1, 6), 36.0),
                     (D(2025, 1, 7), 54.0), (D(2025, 1, 8), 60.0)])  # fmt: skip
BENCH = _series("^NSEI", [(D(2025, 1, 1), 1000.0), (D(2025, 1, 2), 1010.0), (D(2025, 1, 3), 1020.0),
                          (D(2025, 1, 7), 1050.0)])  # fmt: skip
RA, RB = [0.1, -0.01, 0.1], [-0.1, -0.2, 0.5]
PORT = [0.0, -0.105, 0.3]


def test_the_portfolio_figures_and_the_dropped_dates() -> None:
    out = analytics.analyse([A, B], [0.5, 0.5], rf_annual=0.05)
    assert (out.start, out.end, out.observations) == (D(2025, 1, 1), D(2025, 1, 7), 3)
    assert out.dates == [D(2025, 1, 1), D(2025, 1, 2), D(2025, 1, 6), D(2025, 1, 7)]
    assert (out.dropped_dates, out.dropped_examples) == (2, [D(2025, 1, 3), D(2025, 1, 8)])
    assert out.growth == pytest.approx([1.0, 1.0, 0.895, 1.1635])
    assert out.total_return == pytest.approx(0.1635)
    assert out.annualised_return == pytest.approx(1.1635**84 - 1, rel=1e-9)
    assert out.annualised_volatility == pytest.approx(statistics.stdev(PORT) * ROOT_252, rel=1e-12)
    rf_daily = 1.05 ** (1 / 252) - 1
    series = pd.Series(PORT)
    assert out.sharpe == pytest.approx(empyrical.sharpe_ratio(series, risk_free=rf_daily), rel=1e-9)
    assert out.sortino == pytest.approx(empyrical.sortino_ratio(series, required_return=rf_daily), rel=1e-9)
    assert (out.max_drawdown, out.max_drawdown_peak, out.max_drawdown_trough) == (
        pytest.approx(-0.105),
        D(2025, 1, 1),
        D(2025, 1, 6),
    )
    assert out.drawdown == pytest.approx([0.0, 0.0, -0.105, 0.0])
    rho = statistics.correlation(RA, RB)
    assert out.correlation[0] == pytest.approx([1.0, rho]) and out.correlation[1] == pytest.approx([rho, 1.0])


def test_each_holdings_own_growth_volatility_total_return_and_shares() -> None:
    out = analytics.analyse([A, B], [0.25, 0.75], rf_annual=0.0)
    a, b = out.assets
    assert (a["symbol"], a["name"], a["weight"], b["symbol"], b["weight"]) == ("A.NS", "A.NS Ltd", 0.25, "B.NS", 0.75)
    assert a["total_return"] == pytest.approx(0.1979) and b["total_return"] == pytest.approx(0.08)
    assert a["annualised_return"] == pytest.approx(1.1979**84 - 1, rel=1e-9)
    assert b["annualised_return"] == pytest.approx(1.08**84 - 1, rel=1e-9)
    assert a["annualised_volatility"] == pytest.approx(statistics.stdev(RA) * ROOT_252, rel=1e-12)
    assert b["annualised_volatility"] == pytest.approx(statistics.stdev(RB) * ROOT_252, rel=1e-12)
    assert a["contribution_to_return"] == pytest.approx(0.25 * statistics.mean(RA) * 252)
    assert b["contribution_to_return"] == pytest.approx(0.75 * statistics.mean(RB) * 252)
    cov = statistics.covariance(RA, RB)
    var_a, var_b = statistics.variance(RA), statistics.variance(RB)
    total = 0.25**2 * var_a + 0.75**2 * var_b + 2 * 0.25 * 0.75 * cov
    assert a["contribution_to_risk"] == pytest.approx(0.25 * (0.25 * var_a + 0.75 * cov) / total)
    assert b["contribution_to_risk"] == pytest.approx(0.75 * (0.75 * var_b + 0.25 * cov) / total)


def test_the_benchmark_on_its_own_dates_inside_the_window() -> None:
    out = analytics.analyse([A, B], [0.5, 0.5], rf_annual=0.0, benchmark=BENCH)
    bench = out.benchmark
    assert bench is not None
    assert (bench["symbol"], bench["as_of"], bench["source"]) == ("^NSEI", D(2025, 1, 7), "snapshot")
    assert bench["dates"] == [D(2025, 1, 1), D(2025, 1, 2), D(2025, 1, 7)]  # 3 Jan is outside the common days
    assert bench["growth"] == pytest.approx([1.0, 1.01, 1.05])
    assert bench["total_return"] == pytest.approx(0.05)
    b_rets = [0.01, 1050 / 1010 - 1]
    assert bench["annualised_return"] == pytest.approx(1.05**126 - 1, rel=1e-9)
    assert bench["annualised_volatility"] == pytest.approx(statistics.stdev(b_rets) * ROOT_252, rel=1e-12)
    assert bench["portfolio_total_return_same_dates"] == pytest.approx(0.1635)
    # A benchmark that starts later: both growths are rebased at its first date (2 Jan). With a
    # quarter in A the portfolio returns −5 %, −15.25 %, +40 %: from 2 Jan it grows 0.8475 × 1.4.
    late = _series("^NSEI", [(D(2025, 1, 2), 1010.0), (D(2025, 1, 3), 1020.0), (D(2025, 1, 6), 1000.0),
                             (D(2025, 1, 7), 1050.0)])  # fmt: skip
    later = analytics.analyse([A, B], [0.25, 0.75], rf_annual=0.0, benchmark=late).benchmark
    assert later is not None and later["dates"] == [D(2025, 1, 2), D(2025, 1, 6), D(2025, 1, 7)]
    assert later["growth"] == pytest.approx([1.0, 1000 / 1010, 1050 / 1010])
    assert later["portfolio_total_return_same_dates"] == pytest.approx(0.8475 * 1.4 - 1)
    few = _series("^NSEI", [(D(2025, 1, 1), 1000.0), (D(2025, 1, 7), 1050.0)])
    assert analytics.analyse([A, B], [0.5, 0.5], rf_annual=0.0, benchmark=few).benchmark is None


def test_the_start_date_is_inclusive_and_three_days_are_needed() -> None:
    out = analytics.analyse([A, B], [0.5, 0.5], rf_annual=0.0, start=D(2025, 1, 2))
    assert (out.start, out.observations) == (D(2025, 1, 2), 2)
    assert out.total_return == pytest.approx(0.895 * 1.3 - 1)
    with pytest.raises(ApplicationError, match="fewer than three trading days") as short:
        analytics.analyse([A, B], [0.5, 0.5], rf_annual=0.0, start=D(2025, 1, 3))
    assert short.value.code == "no_data"
    zero = _series("Z.NS", [(D(2025, 1, 1), 10.0), (D(2025, 1, 2), 0.0), (D(2025, 1, 6), 10.0)])
    with pytest.raises(ApplicationError, match=r"no finite returns \(a close of 0\?\)"):
        analytics.analyse([zero], [1.0], rf_annual=0.0)
    alone = analytics.analyse([A], [1.0], rf_annual=0.0)
    assert (alone.dropped_dates, alone.dropped_examples, alone.observations) == (0, [], 4)
    assert alone.total_return == pytest.approx(0.1979)


def _refused(items: list[tuple[object, object]], message: str, normalise: bool = False) -> None:
    with pytest.raises(ApplicationError) as refused:
        analytics.clean_holdings(items, normalise=normalise, max_holdings=3)
    assert (refused.value.code, refused.value.message) == ("invalid_input", message)


def test_holdings_are_validated_with_messages_a_person_understands() -> None:
    equal = analytics.clean_holdings([(" infy.ns ", None), ("TCS.NS", "")], normalise=False, max_holdings=3)
    assert (equal.symbols, equal.weights, equal.notices) == (
        ["INFY.NS", "TCS.NS"],
        [0.5, 0.5],
        ["No weights given: equal weights used."],
    )
    within = analytics.clean_holdings([("A", 0.6), ("B", 0.4000005)], normalise=False, max_holdings=3)
    assert within.notices == [] and math.fsum(within.weights) == pytest.approx(1.0, abs=1e-15)
    scaled = analytics.clean_holdings([("A", 60), ("B", 40)], normalise=True, max_holdings=3)
    assert (scaled.weights, scaled.notices) == (
        [0.6, 0.4],
        ["The weights added up to 100; they were normalised to add up to 1."],
    )
    _refused([], "Give at least one ticker.")
    _refused([("A", 1), ("B", 1), ("C", 1), ("D", 1)], "4 tickers is more than the 3 a portfolio may hold.")
    _refused([("A", 0.5), ("a", 0.5)], "Each ticker may appear once; duplicated: A.")
    _refused([("A", 0.5), ("B", None)], "Give a weight for every ticker, or for none (equal weights).")
    _refused([("A", 0), ("B", 0)], "The weights add up to 0; at least one must be positive.")
    _refused([("A", 0.6), ("B", 0.41)], "The weights add up to 1.01; they must add up to 1 (within 1e-6), "
             "or ask for them to be normalised.")  # fmt: skip
    _refused([("A", "lots"), ("B", 1)], "The weight of A ('lots') is not a number.")
    _refused([("A", "inf"), ("B", 1)], "The weight of A must be a finite number, not inf.")
    _refused([("A", -0.5), ("B", 1.5)], "The weight of A is negative (-0.5); short positions are not supported.")
    _refused(
        [("A", 2e6), ("B", 1)], "The weight of A (2e+06) is too large: give a fraction (0.4) or a percentage (40%)."
    )
    assert analytics.clean_holdings([("A", 1e6)], normalise=True, max_holdings=3).weights == [1.0]
