"""Published metric definitions — the one module that computes them (docs/portfolios.md "Metric definitions").

Every function takes dates (``datetime.date``, oldest first, one per bar) and/or adjusted daily
closes as numpy arrays and returns plain floats. Percentages are in percent (``12.5`` = 12.5 %).
The morning-brief verifier re-implements these definitions independently; keep the docstrings and
the README in step with the code.

Conventions (stated because peers differ):
* returns are simple daily returns ``r_t = P_t / P_{t-1} − 1`` unless a definition says log returns;
* annualisation uses 252 trading days; standard deviations are sample (ddof = 1);
* the annual risk-free rate ``rf`` is de-annualised geometrically: ``rf_d = (1 + rf)^(1/252) − 1``
  (empyrical and quantstats expect the per-period rate; quantstats converts the same way);
* annualised return is a CAGR on the 252-day basis: ``G^(252/n) − 1`` where ``G`` is the growth of
  one unit over the ``n`` daily returns (the same basis as empyrical's ``annual_return``).
"""

from __future__ import annotations

import bisect
import datetime as dt
import math
from collections.abc import Sequence

import numpy as np
from dateutil.relativedelta import relativedelta

TRADING_DAYS = 252

Dates = Sequence[dt.date]


def _pct(value: float) -> float:
    return float(value) * 100.0


def simple_returns(closes: np.ndarray) -> np.ndarray:
    """``r_t = P_t / P_{t−1} − 1`` (length n − 1); along axis 0 for a 2-D array."""
    closes = np.asarray(closes, dtype=float)
    return closes[1:] / closes[:-1] - 1.0


def log_returns(closes: np.ndarray) -> np.ndarray:
    """``ln(P_t / P_{t−1})`` (length n − 1)."""
    closes = np.asarray(closes, dtype=float)
    return np.log(closes[1:] / closes[:-1])


def last_close(closes: np.ndarray) -> float:
    """The newest adjusted close."""
    return float(closes[-1])


def previous_close(closes: np.ndarray) -> float | None:
    """The adjusted close of the bar before the newest; None with a single bar."""
    return float(closes[-2]) if len(closes) >= 2 else None


def change_1d_pct(closes: np.ndarray) -> float | None:
    """``(last_close / previous_close − 1) × 100``."""
    prev = previous_close(closes)
    return None if prev is None else _pct(closes[-1] / prev - 1.0)


def baseline_index(dates: Dates, target: dt.date) -> int | None:
    """Index of the last bar dated on or before ``target``; None when history starts later."""
    i = bisect.bisect_right(list(dates), target) - 1
    return i if i >= 0 else None


def return_since_pct(dates: Dates, closes: np.ndarray, target: dt.date) -> tuple[float | None, dt.date | None]:
    """Return from the close of the last bar dated on or before ``target`` to the latest close,
    in percent, with the baseline date used. ``(None, None)`` when history does not reach back."""
    i = baseline_index(dates, target)
    if i is None or i == len(closes) - 1:
        return None, None
    return _pct(closes[-1] / closes[i] - 1.0), dates[i]


def return_30d_pct(dates: Dates, closes: np.ndarray) -> tuple[float | None, dt.date | None]:
    """From the close of the last bar dated on or before ``last_date − 30 calendar days`` to the
    latest close, in percent; also returns that baseline date."""
    return return_since_pct(dates, closes, dates[-1] - dt.timedelta(days=30))


def period_returns_pct(dates: Dates, closes: np.ndarray) -> dict[str, tuple[float | None, dt.date | None]]:
    """1M/3M/6M/1Y: baseline = last bar on or before ``last_date`` minus 1/3/6/12 calendar months;
    YTD: baseline = last bar on or before 31 December of the previous year."""
    last = dates[-1]
    out = {
        label: return_since_pct(dates, closes, last - relativedelta(months=months))
        for label, months in (("1M", 1), ("3M", 3), ("6M", 6), ("1Y", 12))
    }
    out["YTD"] = return_since_pct(dates, closes, dt.date(last.year - 1, 12, 31))
    return out


def volatility_annualised_pct(closes: np.ndarray) -> float | None:
    """Sample standard deviation (ddof = 1) of daily **log** returns × √252, in percent."""
    rets = log_returns(closes)
    if len(rets) < 2:
        return None
    return _pct(np.std(rets, ddof=1) * math.sqrt(TRADING_DAYS))


def drawdown_series(closes: np.ndarray) -> np.ndarray:
    """``close / running peak − 1`` for every bar (≤ 0); along axis 0 for 2-D input."""
    closes = np.asarray(closes, dtype=float)
    return closes / np.maximum.accumulate(closes, axis=0) - 1.0


def max_drawdown_pct(closes: np.ndarray) -> float | None:
    """Most negative ``close / running peak − 1``, in percent (≤ 0)."""
    if len(closes) < 2:
        return None
    return _pct(drawdown_series(closes).min())


def max_drawdown_window(dates: Dates, values: np.ndarray) -> tuple[float, dt.date, dt.date]:
    """Max drawdown (fraction, ≤ 0) with its peak date (the running peak before the trough) and
    trough date."""
    dd = drawdown_series(values)
    trough = int(np.argmin(dd))
    peak = int(np.argmax(values[: trough + 1]))
    return float(dd[trough]), dates[peak], dates[trough]


def high_low_52w(dates: Dates, closes: np.ndarray) -> tuple[float, float]:
    """Highest and lowest **close** over bars dated after ``last_date − 365 days``."""
    start = bisect.bisect_right(list(dates), dates[-1] - dt.timedelta(days=365))
    window = closes[start:]
    return float(window.max()), float(window.min())


def daily_risk_free(rf_annual: float) -> float:
    """Geometric de-annualisation: ``(1 + rf)^(1/252) − 1``."""
    return float((1.0 + rf_annual) ** (1.0 / TRADING_DAYS) - 1.0)


def annualised_return(returns: np.ndarray) -> float:
    """CAGR on the 252-day basis: ``prod(1 + r)^(252/n) − 1`` (fraction)."""
    growth = float(np.prod(1.0 + returns))
    return growth ** (TRADING_DAYS / len(returns)) - 1.0


def annualised_volatility(returns: np.ndarray) -> float:
    """``std(r, ddof=1) × √252`` of simple daily returns (fraction)."""
    return float(np.std(returns, ddof=1) * math.sqrt(TRADING_DAYS))


def sharpe_ratio(returns: np.ndarray, rf_annual: float = 0.0) -> float | None:
    """``mean(r − rf_d) / std(r − rf_d, ddof=1) × √252`` with ``rf_d`` de-annualised geometrically."""
    excess = returns - daily_risk_free(rf_annual)
    sd = float(np.std(excess, ddof=1))
    if sd == 0.0 or not math.isfinite(sd):
        return None
    return float(np.mean(excess) / sd * math.sqrt(TRADING_DAYS))


def sortino_ratio(returns: np.ndarray, rf_annual: float = 0.0) -> float | None:
    """``mean(r − rf_d) / DD × √252`` where the downside deviation ``DD = sqrt(mean(min(r − rf_d, 0)²))``
    is taken over *all* periods (empyrical's convention)."""
    excess = returns - daily_risk_free(rf_annual)
    downside = math.sqrt(float(np.mean(np.minimum(excess, 0.0) ** 2)))
    if downside == 0.0:
        return None
    return float(np.mean(excess) / downside * math.sqrt(TRADING_DAYS))


def ticker_metrics(dates: Dates, closes: np.ndarray) -> dict[str, object]:
    """All single-ticker metrics above, as one dict (what ``compute_metrics`` returns)."""
    closes = np.asarray(closes, dtype=float)
    r30, base30 = return_30d_pct(dates, closes)
    hi, lo = high_low_52w(dates, closes)
    periods = period_returns_pct(dates, closes)
    return {
        "last_date": dates[-1],
        "last_close": last_close(closes),
        "previous_close": previous_close(closes),
        "change_1d_pct": change_1d_pct(closes),
        "return_30d_pct": r30,
        "return_30d_baseline_date": base30,
        "volatility_annualised_pct": volatility_annualised_pct(closes),
        "max_drawdown_pct": max_drawdown_pct(closes),
        "high_52w": hi,
        "low_52w": lo,
        "period_returns_pct": {k: v[0] for k, v in periods.items()},
        "period_baseline_dates": {k: v[1] for k, v in periods.items()},
        "bars": len(closes),
        "first_date": dates[0],
    }
