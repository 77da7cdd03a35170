"""Boundaries of the two metric implementations (portfolios/metrics.py, the tool path, and
portfolios/recompute.py, the verifier's), with values worked out by hand or by Python's
``statistics``: the shortest series each figure accepts, agreement exactly at the tolerance,
2-D drawdowns, a default risk-free rate of zero, and holdings whose lengths disagree."""

from __future__ import annotations

import datetime as dt
import math
import statistics

import numpy as np
import pytest

from portfolios import metrics, recompute

D = dt.date
TWO_DATES = [D(2025, 9, 29), D(2025, 9, 30)]


def test_two_bars_are_enough_for_the_previous_close_the_day_change_and_the_drawdown() -> None:
    closes = [100.0, 90.0]
    assert recompute.previous_close(TWO_DATES, closes) == 100.0
    assert recompute.change_1d_pct(TWO_DATES, closes) == pytest.approx(-10.0)
    assert recompute.max_drawdown_pct(TWO_DATES, closes) == pytest.approx(-10.0)
    assert metrics.previous_close(np.array(closes)) == 100.0
    assert metrics.max_drawdown_pct(np.array(closes)) == pytest.approx(-10.0)


def test_three_bars_are_enough_for_the_volatility() -> None:
    dates = [D(2025, 9, 26), *TWO_DATES]
    closes = [100.0, 110.0, 99.0]
    by_hand = statistics.stdev([math.log(1.1), math.log(0.9)]) * math.sqrt(252) * 100
    assert recompute.volatility_annualised_pct(dates, closes) == pytest.approx(by_hand)
    assert metrics.volatility_annualised_pct(np.array(closes)) == pytest.approx(by_hand)


def test_agreement_holds_exactly_at_the_tolerance() -> None:
    assert recompute.agrees(1e-9, 0.0)
    assert not recompute.agrees(2e-9, 0.0)


def test_a_drawdown_series_runs_down_each_column() -> None:
    # column 1: 100 → 80 (−20 %) → 120 (new peak); column 2: 50 → 60 → 45 (−25 % from 60)
    values = np.array([[100.0, 50.0], [80.0, 60.0], [120.0, 45.0]])
    expected = np.array([[0.0, 0.0], [-0.2, 0.0], [0.0, -0.25]])
    np.testing.assert_allclose(metrics.drawdown_series(values), expected, atol=1e-12)


def test_the_sharpe_ratio_defaults_to_a_zero_risk_free_rate() -> None:
    returns = [0.01, 0.03, -0.01]
    by_hand = statistics.mean(returns) / statistics.stdev(returns) * math.sqrt(252)
    assert metrics.sharpe_ratio(np.array(returns)) == pytest.approx(by_hand)


def test_holdings_whose_lengths_disagree_are_refused() -> None:
    with pytest.raises(ValueError, match="zip"):
        recompute.portfolio_returns([(TWO_DATES, [100.0])], [1.0])  # two dates, one close
    with pytest.raises(ValueError, match="zip"):
        recompute.portfolio_returns([(TWO_DATES, [100.0, 90.0])], [0.5, 0.5])  # one holding, two weights
