"""The one interface every market-data provider implements.

Providers raise :class:`MarketDataError` (a :class:`core.exceptions.ApplicationError`) with one of the codes
``unknown_ticker``, ``no_data`` or ``provider_unavailable``; the cache and the tools pass it on as a
structured error, so a dead network or a typo never becomes a 500.
"""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod

from core.exceptions import ApplicationError
from portfolios.schemas import FundamentalsData, InstrumentInfo, ProviderHistory


class MarketDataError(ApplicationError):
    pass


def unknown_ticker(symbol: str) -> MarketDataError:
    return MarketDataError("unknown_ticker", f"No instrument called {symbol} is known to the market data provider.")


def no_data(symbol: str, what: str = "price history") -> MarketDataError:
    return MarketDataError("no_data", f"The market data provider has no {what} for {symbol}.", symbol=symbol)


def unavailable(reason: str) -> MarketDataError:
    return MarketDataError("provider_unavailable", f"The market data provider is unavailable: {reason}")


class MarketDataProvider(ABC):
    #: Stored on every cached row and shown on every screen as the data source.
    name: str

    @abstractmethod
    def describe(self, symbol: str) -> InstrumentInfo:
        """Name, exchange, currency, sector of ``symbol``; raises ``unknown_ticker``."""

    @abstractmethod
    def history(self, symbol: str, *, start: dt.date | None = None) -> ProviderHistory:
        """Daily adjusted bars from ``start`` (inclusive; None = all available), oldest first."""

    @abstractmethod
    def fundamentals(self, symbol: str) -> FundamentalsData:
        """Valuation and quality figures where the provider has them; raises ``no_data`` otherwise."""
