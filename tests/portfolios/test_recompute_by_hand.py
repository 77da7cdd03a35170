"""The independent recompute (portfolios/recompute.py) on series small enough to check by hand, and
its ratios against empyrical-reloaded: guards, boundaries, the agreement tolerance."""

from __future__ import annotations

import datetime as dt
import math
import statistics

import empyrical
import pandas as pd
import pytest

from portfolios import recompute

D = dt.date
ROOT_252 = math.sqrt(252)


def test_agreement_is_relative_to_the_size_of_the_value_with_a_floor_of_one() -> None:
    assert recompute.agrees(1.0 + 0.5e-9, 1.0) and not recompute.agrees(1.0 + 1.5e-9, 1.0)
    assert recompute.agrees(1e6 + 5e-4, 1e6) and not recompute.agrees(1e6 + 2e-3, 1e6)  # 1e-9 × 1e6 = 1e-3
    assert recompute.agrees(-1e6 - 5e-4, -1e6) and not recompute.agrees(-1e6 - 2e-3, -1e6)
    assert recompute.agrees(5e-10, 0.0) and not recompute.agrees(2e-9, 0.0)  # below 1 the tolerance stays 1e-9
    assert recompute.agrees(1441.8, 1441.8) and not recompute.agrees(1441.81, 1441.8)  # a cent
    for claimed, again in ((1.0, None), (math.nan, 1.0), (1.0, math.nan), (math.inf, math.inf), (1.0, -math.inf)):
        assert not recompute.agrees(claimed, again)


def test_single_ticker_metrics_and_their_short_series_guards() -> None:
    dates = [D(2025, 8, 31), D(2025, 9, 1), D(2025, 9, 29), D(2025, 9, 30)]
    closes = [100.0, 120.0, 90.0, 117.0]
    assert recompute.recompute("last_close", dates, closes) == 117.0
    assert recompute.recompute("previous_close", dates, closes) == 90.0
    assert recompute.change_1d_pct(dates, closes) == pytest.approx(30.0)
    # The 30-day baseline is the bar dated exactly 30 days before the last (inclusive): 31 Aug.
    assert recompute.return_30d_pct(dates, closes) == pytest.approx(17.0)
    assert recompute.return_30d_pct(dates[1:], closes[1:]) is None  # history does not reach back
    two_bars = [D(2025, 8, 31), D(2025, 9, 30)]
    assert recompute.return_30d_pct(two_bars, [100.0, 110.0]) == pytest.approx(10.0)  # the baseline is the first bar
    assert recompute.max_drawdown_pct(dates, closes) == pytest.approx(-25.0)  # 90 / 120 − 1
    log_returns = [math.log(1.2), math.log(0.75), math.log(1.3)]
    expected_vol = statistics.stdev(log_returns) * ROOT_252 * 100
    assert recompute.volatility_annualised_pct(dates, closes) == pytest.approx(expected_vol, rel=1e-12)
    one, two = (dates[:1], closes[:1]), (dates[:2], closes[:2])
    expected_one = [100.0, None, None, None, None, None, 100.0, 100.0]  # last, 52-week high and low only
    assert [recompute.recompute(m, *one) for m in recompute.RECOMPUTE] == expected_one
    assert recompute.volatility_annualised_pct(*two) is None  # one return has no sample deviation
    assert recompute.last_close([], []) is None and recompute.high_52w([], []) is None
    assert recompute.low_52w([], []) is None


def test_the_52_week_window_excludes_the_bar_exactly_365_days_back() -> None:
    dates = [D(2024, 9, 30), D(2024, 10, 1), D(2025, 3, 3), D(2025, 9, 30)]
    closes = [1000.0, 50.0, 400.0, 100.0]
    assert (recompute.high_52w(dates, closes), recompute.low_52w(dates, closes)) == (400.0, 50.0)
    assert (recompute.high_52w(dates[:1], closes[:1]), recompute.low_52w(dates[:1], closes[:1])) == (1000.0, 1000.0)


def test_welford_gives_the_textbook_sample_variance() -> None:
    count, mean, var = recompute._welford([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])
    assert (count, mean) == (8, 5.0) and var == pytest.approx(32 / 7)
    assert recompute._welford([3.0])[:2] == (1, 3.0) and math.isnan(recompute._welford([3.0])[2])


A = ([D(2025, 1, 1), D(2025, 1, 2), D(2025, 1, 3), D(2025, 1, 6)], [100.0, 110.0, 121.0, 133.1])
B = ([D(2025, 1, 1), D(2025, 1, 3), D(2025, 1, 6)], [50.0, 55.0, 44.0])


def test_portfolio_returns_on_common_dates_inside_an_inclusive_window() -> None:
    dates, returns = recompute.portfolio_returns([A, B], [0.5, 0.5])
    assert dates == [D(2025, 1, 1), D(2025, 1, 3), D(2025, 1, 6)]  # 2 Jan: B has no bar
    assert returns == pytest.approx([0.5 * 0.21 + 0.5 * 0.1, 0.5 * 0.1 - 0.5 * 0.2])
    later = recompute.portfolio_returns([A, B], [0.25, 0.75], start=D(2025, 1, 3))
    assert later == ([D(2025, 1, 3), D(2025, 1, 6)], pytest.approx([0.25 * 0.1 - 0.75 * 0.2]))
    earlier = recompute.portfolio_returns([A, B], [0.5, 0.5], end=D(2025, 1, 3))
    assert earlier == ([D(2025, 1, 1), D(2025, 1, 3)], pytest.approx([0.155]))


RETURNS = [0.01, -0.02, 0.015, 0.003, -0.007, 0.012]
RF = 0.0665
RF_DAILY = 1.0665 ** (1 / 252) - 1


def test_portfolio_figures_by_hand_and_against_empyrical() -> None:
    growth = math.prod(1 + r for r in RETURNS)
    assert recompute.portfolio_total_return(RETURNS, RF) == pytest.approx(growth - 1, rel=1e-12)
    assert recompute.portfolio_annualised_return(RETURNS, RF) == pytest.approx(growth ** (252 / 6) - 1, rel=1e-12)
    vol = statistics.stdev(RETURNS) * ROOT_252
    assert recompute.portfolio_annualised_volatility(RETURNS, RF) == pytest.approx(vol, rel=1e-12)
    series = pd.Series(RETURNS)
    sharpe = empyrical.sharpe_ratio(series, risk_free=RF_DAILY)
    assert recompute.portfolio_sharpe(RETURNS, RF) == pytest.approx(sharpe, rel=1e-9)
    sortino = empyrical.sortino_ratio(series, required_return=RF_DAILY)
    assert recompute.portfolio_sortino(RETURNS, RF) == pytest.approx(sortino, rel=1e-9)
    assert recompute.portfolio_sharpe(RETURNS, 0.0) == pytest.approx(empyrical.sharpe_ratio(series), rel=1e-9)


def test_portfolio_guards_zero_variance_no_downside_and_short_series() -> None:
    flat = [0.001, 0.001, 0.001]
    assert recompute.portfolio_sharpe(flat, 0.0) is None  # zero variance: no Sharpe ratio
    assert recompute.portfolio_sortino([0.01, 0.02, 0.0], 0.0) is None  # no period below the target
    assert recompute.portfolio_sortino([0.01, -0.02], 0.0) == pytest.approx(-0.005 / math.sqrt(0.0002) * ROOT_252)
    assert recompute.portfolio_sharpe([0.01], 0.0) is None
    assert recompute.portfolio_annualised_volatility([0.01], 0.0) is None
    for metric in recompute.PORTFOLIO_RECOMPUTE.values():
        assert metric([], RF) is None


def test_portfolio_drawdown_counts_a_fall_on_the_first_day() -> None:
    assert recompute.portfolio_max_drawdown([0.1, -0.5, 0.2], 0.0) == pytest.approx(-0.5)  # 0.55 / 1.1 − 1
    assert recompute.portfolio_max_drawdown([-0.1, 0.05], 0.0) == pytest.approx(-0.1)  # from the starting 1.0
    assert recompute.portfolio_max_drawdown([0.1, 0.2], 0.0) == 0.0
