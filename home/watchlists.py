"""The home page's watchlist grid: one row per ticker with last, day change, 1M, 52-week range,
a sparkline and its as-of — read from the shared market-data cache (one query for all tickers)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.exceptions import ApplicationError
from core.formatting import is_index_symbol
from portfolios import market, metrics
from portfolios.market import Series
from portfolios.selectors import watchlist_list

SPARK_DAYS = 92  # the sparkline covers about three months
SPARK_W, SPARK_H = 120, 28


@dataclass
class QuoteRow:
    symbol: str
    name: str = ""
    currency: str = ""
    index: bool = False
    last: float | None = None
    change_1d_pct: float | None = None
    return_1m_pct: float | None = None
    low_52w: float | None = None
    high_52w: float | None = None
    range_position: int = 0  # where the last close sits in the 52-week range, 0..100
    spark: str = ""  # SVG polyline points
    spark_up: bool = True
    as_of: dt.date | None = None
    source: str = ""
    error: str = ""


@dataclass
class WatchlistCard:
    watchlist: Any
    rows: list[QuoteRow] = field(default_factory=list)

    @property
    def as_of(self) -> dt.date | None:
        dates = [r.as_of for r in self.rows if r.as_of]
        return max(dates) if dates else None


def sparkline(closes: np.ndarray) -> str:
    """SVG ``points`` for the closes scaled into a SPARK_W × SPARK_H box (y grows downward)."""
    if len(closes) < 2:
        return ""
    lo, hi = float(closes.min()), float(closes.max())
    span = (hi - lo) or 1.0
    step = SPARK_W / (len(closes) - 1)
    return " ".join(
        f"{i * step:.1f},{(SPARK_H - 2) - (float(c) - lo) / span * (SPARK_H - 4):.1f}" for i, c in enumerate(closes)
    )


def quote_row(series: Series) -> QuoteRow:
    closes, dates = series.closes, series.dates
    row = QuoteRow(
        symbol=series.symbol,
        name=series.name,
        currency=series.currency,
        index=is_index_symbol(series.symbol),
        as_of=series.as_of,
        source=series.source,
    )
    row.last = metrics.last_close(closes)
    row.change_1d_pct = metrics.change_1d_pct(closes)
    row.return_1m_pct = metrics.period_returns_pct(dates, closes)["1M"][0] if len(closes) > 1 else None
    row.high_52w, row.low_52w = metrics.high_low_52w(dates, closes)
    span = row.high_52w - row.low_52w
    row.range_position = min(100, max(0, round((row.last - row.low_52w) / span * 100))) if span > 0 else 50
    start = int(series.ordinals.searchsorted((series.as_of - dt.timedelta(days=SPARK_DAYS)).toordinal()))
    window = closes[start:]
    row.spark = sparkline(window)
    row.spark_up = bool(len(window) < 2 or window[-1] >= window[0])
    return row


def watchlist_cards(*, user: Any, limit: int = 6) -> list[WatchlistCard]:
    """The user's watchlists (own first, then the team's) with a quote row per ticker."""
    watchlists = sorted(watchlist_list(user=user)[:limit], key=lambda w: (w.owner_id != user.pk, w.name.lower()))
    symbols = list(dict.fromkeys(t for w in watchlists for t in w.tickers))
    fetched = dict(zip(symbols, market.series_many(symbols), strict=True)) if symbols else {}
    cards = []
    for watchlist in watchlists:
        card = WatchlistCard(watchlist=watchlist)
        for ticker in watchlist.tickers:
            item = fetched[ticker]
            if isinstance(item, ApplicationError):
                card.rows.append(QuoteRow(symbol=ticker, error=item.message))
            else:
                card.rows.append(quote_row(item))
        cards.append(card)
    return cards
