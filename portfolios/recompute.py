"""An independent implementation of the published metric definitions (single tickers and portfolios).

The brief verifier re-derives every figure in a brief from the raw daily bars with this module,
and the chat verifier (``research/agent/verify/claims.py``) every market-data and portfolio figure in an
answer, so it deliberately shares **no code** with ``portfolios/metrics.py`` and
``portfolios/analytics.py`` (the tool path) and uses
different algorithms for the same definitions (docs/portfolios.md "Metric definitions"):

* volatility: Welford's one-pass running variance over log returns, in pure Python
  (the tool path takes a two-pass numpy ``std``);
* max drawdown: ``itertools.accumulate(max)`` for the running peak (the tool path uses
  ``numpy.maximum.accumulate``);
* 30-day baseline and 52-week window: ``bisect`` over date *ordinals* (integers);
* no numpy anywhere: plain floats and ``math``.

If the two ever disagree on real data, one of them is wrong and the brief (or the chat answer) is
not shown as verified. ``tests/briefs/test_recompute_agreement.py`` runs both over every shipped
series, and over portfolios built from them.
"""

from __future__ import annotations

import bisect
import datetime as dt
import itertools
import math
import operator
from collections.abc import Callable, Iterable, Sequence

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


def _welford(values: Iterable[float]) -> tuple[int, float, float]:
    """(count, mean, sample variance) in one pass by Welford's recurrence (variance nan below two)."""
    count, mean, m2 = 0, 0.0, 0.0
    for x in values:
        count += 1
        delta = x - mean
        mean += delta / count
        m2 += delta * (x - mean)
    return count, mean, (m2 / (count - 1) if count >= 2 else math.nan)


def volatility_annualised_pct(dates: Sequence[dt.date], closes: Sequence[float]) -> float | None:
    """Sample std (ddof = 1) of daily log returns × √252 × 100, by Welford's recurrence."""
    count, _, var = _welford(math.log(float(cur) / float(prev)) for prev, cur in itertools.pairwise(closes))
    if count < 2:
        return None
    return math.sqrt(var) * math.sqrt(TRADING_DAYS) * 100.0


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


# --- portfolios: a constant-weight, daily-rebalanced basket (docs/portfolios.md "Metric definitions") -------
# The chat verifier recomputes ``analyze_portfolio`` figures with these. Again no shared code with
# ``portfolios/analytics.py``: dates are aligned by dict lookups over a set intersection (not
# numpy ``intersect1d``/``searchsorted``), the growth by ``expm1(fsum(log1p(r)))`` (not a product),
# moments by Welford, the daily risk-free rate by ``expm1(log1p(rf) / 252)``. Values are fractions,
# as the tool reports them (0.125 = 12.5 %).
def portfolio_returns(
    holdings: Sequence[tuple[Sequence[dt.date], Sequence[float]]],
    weights: Sequence[float],
    *,
    start: dt.date | None = None,
    end: dt.date | None = None,
) -> tuple[list[dt.date], list[float]]:
    """Daily portfolio returns ``Σ w_i (P_i,t / P_i,t−1 − 1)`` over the dates on which *every*
    holding has a bar, inside ``[start, end]``; each return is dated by its later bar's date list."""
    books = [dict(zip(dates, closes, strict=True)) for dates, closes in holdings]
    common = sorted(
        d
        for d in set.intersection(*(set(book) for book in books))
        if (start is None or d >= start) and (end is None or d <= end)
    )
    returns = [
        math.fsum(w * (float(book[cur]) / float(book[prev]) - 1.0) for w, book in zip(weights, books, strict=True))
        for prev, cur in itertools.pairwise(common)
    ]
    return common, returns


def _growth(returns: Sequence[float]) -> float:
    return math.expm1(math.fsum(math.log1p(r) for r in returns))  # total return, by logs


def portfolio_total_return(returns: Sequence[float], rf_annual: float) -> float | None:
    return _growth(returns) if returns else None


def portfolio_annualised_return(returns: Sequence[float], rf_annual: float) -> float | None:
    """CAGR on the 252-day basis: ``(1 + total)^(252/n) − 1``, through logs."""
    if not returns:
        return None
    return math.expm1(math.fsum(math.log1p(r) for r in returns) * TRADING_DAYS / len(returns))


def portfolio_annualised_volatility(returns: Sequence[float], rf_annual: float) -> float | None:
    count, _, var = _welford(returns)
    return math.sqrt(var) * math.sqrt(TRADING_DAYS) if count >= 2 else None


def _excess(returns: Sequence[float], rf_annual: float) -> list[float]:
    rf_daily = math.expm1(math.log1p(rf_annual) / TRADING_DAYS)  # geometric de-annualisation
    return [r - rf_daily for r in returns]


def portfolio_sharpe(returns: Sequence[float], rf_annual: float) -> float | None:
    count, mean, var = _welford(_excess(returns, rf_annual))
    if count < 2 or not var > 0.0:
        return None
    return mean / math.sqrt(var) * math.sqrt(TRADING_DAYS)


def portfolio_sortino(returns: Sequence[float], rf_annual: float) -> float | None:
    """Downside deviation over *all* periods: ``sqrt(Σ min(e, 0)² / n)``."""
    excess = _excess(returns, rf_annual)
    if not excess:
        return None
    downside = math.sqrt(math.fsum(min(e, 0.0) ** 2 for e in excess) / len(excess))
    if downside == 0.0:
        return None
    return math.fsum(excess) / len(excess) / downside * math.sqrt(TRADING_DAYS)


def portfolio_max_drawdown(returns: Sequence[float], rf_annual: float) -> float | None:
    """Most negative ``growth / running peak − 1`` of the growth of one unit (fraction, ≤ 0)."""
    if not returns:
        return None
    growth = list(itertools.accumulate((1.0 + r for r in returns), operator.mul, initial=1.0))
    peaks = itertools.accumulate(growth, max)
    return min(g / p - 1.0 for g, p in zip(growth, peaks, strict=True))


PORTFOLIO_RECOMPUTE: dict[str, Callable[[Sequence[float], float], float | None]] = {
    "total_return": portfolio_total_return,
    "annualised_return": portfolio_annualised_return,
    "annualised_volatility": portfolio_annualised_volatility,
    "sharpe": portfolio_sharpe,
    "sortino": portfolio_sortino,
    "max_drawdown": portfolio_max_drawdown,
}
