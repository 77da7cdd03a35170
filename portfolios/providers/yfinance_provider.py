"""Live provider over Yahoo Finance — the only module that imports yfinance.

* Polite: every HTTP request takes a slot from a per-minute budget kept in Redis, so all web and
  worker processes together stay under ``YFINANCE_MAX_REQUESTS_PER_MINUTE``.
* Retries with exponential backoff on HTTP 429 and 5xx; short timeouts.
* ``YFINANCE_BASE_URL`` (empty in production) sends every Yahoo request to another origin: the
  tests point it at a local server replaying recorded Yahoo responses. The seam is the HTTP session
  handed to yfinance; yfinance itself runs unmodified.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import threading
import time
import warnings
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import yfinance as yf
from curl_cffi import requests as curl_requests
from django.conf import settings
from django.core.cache import cache

from portfolios.providers.base import MarketDataError, MarketDataProvider, no_data, unavailable, unknown_ticker
from portfolios.schemas import Bar, FundamentalsData, InstrumentInfo, ProviderHistory

logger = logging.getLogger(__name__)

_RATE_KEY = "yfinance:requests:{minute}"
_YF_LOCK = threading.Lock()

# Errors must reach us as exceptions (mapped to structured errors below), not be logged and swallowed;
# retries are ours (with backoff on 429/5xx), so yfinance's own network retries are off.
yf.config.debug.hide_exceptions = False
yf.config.network.retries = 0


def rate_limit_acquire() -> None:
    """Take one request slot from the shared per-minute budget, waiting for the next minute if it
    is spent; gives up with ``provider_unavailable`` rather than stall a page for long."""
    limit = settings.YFINANCE_MAX_REQUESTS_PER_MINUTE
    waited = 0.0
    while True:
        minute = int(time.time() // 60)
        key = _RATE_KEY.format(minute=minute)
        cache.add(key, 0, timeout=120)
        try:
            used = cache.incr(key)
        except ValueError:  # expired between add and incr
            continue
        if used <= limit:
            return
        pause = 60 - (time.time() % 60) + 0.05
        if waited + pause > settings.YFINANCE_MAX_RATE_WAIT_SECONDS:
            raise unavailable("the shared Yahoo request budget for this minute is spent; try again shortly.")
        time.sleep(pause)
        waited += pause


class _YahooSession(curl_requests.Session):
    """The HTTP session yfinance uses: rate-limited, short timeouts, optional origin override."""

    def __init__(self, base_url: str, timeout: float) -> None:
        super().__init__(impersonate="chrome")
        self._base = urlsplit(base_url) if base_url else None
        self._timeout = timeout

    def request(self, method: Any, url: str, *args: Any, **kwargs: Any) -> Any:
        rate_limit_acquire()
        if self._base is not None:
            parts = urlsplit(url)
            if parts.hostname and parts.hostname.endswith("yahoo.com"):
                url = urlunsplit((self._base.scheme, self._base.netloc, parts.path, parts.query, ""))
        kwargs["timeout"] = min(float(kwargs.get("timeout") or self._timeout), self._timeout)
        return super().request(method, url, *args, **kwargs)


def _is_retryable(exc: Exception) -> bool:
    if isinstance(exc, yf.exceptions.YFRateLimitError):
        return True
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


def _is_network(exc: Exception) -> bool:
    return isinstance(exc, curl_requests.exceptions.RequestException) and getattr(exc, "response", None) is None


def _float(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


class YFinanceProvider(MarketDataProvider):
    name = "yfinance"

    def __init__(self, base_url: str = "", timeout: float = 5.0, retries: int = 3, backoff: float = 0.5) -> None:
        self.session = _YahooSession(base_url, timeout)
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff

    def _call(self, symbol: str, fn: Any) -> Any:
        """Run one yfinance call with retries; map every failure to a structured error."""
        for attempt in range(self.retries + 1):
            try:
                # catch_warnings is process-global, so calls are serialised per process (yfinance shares
                # one session and cookie jar across threads anyway); the shared rate limit spans processes.
                with _YF_LOCK, warnings.catch_warnings():
                    # yfinance 1.7 still calls pandas APIs that pandas 3.x deprecates; not ours to fix.
                    warnings.filterwarnings("ignore", message="The inplace keyword", module="yfinance")
                    return fn(yf.Ticker(symbol, session=self.session))
            except MarketDataError:
                raise
            except Exception as exc:
                if _is_retryable(exc) and attempt < self.retries:
                    time.sleep(self.backoff * 2**attempt)
                    continue
                if _is_retryable(exc) or _is_network(exc):
                    logger.warning("yfinance %s failed: %s", symbol, exc)
                    raise unavailable(f"Yahoo Finance did not answer ({type(exc).__name__}).") from exc
                status = getattr(getattr(exc, "response", None), "status_code", None)
                if status == 404 or isinstance(
                    exc, yf.exceptions.YFTickerMissingError | yf.exceptions.YFTzMissingError
                ):
                    raise unknown_ticker(symbol) from exc
                if isinstance(exc, yf.exceptions.YFPricesMissingError):
                    raise no_data(symbol) from exc
                logger.warning("yfinance %s failed: %r", symbol, exc)
                raise unavailable(f"Yahoo Finance answered with an error ({type(exc).__name__}).") from exc
        # Not reached: the last attempt returns or raises. Kept so the function visibly ends in a
        # structured error (and mypy sees no implicit None) if the loop is ever changed.
        raise unavailable("Yahoo Finance kept rate-limiting us.")

    def _frame(self, ticker: Any, start: dt.date | None) -> Any:
        kwargs: dict[str, Any] = {"interval": "1d", "auto_adjust": True, "timeout": self.timeout}
        if start is None:
            kwargs["period"] = "5y"
        else:
            kwargs["start"] = start.isoformat()
        return ticker.history(**kwargs)

    def describe(self, symbol: str) -> InstrumentInfo:
        def run(ticker: Any) -> InstrumentInfo:
            frame = self._frame(ticker, dt.date.today() - dt.timedelta(days=10))
            meta = ticker.history_metadata or {}
            if frame is None or (frame.empty and not meta):
                raise unknown_ticker(symbol)
            kind = {"INDEX": "index", "ETF": "etf"}.get(str(meta.get("instrumentType", "")).upper(), "equity")
            return InstrumentInfo(
                symbol=symbol,
                name=str(meta.get("longName") or meta.get("shortName") or symbol),
                exchange=str(meta.get("fullExchangeName") or meta.get("exchangeName") or ""),
                currency=str(meta.get("currency") or ""),
                kind=kind,
            )

        return self._call(symbol, run)

    def history(self, symbol: str, *, start: dt.date | None = None) -> ProviderHistory:
        def run(ticker: Any) -> ProviderHistory:
            frame = self._frame(ticker, start)
            bars = []
            for stamp, row in frame.iterrows():
                close = _float(row.get("Close"))
                if close is None:
                    continue
                volume = _float(row.get("Volume"))
                bars.append(
                    Bar(
                        date=stamp.date(),
                        open=_float(row.get("Open")),
                        high=_float(row.get("High")),
                        low=_float(row.get("Low")),
                        close=close,
                        volume=int(volume) if volume is not None else None,
                    )
                )
            if not bars and start is None:
                raise no_data(symbol)
            return ProviderHistory(symbol=symbol, bars=bars, source=self.name)

        return self._call(symbol, run)

    def fundamentals(self, symbol: str) -> FundamentalsData:
        def run(ticker: Any) -> FundamentalsData:
            info = ticker.get_info() or {}
            if not info or (info.get("quoteType") is None and info.get("trailingPE") is None):
                raise no_data(symbol, "fundamentals")
            market_time = info.get("regularMarketTime")
            as_of = dt.datetime.fromtimestamp(float(market_time), tz=dt.UTC).date() if market_time else None
            return FundamentalsData(
                symbol=symbol,
                name=info.get("longName") or info.get("shortName"),
                sector=info.get("sector"),
                industry=info.get("industry"),
                currency=info.get("currency") or info.get("financialCurrency"),
                trailing_pe=_float(info.get("trailingPE")),
                forward_pe=_float(info.get("forwardPE")),
                market_cap=_float(info.get("marketCap")),
                beta=_float(info.get("beta")),
                dividend_yield=_float(info.get("dividendYield")),
                profit_margin=_float(info.get("profitMargins")),
                operating_margin=_float(info.get("operatingMargins")),
                debt_to_equity=_float(info.get("debtToEquity")),
                source=self.name,
                as_of=as_of,
            )

        return self._call(symbol, run)
