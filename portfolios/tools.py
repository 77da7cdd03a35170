"""Market and portfolio tools for the shared registry (agents and the MCP bridge).

Every output carries ``source`` and ``as_of``; failures come back as structured errors
(``unknown_ticker``, ``no_data``, ``provider_unavailable``, ``invalid_input``, ``forbidden``).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

import numpy as np
from django.core.exceptions import PermissionDenied
from django.http import Http404
from pydantic import BaseModel, Field

from core.exceptions import ApplicationError
from core.roles import can_access
from core.tools import tool
from portfolios import market, metrics, selectors
from portfolios.schemas import Bar, Fundamentals, PortfolioAnalysis, PriceHistory, Quote, Returns, TickerMetrics

MAX_HISTORY_BARS = 2000


class TickerIn(BaseModel):
    ticker: str = Field(
        description="NSE RELIANCE.NS, BSE 500325.BO, US AAPL, index ^NSEI; bare RELIANCE → default exchange"
    )


class HistoryIn(TickerIn):
    start: dt.date | None = Field(None, description="First date (inclusive); default one year before the newest bar")
    end: dt.date | None = Field(None, description="Last date (inclusive); default the newest bar")


class ReturnsIn(HistoryIn):
    kind: Literal["simple", "log"] = "simple"


class AnalyzeIn(BaseModel):
    portfolio_id: int | None = Field(None, description="Analyse a saved portfolio you may see")
    tickers: list[str] | None = Field(None, description="Or analyse these tickers", max_length=1000)
    weights: list[float | None] | None = Field(None, description="Weights for `tickers` (omit for equal weights)")
    normalise: bool = Field(True, description="Scale weights that do not add up to 1 (with a notice)")
    benchmark: str = Field("", description="Benchmark ticker; default ^NSEI for Indian holdings, else SPY")
    start: dt.date | None = None
    include_series: bool = Field(False, description="Include the daily growth and drawdown series (for charts)")


def _window(start: dt.date | None, end: dt.date | None, last: dt.date) -> tuple[dt.date, dt.date]:
    end = end or last
    try:
        start = start or end - dt.timedelta(days=365)
    except OverflowError:  # an end date in year 1
        raise ApplicationError("invalid_input", f"end ({end}) is before any market data.") from None
    if start > end:
        raise ApplicationError("invalid_input", f"start ({start}) is after end ({end}).")
    return start, end


@tool("get_stock_quote", input_model=TickerIn, output_model=Quote)
def get_stock_quote(params: TickerIn, *, user: Any) -> Quote:
    """Latest daily close of a ticker with the previous close and the 1-day change in percent, from the
    shared cache. States its source and as-of date (the newest bar; the offline snapshot is not live)."""
    return selectors.quote_get(user=user, ticker=params.ticker)


@tool("get_price_history", input_model=HistoryIn, output_model=PriceHistory)
def get_price_history(params: HistoryIn, *, user: Any) -> PriceHistory:
    """Daily adjusted OHLCV bars of a ticker between start and end (default: the last year), at most 2000 bars."""
    selectors._require_market_user(user)
    instrument = market.bars_refresh(market.instrument_resolve(params.ticker))
    if instrument.last_bar_date is None:
        raise ApplicationError("no_data", f"No bars for {instrument.symbol}.")
    start, end = _window(params.start, params.end, instrument.last_bar_date)
    _, rows = market.bars_between(instrument.symbol, start, end)
    if not rows:
        raise ApplicationError("no_data", f"No bars for {instrument.symbol} between {start} and {end}.")
    rows = rows[-MAX_HISTORY_BARS:]
    bars = [Bar(date=r.date, open=r.open, high=r.high, low=r.low, close=r.close, volume=r.volume) for r in rows]
    return PriceHistory(
        symbol=instrument.symbol,
        currency=instrument.currency,
        bars=bars,
        source=instrument.source,
        as_of=instrument.last_bar_date,
    )


@tool("get_returns", input_model=ReturnsIn, output_model=Returns, mcp=False)
def get_returns(params: ReturnsIn, *, user: Any) -> Returns:
    """Daily returns of a ticker between start and end: simple P_t/P_{t-1} − 1 or log ln(P_t/P_{t-1});
    each return is dated by its later bar."""
    selectors._require_market_user(user)
    s = market.series_get(params.ticker)
    start, end = _window(params.start, params.end, s.as_of)
    lo = int(np.searchsorted(s.ordinals, start.toordinal()))
    hi = int(np.searchsorted(s.ordinals, end.toordinal(), side="right"))
    closes = s.closes[lo:hi]
    if len(closes) < 2:
        raise ApplicationError("no_data", f"Fewer than two bars for {s.symbol} between {start} and {end}.")
    values = metrics.log_returns(closes) if params.kind == "log" else metrics.simple_returns(closes)
    return Returns(
        symbol=s.symbol,
        kind=params.kind,
        dates=list(s.dates[lo + 1 : hi]),
        returns=values.tolist(),
        source=s.source,
        as_of=s.as_of,
    )


@tool("get_fundamentals", input_model=TickerIn, output_model=Fundamentals)
def get_fundamentals(params: TickerIn, *, user: Any) -> Fundamentals:
    """Name, sector, currency, trailing/forward P/E, market cap, beta, dividend yield, margins and
    debt/equity where the provider has them (cached for 24 hours), with source and as-of date."""
    selectors._require_market_user(user)
    return Fundamentals.model_validate(market.fundamentals_get(params.ticker).model_dump())


@tool("compute_metrics", input_model=TickerIn, output_model=TickerMetrics)
def compute_metrics(params: TickerIn, *, user: Any) -> TickerMetrics:
    """Published metrics of a ticker: last/previous close, 1-day change, 30-day return (with its baseline
    date), annualised volatility of log returns, max drawdown, 1M/3M/6M/1Y/YTD returns, 52-week high/low."""
    return selectors.metrics_get(user=user, ticker=params.ticker)


@tool("analyze_portfolio", input_model=AnalyzeIn, output_model=PortfolioAnalysis)
def analyze_portfolio(params: AnalyzeIn, *, user: Any) -> PortfolioAnalysis:
    """Analyse a saved portfolio (portfolio_id) or tickers with weights: annualised return (CAGR, 252 days),
    volatility, Sharpe, Sortino, max drawdown with dates, per-asset contributions to return and risk,
    correlations and a benchmark comparison. Bad tickers are excluded and named, not fatal."""
    if not can_access(user, "portfolios"):  # a ticker basket is portfolio analysis too (issue 17)
        raise ApplicationError("forbidden", "Your role does not give access to Portfolios.")
    try:
        if params.portfolio_id is not None:
            return selectors.portfolio_analysis(
                user=user, portfolio_id=params.portfolio_id, include_series=params.include_series, start=params.start
            )
        if not params.tickers:
            raise ApplicationError("invalid_input", "Give a portfolio_id or a list of tickers.")
        return selectors.analysis_run(
            user=user,
            tickers=params.tickers,
            weights=params.weights,
            normalise=params.normalise,
            benchmark=params.benchmark,
            start=params.start,
            include_series=params.include_series,
        )
    except (Http404, PermissionDenied):
        raise ApplicationError("forbidden", "No such portfolio, or you may not see it.") from None
