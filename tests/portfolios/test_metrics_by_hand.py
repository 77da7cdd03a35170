"""The published metrics (portfolios/metrics.py) on bars chosen so every baseline, horizon and guard
can be checked by hand: a distinct close on each candidate baseline date and the day after it, so a
horizon off by one month or one day picks another close."""

from __future__ import annotations

import datetime as dt
import math
import statistics

import empyrical
import numpy as np
import pandas as pd
import pytest

from portfolios import metrics

D = dt.date
BARS = [
    (D(2024, 9, 29), 40.0),
    (D(2024, 9, 30), 50.0),  # 1Y baseline: 30 Sep 2025 − 12 months
    (D(2024, 12, 31), 60.0),  # YTD baseline: 31 Dec of the previous year
    (D(2025, 1, 2), 62.0),
    (D(2025, 3, 30), 70.0),  # 6M baseline
    (D(2025, 3, 31), 72.0),
    (D(2025, 6, 30), 80.0),  # 3M baseline
    (D(2025, 7, 1), 82.0),
    (D(2025, 8, 30), 88.0),  # 1M baseline: 30 Sep − 1 month = 30 Aug
    (D(2025, 8, 31), 89.0),  # 30-day baseline: 30 Sep − 30 days = 31 Aug
    (D(2025, 9, 29), 100.0),
    (D(2025, 9, 30), 110.0),
]
DATES = [d for d, _ in BARS]
CLOSES = np.array([c for _, c in BARS])


def test_period_returns_use_the_last_bar_on_or_before_each_horizon() -> None:
    periods = metrics.period_returns_pct(DATES, CLOSES)
    expected = {
        "1M": (25.0, D(2025, 8, 30)),
        "3M": (37.5, D(2025, 6, 30)),
        "6M": (110 / 70 * 100 - 100, D(2025, 3, 30)),
        "1Y": (120.0, D(2024, 9, 30)),
        "YTD": (110 / 60 * 100 - 100, D(2024, 12, 31)),
    }
    assert periods.keys() == expected.keys()
    for label, (value, baseline) in expected.items():
        assert periods[label][0] == pytest.approx(value, rel=1e-12), label
        assert periods[label][1] == baseline, label
    assert metrics.return_30d_pct(DATES, CLOSES) == (pytest.approx(110 / 89 * 100 - 100), D(2025, 8, 31))


def test_a_horizon_before_the_history_or_on_the_last_bar_has_no_return() -> None:
    short = DATES[-3:], CLOSES[-3:]  # 31 Aug, 29 Sep, 30 Sep
    assert metrics.period_returns_pct(*short)["1M"] == (None, None)
    assert metrics.period_returns_pct(*short)["YTD"] == (None, None)
    assert metrics.return_since_pct(DATES, CLOSES, D(2025, 9, 30)) == (None, None)  # baseline = the last bar
    assert metrics.return_since_pct(DATES, CLOSES, D(2025, 9, 29)) == (pytest.approx(10.0), D(2025, 9, 29))
    assert metrics.baseline_index(DATES, D(2024, 9, 28)) is None
    assert metrics.baseline_index(DATES, D(2024, 9, 29)) == 0


def test_single_ticker_figures_and_their_guards() -> None:
    closes = np.array([100.0, 120.0, 90.0, 117.0])
    assert metrics.last_close(closes) == 117.0 and metrics.previous_close(closes) == 90.0
    assert metrics.change_1d_pct(closes) == pytest.approx(30.0)
    assert metrics.change_1d_pct(closes[:1]) is None and metrics.previous_close(closes[:1]) is None
    assert metrics.max_drawdown_pct(closes) == pytest.approx(-25.0)
    assert metrics.max_drawdown_pct(closes[:1]) is None
    vol = statistics.stdev([math.log(1.2), math.log(0.75), math.log(1.3)]) * math.sqrt(252) * 100
    assert metrics.volatility_annualised_pct(closes) == pytest.approx(vol, rel=1e-12)
    assert metrics.volatility_annualised_pct(closes[:2]) is None  # one return has no sample deviation
    assert metrics.volatility_annualised_pct(closes[:3]) is not None
    dates = [D(2025, 1, 1), D(2025, 1, 2), D(2025, 1, 3), D(2025, 1, 6)]
    assert metrics.max_drawdown_window(dates, closes) == (pytest.approx(-0.25), D(2025, 1, 2), D(2025, 1, 3))


def test_the_52_week_window_excludes_the_bar_exactly_365_days_back() -> None:
    dates = [D(2024, 9, 30), D(2024, 10, 1), D(2025, 3, 3), D(2025, 9, 30)]
    assert metrics.high_low_52w(dates, np.array([1000.0, 50.0, 400.0, 100.0])) == (400.0, 50.0)


def test_ticker_metrics_carries_every_figure_with_its_dates() -> None:
    out = metrics.ticker_metrics(DATES, CLOSES)
    assert (out["last_date"], out["first_date"], out["bars"]) == (D(2025, 9, 30), D(2024, 9, 29), 12)
    assert (out["last_close"], out["previous_close"]) == (110.0, 100.0)
    assert out["change_1d_pct"] == pytest.approx(10.0)
    assert (out["return_30d_pct"], out["return_30d_baseline_date"]) == (
        pytest.approx(110 / 89 * 100 - 100),
        D(2025, 8, 31),
    )
    assert (out["high_52w"], out["low_52w"]) == (110.0, 60.0)  # the two bars of Sep 2024 are 365+ days old
    assert out["max_drawdown_pct"] == 0.0
    periods, baselines = out["period_returns_pct"], out["period_baseline_dates"]
    assert isinstance(periods, dict) and isinstance(baselines, dict)
    assert periods["1M"] == pytest.approx(25.0) and baselines["1Y"] == D(2024, 9, 30)


RETURNS = np.array([0.01, -0.02, 0.015, 0.003, -0.007, 0.012])
RF = 0.0665
RF_DAILY = 1.0665 ** (1 / 252) - 1


def test_ratios_against_empyrical_and_by_hand() -> None:
    series = pd.Series(RETURNS)
    assert metrics.daily_risk_free(RF) == pytest.approx(RF_DAILY, rel=1e-12)
    assert metrics.daily_risk_free(0.0) == 0.0
    assert metrics.simple_returns(np.array([100.0, 110.0, 99.0])) == pytest.approx([0.1, -0.1])
    assert metrics.annualised_return(RETURNS) == pytest.approx(empyrical.annual_return(series), rel=1e-9)
    assert metrics.annualised_return(RETURNS) == pytest.approx(math.prod(1 + RETURNS) ** 42 - 1, rel=1e-12)
    assert metrics.annualised_volatility(RETURNS) == pytest.approx(empyrical.annual_volatility(series), rel=1e-9)
    sharpe = empyrical.sharpe_ratio(series, risk_free=RF_DAILY)
    assert metrics.sharpe_ratio(RETURNS, RF) == pytest.approx(sharpe, rel=1e-9)
    sortino = empyrical.sortino_ratio(series, required_return=RF_DAILY)
    assert metrics.sortino_ratio(RETURNS, RF) == pytest.approx(sortino, rel=1e-9)
    assert metrics.sharpe_ratio(np.array([0.001, 0.001, 0.001])) is None  # zero variance
    assert metrics.sortino_ratio(np.array([0.01, 0.02, 0.0])) is None  # nothing below the target
    assert metrics.sortino_ratio(np.array([0.01, -0.02])) == pytest.approx(-0.005 / math.sqrt(0.0002) * math.sqrt(252))
    dd = metrics.drawdown_series(np.array([1.0, 1.1, 0.55, 0.66]))
    assert dd == pytest.approx([0.0, 0.0, -0.5, -0.4])
