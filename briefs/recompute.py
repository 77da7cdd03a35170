"""An independent implementation of the published single-ticker metric definitions.

The verifier re-derives every figure in a brief from the raw daily bars with this module, so
it deliberately shares **no code** with ``portfolios/metrics.py`` (the tool path) and uses
different algorithms for the same definitions (README "Metric definitions"):

* volatility: Welford's one-pass running variance over log returns, in pure Python
  (the tool path takes a two-pass numpy ``std``);
* max drawdown: ``itertools.accumulate(max)`` for the running peak (the tool path uses
  ``numpy.maximum.accumulate``);
* 30-day baseline and 52-week window: ``bisect`` over date *ordinals* (integers);
* no numpy anywhere: plain floats and ``math``.

If the two ever disagree on real data, one of them is wrong and the brief is not shown as
verified. ``tests/briefs/test_recompute_agreement.py`` runs both over every shipped series.
"""

from __future__ import annotations

import bisect
import datetime as dt
import itertools
import math
from collections.abc import Callable, Sequence

TRADING_DAYS = 252

# The metrics a brief may cite, with their unit kind ("price" in the ticker's currency, or "pct").
METRIC_UNITS: dict[str, str] = {
    "last_close": "price",
    "previous_close": "price",
    "change_1d_pct": "pct",
    "return_30d_pct": "pct",
    "volatility_annualised_pct": "pct",
    "max_drawdown_pct": "pct",
    "high_52w": "price",
    "low_52w": "price",
}


def _ordinals(dates: Sequence[dt.date]) -> list[int]:
    return [d.toordinal() for d in dates]


def last_close(dates: Sequence[dt.date], closes: Sequence[float]) -> float | None:
    return float(closes[-1]) if closes else None


def previous_close(dates: Sequence[dt.date], closes: Sequence[float]) -> float | None:
    return float(closes[-2]) if len(closes) >= 2 else None


def change_1d_pct(dates: Sequence[dt.date], closes: Sequence[float]) -> float | None:
    if len(closes) < 2:
        return None
    return (float(closes[-1]) / float(closes[-2]) - 1.0) * 100.0


def return_30d_pct(dates: Sequence[dt.date], closes: Sequence[float]) -> float | None:
    """Baseline = last bar dated on or before last_date − 30 calendar days (bisect on ordinals)."""
    if len(closes) < 2:
        return None
    ords = _ordinals(dates)
    idx = bisect.bisect_right(ords, ords[-1] - 30) - 1
    if idx < 0 or idx == len(closes) - 1:
        return None
    return (float(closes[-1]) / float(closes[idx]) - 1.0) * 100.0


def volatility_annualised_pct(dates: Sequence[dt.date], closes: Sequence[float]) -> float | None:
    """Sample std (ddof = 1) of daily log returns × √252 × 100, by Welford's recurrence."""
    count, mean, m2 = 0, 0.0, 0.0
    for prev, cur in itertools.pairwise(closes):
        x = math.log(float(cur) / float(prev))
        count += 1
        delta = x - mean
        mean += delta / count
        m2 += delta * (x - mean)
    if count < 2:
        return None
    return math.sqrt(m2 / (count - 1)) * math.sqrt(TRADING_DAYS) * 100.0


def max_drawdown_pct(dates: Sequence[dt.date], closes: Sequence[float]) -> float | None:
    """min over bars of close / running peak − 1, × 100; the running peak by ``accumulate``."""
    if len(closes) < 2:
        return None
    values = [float(c) for c in closes]
    peaks = itertools.accumulate(values, max)
    return min(value / peak - 1.0 for value, peak in zip(values, peaks, strict=True)) * 100.0


def _window_52w(dates: Sequence[dt.date], closes: Sequence[float]) -> list[float]:
    ords = _ordinals(dates)
    start = bisect.bisect_right(ords, ords[-1] - 365)
    return [float(c) for c in closes[start:]]


def high_52w(dates: Sequence[dt.date], closes: Sequence[float]) -> float | None:
    if not closes:
        return None
    best = -math.inf
    for value in _window_52w(dates, closes):
        if value > best:
            best = value
    return best


def low_52w(dates: Sequence[dt.date], closes: Sequence[float]) -> float | None:
    if not closes:
        return None
    worst = math.inf
    for value in _window_52w(dates, closes):
        if value < worst:
            worst = value
    return worst


RECOMPUTE: dict[str, Callable[[Sequence[dt.date], Sequence[float]], float | None]] = {
    "last_close": last_close,
    "previous_close": previous_close,
    "change_1d_pct": change_1d_pct,
    "return_30d_pct": return_30d_pct,
    "volatility_annualised_pct": volatility_annualised_pct,
    "max_drawdown_pct": max_drawdown_pct,
    "high_52w": high_52w,
    "low_52w": low_52w,
}


def recompute(metric: str, dates: Sequence[dt.date], closes: Sequence[float]) -> float | None:
    """The value of ``metric`` recomputed from raw bars; ``KeyError`` for a metric we cannot recompute."""
    return RECOMPUTE[metric](dates, closes)


def agrees(claimed: float, recomputed: float | None) -> bool:
    """Equal within 1e-9 relative to the value's size (so a price off by one cent always fails)."""
    if recomputed is None or not math.isfinite(claimed) or not math.isfinite(recomputed):
        return False
    return abs(claimed - recomputed) <= 1e-9 * max(1.0, abs(recomputed))
