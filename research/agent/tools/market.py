"""``compare_returns``: each ticker's return over one horizon, on the same dates, with the benchmark.

A registry tool off the MCP whitelist (the chat agent's). Horizons follow the published return
conventions (``research/agent/question/horizons.py``): the end is the latest date every ticker and the
benchmark traded (on or before the end asked); each baseline is the last bar on or before the
horizon's start. The return is close(end) / close(baseline) − 1, in per cent, and the verifier
re-derives it from the cached bars. Imported by research/tools.py so the registry discovers it.
"""

from __future__ import annotations

import bisect
import datetime as dt
from typing import Any

from pydantic import BaseModel, Field

from core.exceptions import ApplicationError
from core.tools import tool
from research.packs import registry


class CompareReturnsIn(BaseModel):
    tickers: list[str] = Field(min_length=1, max_length=6, description="Tickers to compare, e.g. ['INFY', 'TCS']")
    months: int | None = Field(None, ge=1, le=120, description="Horizon in calendar months back from the end")
    ytd: bool = Field(False, description="Year to date: from the last bar of the previous year")
    start: dt.date | None = Field(None, description="Start of the horizon (the last bar on or before it is the base)")
    end: dt.date | None = Field(None, description="End of the horizon (default: the latest common bar)")
    benchmark: str = Field("", description=registry.BENCHMARK_NOTE or "Benchmark ticker")
    label: str = Field("", max_length=80, description="How the question named the horizon")


class ReturnRow(BaseModel):
    symbol: str
    name: str
    start_date: dt.date = Field(description="The baseline bar's date")
    end_date: dt.date
    start_close: float
    end_close: float
    return_pct: float = Field(description="(end_close / start_close - 1) x 100")
    currency: str = Field("", description="The closes' currency (an index's closes are points)")


class CompareReturnsOut(BaseModel):
    horizon: str
    requested_start: dt.date
    end: dt.date
    rows: list[ReturnRow]
    benchmark: ReturnRow | None
    best: str = Field(description="The ticker with the highest return over the horizon")
    source: str
    as_of: dt.date


def _months_back(day: dt.date, months: int) -> dt.date:
    import calendar

    year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
    month += 1
    return dt.date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _baseline(params: CompareReturnsIn, end: dt.date) -> dt.date:
    if params.start:
        return params.start
    if params.ytd:
        return dt.date(end.year - 1, 12, 31)
    return _months_back(end, params.months or 12)


def _common_end(series: list[Any], wanted: dt.date | None) -> dt.date:
    """The latest date on or before ``wanted`` on which every series has a bar."""
    common = set(series[0].dates)
    for s in series[1:]:
        common &= set(s.dates)
    eligible = [d for d in common if wanted is None or d <= wanted]
    if not eligible:
        raise ApplicationError("no_data", "The tickers and the benchmark have no trading day in common in that window.")
    return max(eligible)


def _row(s: Any, base: dt.date, end: dt.date) -> ReturnRow:
    i = bisect.bisect_right(s.dates, base) - 1
    j = s.dates.index(end)
    if i < 0:
        raise ApplicationError(
            "no_data", f"{s.symbol} has no bar on or before {base} (its history starts {s.dates[0]})."
        )
    start_close, end_close = float(s.closes[i]), float(s.closes[j])
    return ReturnRow(
        symbol=s.symbol,
        name=s.name,
        start_date=s.dates[i],
        end_date=end,
        start_close=start_close,
        end_close=end_close,
        return_pct=(end_close / start_close - 1.0) * 100.0,
        currency=s.currency,
    )


@tool("compare_returns", input_model=CompareReturnsIn, output_model=CompareReturnsOut, mcp=False)
def compare_returns(params: CompareReturnsIn, *, user: Any) -> CompareReturnsOut:
    """Return of each ticker over one horizon (last N months, year to date, since a date, between
    two dates) on the same dates, which did better, and the benchmark over those dates."""
    from portfolios import market
    from portfolios.selectors import _default_benchmark, _require_market_user

    _require_market_user(user)
    series = [market.series_get(t) for t in params.tickers]
    bench_symbol = params.benchmark or _default_benchmark([s.symbol for s in series])
    bench = None if bench_symbol in {s.symbol for s in series} else market.series_get(bench_symbol)
    end = _common_end([*series, *([bench] if bench else [])], params.end)
    base = _baseline(params, end)
    if base >= end:
        raise ApplicationError("invalid_input", f"The horizon starts on {base}, not before its end {end}.")
    rows = [_row(s, base, end) for s in series]
    return CompareReturnsOut(
        horizon=params.label or f"from {base} to {end}",
        requested_start=base,
        end=end,
        rows=rows,
        benchmark=_row(bench, base, end) if bench else None,
        best=max(rows, key=lambda r: r.return_pct).symbol,
        source=series[0].source,
        as_of=end,
    )
