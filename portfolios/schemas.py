"""Pydantic models shared by the providers, the cache and the tools.

Every model a caller sees carries ``source`` (which provider produced the numbers) and ``as_of``
(the date of the newest bar behind them): nothing pretends to be live.
"""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field


class Bar(BaseModel):
    """One daily bar. Prices are adjusted for splits and dividends (yfinance ``auto_adjust``)."""

    model_config = ConfigDict(frozen=True)

    date: dt.date
    open: float | None = None
    high: float | None = None
    low: float | None = None
    close: float
    volume: int | None = None


class InstrumentInfo(BaseModel):
    symbol: str
    name: str = ""
    exchange: str = ""
    currency: str = ""
    sector: str = ""
    industry: str = ""
    kind: str = "equity"  # equity, index, etf


class ProviderHistory(BaseModel):
    """What a provider returns for a history request (bars oldest first)."""

    symbol: str
    bars: list[Bar]
    source: str


class FundamentalsData(BaseModel):
    symbol: str
    name: str | None = None
    sector: str | None = None
    industry: str | None = None
    currency: str | None = None
    trailing_pe: float | None = None
    forward_pe: float | None = None
    market_cap: float | None = None
    beta: float | None = None
    dividend_yield: float | None = Field(None, description="Fraction, e.g. 0.0041 = 0.41 %")
    profit_margin: float | None = None
    operating_margin: float | None = None
    debt_to_equity: float | None = Field(None, description="As Yahoo reports it: percent, e.g. 145 = 1.45×")
    source: str
    as_of: dt.date | None = Field(None, description="Date the provider's figures refer to")
    fetched_at: dt.datetime | None = None


# --- tool outputs ------------------------------------------------------------------------------
class Sourced(BaseModel):
    source: str = Field(description="Provider the figures came from (snapshot = shipped historical data)")
    as_of: dt.date | None = Field(description="Date of the newest bar (or figure) behind this answer")


class Quote(Sourced):
    symbol: str
    name: str
    currency: str
    date: dt.date
    last_close: float
    previous_close: float | None
    change_1d_pct: float | None


class PriceHistory(Sourced):
    symbol: str
    currency: str
    bars: list[Bar]


class Returns(Sourced):
    symbol: str
    kind: str = Field(description="simple: P_t/P_{t-1} − 1; log: ln(P_t/P_{t-1})")
    dates: list[dt.date]
    returns: list[float]


class Fundamentals(FundamentalsData):
    pass


class TickerMetrics(Sourced):
    symbol: str
    name: str
    currency: str
    first_date: dt.date
    last_date: dt.date
    bars: int
    last_close: float
    previous_close: float | None
    change_1d_pct: float | None
    return_30d_pct: float | None
    return_30d_baseline_date: dt.date | None
    volatility_annualised_pct: float | None
    max_drawdown_pct: float | None
    high_52w: float
    low_52w: float
    period_returns_pct: dict[str, float | None]
    period_baseline_dates: dict[str, dt.date | None]


class Excluded(BaseModel):
    ticker: str
    error: str
    message: str


class AssetRow(BaseModel):
    symbol: str
    name: str
    weight: float
    annualised_return: float
    annualised_volatility: float
    total_return: float
    contribution_to_return: float
    contribution_to_risk: float


class BenchmarkSummary(BaseModel):
    symbol: str
    total_return: float
    annualised_return: float
    annualised_volatility: float
    portfolio_total_return_same_dates: float
    source: str
    as_of: dt.date
    start: dt.date | None = Field(None, description="First date the portfolio and the benchmark have in common")
    end: dt.date | None = Field(None, description="Last date in common")


class ChartSeries(BaseModel):
    dates: list[dt.date]
    growth: list[float]
    drawdown: list[float]
    benchmark_dates: list[dt.date] = []
    benchmark_growth: list[float] = []


class PortfolioAnalysis(Sourced):
    portfolio_id: int | None = None
    name: str = ""
    notices: list[str]
    excluded: list[Excluded]
    start: dt.date
    end: dt.date
    observations: int
    dropped_dates: int = Field(description="Dates on which some holding did not trade; removed before analysis")
    dropped_date_examples: list[dt.date]
    risk_free_rate: float
    risk_free_currency: str = ""
    risk_free_source: str = Field("", description="Set on the portfolio, or the default for its main currency")
    annualised_return: float = Field(description="CAGR, 252-day basis (fraction)")
    annualised_volatility: float
    sharpe: float | None
    sortino: float | None
    max_drawdown: float
    max_drawdown_peak: dt.date
    max_drawdown_trough: dt.date
    total_return: float
    assets: list[AssetRow]
    correlation_symbols: list[str]
    correlation: list[list[float]]
    benchmark: BenchmarkSummary | None
    series: ChartSeries | None = None
    conventions: str
