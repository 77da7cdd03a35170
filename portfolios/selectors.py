"""Reads, always scoped to what the user may see: watchlists, portfolios, market data and analysis."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import QuerySet
from django.http import Http404

from core.exceptions import ApplicationError
from core.roles import can_access
from portfolios import analytics, market, metrics, risk_free
from portfolios.market import Series
from portfolios.models import Instrument, Portfolio, PriceBar, Watchlist
from portfolios.schemas import (
    AssetRow,
    BenchmarkSummary,
    ChartSeries,
    Excluded,
    InstrumentInfo,
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
        raise ApplicationError("forbidden", "Sign in to read market data.")


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
        raise ApplicationError("no_data", f"{s.symbol} has fewer than two bars; metrics need a history.")
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
    weights are re-normalised with a notice. Raises ApplicationError only when nothing can be analysed."""
    _require_market_user(user)
    items = list(zip(tickers, weights if weights is not None else [None] * len(tickers), strict=False))
    if weights is not None and len(weights) != len(tickers):
        raise ApplicationError("invalid_input", f"{len(tickers)} tickers but {len(weights)} weights.")
    clean = analytics.clean_holdings(items, normalise=normalise, max_holdings=settings.PORTFOLIO_MAX_HOLDINGS)
    notices = list(clean.notices)
    results, bench_results = _fetch_with_benchmarks(clean.symbols, benchmark)
    series, kept_w, excluded = _analysable(clean.symbols, clean.weights, results)
    if excluded:
        kept_w = _renormalised_without(excluded, kept_w, notices)
    bench_symbol = benchmark or _default_benchmark([s.symbol for s in series])
    bench_series = _benchmark_or_notice(bench_symbol, bench_results[bench_symbol], notices)
    currency = risk_free.main_currency(zip((s.currency for s in series), kept_w, strict=True))
    override = portfolio.risk_free_rate if portfolio is not None else None
    rf, rf_source = risk_free.resolve(currency=currency, override=override)
    result = analytics.analyse(series, kept_w, rf_annual=rf, benchmark=bench_series, start=start)
    notices += _alignment_notices(result, bench_symbol, bench_series)
    return _analysis_output(
        result,
        series=series,
        excluded=excluded,
        notices=notices,
        risk_free=(rf, currency, rf_source),
        include_series=include_series,
        portfolio=portfolio,
    )


def _fetch_with_benchmarks(
    symbols: list[str], benchmark: str
) -> tuple[list[Series | ApplicationError], dict[str, Series | ApplicationError]]:
    """The holdings' series in order, and the benchmark's keyed by symbol (each may be an error).

    The benchmark — or both default candidates, since the default depends on which holdings load —
    rides in the same batch: one cache query for everything."""
    extra = [benchmark] if benchmark else ["^NSEI", "SPY"]
    fetched = market.series_many([*symbols, *extra])
    return fetched[: len(symbols)], dict(zip(extra, fetched[len(symbols) :], strict=True))


def _analysable(
    symbols: list[str], weights: list[float], results: list[Series | ApplicationError]
) -> tuple[list[Series], list[float], list[Excluded]]:
    """The series and weights of the holdings that loaded, and the failing ones as exclusions.

    Two tickers naming one instrument (INFY and INFY.NS) are an input error, not an exclusion;
    nothing left to analyse raises with every reason, under the first failure's code."""
    series: list[Series] = []
    kept_w: list[float] = []
    excluded: list[Excluded] = []
    seen: set[str] = set()
    for raw, weight, item in zip(symbols, weights, results, strict=True):
        if isinstance(item, ApplicationError):
            excluded.append(Excluded(ticker=raw, error=item.code, message=item.message))
        elif item.symbol in seen:
            raise ApplicationError("invalid_input", f"{raw} is the same instrument as {item.symbol}, listed twice.")
        else:
            seen.add(item.symbol)
            series.append(item)
            kept_w.append(weight)
    if not series:
        first = excluded[0]
        raise ApplicationError(
            first.error, "None of the tickers could be analysed: " + "; ".join(e.message for e in excluded)
        )
    return series, kept_w, excluded


def _renormalised_without(excluded: list[Excluded], kept_w: list[float], notices: list[str]) -> list[float]:
    """The kept weights scaled back to a sum of 1 after exclusions, saying so in ``notices``."""
    total = sum(kept_w)
    if total <= 0:
        raise ApplicationError("no_data", "Only zero-weight holdings could be analysed.")
    names = ", ".join(e.ticker for e in excluded)
    notices.append(f"Excluded {names}; the remaining weights were re-normalised to add up to 1.")
    return [w / total for w in kept_w]


def _benchmark_or_notice(symbol: str, result: Series | ApplicationError, notices: list[str]) -> Series | None:
    """The benchmark series; an unavailable benchmark is a notice, never a failed analysis."""
    if isinstance(result, ApplicationError):
        notices.append(f"Benchmark {symbol} unavailable: {result.message}")
        return None
    return result


def _alignment_notices(result: analytics.Analysis, bench_symbol: str, bench_series: Series | None) -> list[str]:
    """What aligning the dates cost: dropped dates, and a benchmark with too few dates in common."""
    notices = []
    if result.dropped_dates:
        examples = ", ".join(d.isoformat() for d in result.dropped_examples)
        notices.append(
            f"{result.dropped_dates} dates on which not every holding traded were dropped (latest: {examples})."
        )
    if result.benchmark is None and bench_series is not None:
        notices.append(f"Benchmark {bench_symbol} has too few dates in common with the portfolio to compare.")
    return notices


def _chart_series(result: analytics.Analysis) -> ChartSeries:
    return ChartSeries(
        dates=result.dates,
        growth=result.growth.tolist(),
        drawdown=result.drawdown.tolist(),
        benchmark_dates=result.benchmark["dates"] if result.benchmark else [],
        benchmark_growth=result.benchmark["growth"].tolist() if result.benchmark else [],
    )


def _benchmark_summary(result: analytics.Analysis) -> BenchmarkSummary | None:
    if not result.benchmark:
        return None
    # The chart arrays travel in ChartSeries, not in the summary; their first and last dates do.
    dates = result.benchmark["dates"]
    summary = {k: v for k, v in result.benchmark.items() if k not in {"dates", "growth"}}
    return BenchmarkSummary.model_validate(
        {**summary, "start": dates[0] if dates else None, "end": dates[-1] if dates else None}
    )


def _analysis_output(
    result: analytics.Analysis,
    *,
    series: list[Series],
    excluded: list[Excluded],
    notices: list[str],
    risk_free: tuple[float, str, str],
    include_series: bool,
    portfolio: Portfolio | None,
) -> PortfolioAnalysis:
    """The analysis as the tools, API and pages return it (the chart arrays only when asked for)."""
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
        risk_free_rate=risk_free[0],
        risk_free_currency=risk_free[1],
        risk_free_source=risk_free[2],
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
        benchmark=_benchmark_summary(result),
        series=_chart_series(result) if include_series else None,
        conventions=CONVENTIONS,
        source=", ".join(sorted({s.source for s in series})),
        as_of=result.end,
    )


def portfolio_analysis(
    *, user: Any, portfolio_id: int, include_series: bool = False, start: dt.date | None = None
) -> PortfolioAnalysis:
    portfolio = portfolio_get(user=user, portfolio_id=portfolio_id)
    holdings = list(portfolio.holdings.all())
    if not holdings:
        raise ApplicationError("no_data", "This portfolio has no holdings yet.")
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


# --- reads for verifiers and renderers (no maths here) -----------------------------------------
def benchmark_for(symbols: Sequence[str]) -> str:
    """The default benchmark of a list of tickers: ^NSEI when at least half are Indian, else SPY."""
    return _default_benchmark(symbols)


def instruments_describe(*, user: Any, symbols: Sequence[str]) -> dict[str, InstrumentInfo]:
    """Name, currency, kind (equity, index, etf) and sector of cached instruments, in one query.
    Symbols not in the cache are left out (resolve them through a tool first)."""
    _require_market_user(user)
    rows = Instrument.objects.filter(symbol__in=list(symbols)).values(
        "symbol", "name", "exchange", "currency", "sector", "industry", "kind"
    )
    return {row["symbol"]: InstrumentInfo.model_validate(row) for row in rows}


def stored_closes(*, user: Any, symbols: Sequence[str]) -> dict[str, tuple[list[dt.date], list[float]]]:
    """Dates and closes of each symbol straight from the stored bars (``PriceBar``), oldest first,
    in one query — not through the in-process series cache the tools use, so a verifier that
    recomputes from these catches a cache that drifted from the database."""
    _require_market_user(user)
    ids = dict(Instrument.objects.filter(symbol__in=list(symbols)).values_list("pk", "symbol"))
    out: dict[str, tuple[list[dt.date], list[float]]] = {symbol: ([], []) for symbol in ids.values()}
    if not ids:
        return out
    epoch = dt.date(1970, 1, 1).toordinal()
    days: dict[int, dt.date] = {}  # the instruments share their trading days: build each date once
    with connection.cursor() as cursor:  # day numbers, not dates: the driver parses ints far faster
        cursor.execute(
            f"SELECT instrument_id, date - DATE '1970-01-01', close FROM {PriceBar._meta.db_table} "  # noqa: S608  # nosec B608
            "WHERE instrument_id = ANY(%s) ORDER BY instrument_id, date",
            [list(ids)],
        )
        rows = cursor.fetchall()
    for instrument_id, day, close in rows:
        dates, closes = out[ids[instrument_id]]
        date = days.get(day)
        if date is None:
            date = days[day] = dt.date.fromordinal(epoch + day)
        dates.append(date)
        closes.append(close)
    return out
