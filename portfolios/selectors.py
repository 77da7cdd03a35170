"""Reads, always scoped to what the user may see: watchlists, portfolios, market data and analysis."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.http import Http404

from core.roles import can_access
from core.tools import ToolFailure
from portfolios import analytics, market, metrics
from portfolios.models import Portfolio, Watchlist
from portfolios.schemas import (
    AssetRow,
    BenchmarkSummary,
    ChartSeries,
    Excluded,
    PortfolioAnalysis,
    Quote,
    TickerMetrics,
)

CONVENTIONS = (
    "Daily-rebalanced constant weights; simple daily returns; dates aligned on days every holding traded; "
    "annualised return = CAGR on 252 trading days; volatility = sample std (ddof=1) × √252; "
    "Sharpe/Sortino use rf de-annualised as (1+rf)^(1/252)−1; Sortino's downside deviation is over all days; "
    "max drawdown = min(value / running peak − 1)."
)


def _require_market_user(user: Any) -> None:
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        raise ToolFailure("forbidden", "Sign in to read market data.")


def portfolio_list(*, user: Any) -> QuerySet[Portfolio]:
    if not can_access(user, "portfolios"):
        return Portfolio.objects.none()
    return Portfolio.objects.visible_to(user).select_related("owner").prefetch_related("holdings")


def portfolio_get(*, user: Any, portfolio_id: int) -> Portfolio:
    """A portfolio the user may see; 404 (not 403) otherwise, so ids of private ones do not leak."""
    try:
        return portfolio_list(user=user).get(pk=portfolio_id)
    except (Portfolio.DoesNotExist, ValueError, TypeError):
        raise Http404("No such portfolio.") from None


def watchlist_list(*, user: Any) -> QuerySet[Watchlist]:
    if not can_access(user, "portfolios"):
        return Watchlist.objects.none()
    return Watchlist.objects.visible_to(user).select_related("owner")


def watchlist_get(*, user: Any, watchlist_id: int) -> Watchlist:
    try:
        return watchlist_list(user=user).get(pk=watchlist_id)
    except (Watchlist.DoesNotExist, ValueError, TypeError):
        raise Http404("No such watchlist.") from None


# --- market data ------------------------------------------------------------------------------
def quote_get(*, user: Any, ticker: str) -> Quote:
    _require_market_user(user)
    s = market.series_get(ticker)
    return Quote(
        symbol=s.symbol,
        name=s.name,
        currency=s.currency,
        date=s.as_of,
        last_close=metrics.last_close(s.closes),
        previous_close=metrics.previous_close(s.closes),
        change_1d_pct=metrics.change_1d_pct(s.closes),
        source=s.source,
        as_of=s.as_of,
    )


def metrics_get(*, user: Any, ticker: str) -> TickerMetrics:
    _require_market_user(user)
    s = market.series_get(ticker)
    if len(s.closes) < 2:
        raise ToolFailure("no_data", f"{s.symbol} has fewer than two bars; metrics need a history.")
    values = metrics.ticker_metrics(s.dates, s.closes)
    return TickerMetrics(symbol=s.symbol, name=s.name, currency=s.currency, source=s.source, as_of=s.as_of, **values)  # type: ignore[arg-type]


def _default_benchmark(symbols: Sequence[str]) -> str:
    indian = sum(1 for s in symbols if s.endswith((".NS", ".BO")) or s == "^NSEI")
    return "^NSEI" if indian * 2 >= len(symbols) else "SPY"


def analysis_run(
    *,
    user: Any,
    tickers: Sequence[str],
    weights: Sequence[float | None] | None,
    normalise: bool = True,
    benchmark: str = "",
    start: dt.date | None = None,
    include_series: bool = False,
    portfolio: Portfolio | None = None,
) -> PortfolioAnalysis:
    """Analyse holdings. Tickers that fail (unknown, no data) are excluded and named; the remaining
    weights are re-normalised with a notice. Raises ToolFailure only when nothing can be analysed."""
    _require_market_user(user)
    items = list(zip(tickers, weights if weights is not None else [None] * len(tickers), strict=False))
    if weights is not None and len(weights) != len(tickers):
        raise ToolFailure("invalid_input", f"{len(tickers)} tickers but {len(weights)} weights.")
    clean = analytics.clean_holdings(items, normalise=normalise, max_holdings=settings.PORTFOLIO_MAX_HOLDINGS)
    notices = list(clean.notices)
    # The benchmark (or both default candidates) rides in the same batch: one cache query for everything.
    extra = [benchmark] if benchmark else ["^NSEI", "SPY"]
    fetched = market.series_many([*clean.symbols, *extra])
    results, bench_results = fetched[: len(clean.symbols)], dict(zip(extra, fetched[len(clean.symbols) :], strict=True))
    series, kept_w, excluded = [], [], []
    seen: set[str] = set()
    for raw, weight, item in zip(clean.symbols, clean.weights, results, strict=True):
        if isinstance(item, ToolFailure):
            excluded.append(Excluded(ticker=raw, error=item.tool_error.error, message=item.tool_error.message))
        elif item.symbol in seen:
            raise ToolFailure("invalid_input", f"{raw} is the same instrument as {item.symbol}, listed twice.")
        else:
            seen.add(item.symbol)
            series.append(item)
            kept_w.append(weight)
    if not series:
        first = excluded[0]
        raise ToolFailure(
            first.error, "None of the tickers could be analysed: " + "; ".join(e.message for e in excluded)
        )
    if excluded:
        total = sum(kept_w)
        if total <= 0:
            raise ToolFailure("no_data", "Only zero-weight holdings could be analysed.")
        kept_w = [w / total for w in kept_w]
        names = ", ".join(e.ticker for e in excluded)
        notices.append(f"Excluded {names}; the remaining weights were re-normalised to add up to 1.")
    bench_symbol = benchmark or _default_benchmark([s.symbol for s in series])
    bench_result = bench_results[bench_symbol]
    bench_series = None
    if isinstance(bench_result, ToolFailure):
        notices.append(f"Benchmark {bench_symbol} unavailable: {bench_result.tool_error.message}")
    else:
        bench_series = bench_result
    rf = settings.MARKET_RISK_FREE_RATE
    result = analytics.analyse(series, kept_w, rf_annual=rf, benchmark=bench_series, start=start)
    if result.dropped_dates:
        examples = ", ".join(d.isoformat() for d in result.dropped_examples)
        notices.append(
            f"{result.dropped_dates} dates on which not every holding traded were dropped (latest: {examples})."
        )
    if result.benchmark is None and bench_series is not None:
        notices.append(f"Benchmark {bench_symbol} has too few dates in common with the portfolio to compare.")
    sources = sorted({s.source for s in series})
    chart = None
    if include_series:
        chart = ChartSeries(
            dates=result.dates,
            growth=result.growth.tolist(),
            drawdown=result.drawdown.tolist(),
            benchmark_dates=result.benchmark["dates"] if result.benchmark else [],
            benchmark_growth=result.benchmark["growth"].tolist() if result.benchmark else [],
        )
    bench = None
    if result.benchmark:
        bench = BenchmarkSummary.model_validate(
            {k: v for k, v in result.benchmark.items() if k not in {"dates", "growth"}}
        )
    return PortfolioAnalysis(
        portfolio_id=portfolio.pk if portfolio else None,
        name=portfolio.name if portfolio else "",
        notices=notices,
        excluded=excluded,
        start=result.start,
        end=result.end,
        observations=result.observations,
        dropped_dates=result.dropped_dates,
        dropped_date_examples=result.dropped_examples,
        risk_free_rate=rf,
        annualised_return=result.annualised_return,
        annualised_volatility=result.annualised_volatility,
        sharpe=result.sharpe,
        sortino=result.sortino,
        max_drawdown=result.max_drawdown,
        max_drawdown_peak=result.max_drawdown_peak,
        max_drawdown_trough=result.max_drawdown_trough,
        total_return=result.total_return,
        assets=[AssetRow.model_validate(a) for a in result.assets],
        correlation_symbols=[s.symbol for s in series],
        correlation=result.correlation,
        benchmark=bench,
        series=chart,
        conventions=CONVENTIONS,
        source=", ".join(sources),
        as_of=result.end,
    )


def portfolio_analysis(
    *, user: Any, portfolio_id: int, include_series: bool = False, start: dt.date | None = None
) -> PortfolioAnalysis:
    portfolio = portfolio_get(user=user, portfolio_id=portfolio_id)
    holdings = list(portfolio.holdings.all())
    if not holdings:
        raise ToolFailure("no_data", "This portfolio has no holdings yet.")
    return analysis_run(
        user=user,
        tickers=[h.ticker for h in holdings],
        weights=[h.weight for h in holdings],
        normalise=True,
        benchmark=portfolio.benchmark,
        start=start,
        include_series=include_series,
        portfolio=portfolio,
    )
