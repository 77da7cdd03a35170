"""The yfinance provider against a local server replaying recorded Yahoo responses.

The seam is the HTTP session handed to yfinance (``YFINANCE_BASE_URL`` rewrites *.yahoo.com to the
local server); yfinance itself runs unmodified, parses real Yahoo JSON, and our provider maps it."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from core.tools import call_tool
from portfolios.models import Instrument, PriceBar
from portfolios.providers.base import MarketDataError
from portfolios.providers.yfinance_provider import YFinanceProvider


def test_history_and_fundamentals_parse_recorded_responses(yahoo_replay: Any, yfinance_settings: Any) -> None:
    provider = YFinanceProvider(base_url=yahoo_replay.url, timeout=10, retries=0)
    history = provider.history("AAPL", start=dt.date(2020, 8, 31))
    assert history.source == "yfinance"
    assert len(history.bars) >= 40
    first = history.bars[0]
    assert first.date == dt.date(2020, 8, 31)
    # The recorded adjclose of AAPL on 2020-08-31 (adjusted for later dividends) is below the raw 129.04.
    assert 120 < first.close < 129.04
    funda = provider.fundamentals("AAPL")
    # yfinance overlays the v7 quote (recorded later) on quoteSummary: both P/Es come from the quote record,
    # margins and sector from quoteSummary.
    assert funda.trailing_pe == pytest.approx(38.763866)
    assert funda.forward_pe == pytest.approx(29.434416)
    assert funda.profit_margin == pytest.approx(0.24295)
    assert funda.market_cap == pytest.approx(3674405863424)  # also from the quote record
    assert funda.sector == "Technology"
    assert any("/v10/finance/quoteSummary/AAPL" in r for r in yahoo_replay.requests)


@pytest.mark.django_db
def test_quote_tool_through_yfinance_is_cached_once(yahoo_replay: Any, yfinance_settings: Any, analyst: Any) -> None:
    yfinance_settings.YFINANCE_BASE_URL = yahoo_replay.url
    out = call_tool("get_stock_quote", {"ticker": "aapl"}, user=analyst)
    assert out.ok, out.error
    assert out.output.source == "yfinance"  # type: ignore[union-attr]
    assert out.output.symbol == "AAPL"  # type: ignore[union-attr]
    stored = PriceBar.objects.filter(instrument__symbol="AAPL").count()
    assert stored >= 40
    charts_before = sum("/v8/finance/chart/AAPL" in r for r in yahoo_replay.requests)
    again = call_tool("get_stock_quote", {"ticker": "AAPL"}, user=analyst)
    assert again.ok and again.output == out.output
    # The second analyst's request is served from the Postgres cache: no new chart request.
    assert sum("/v8/finance/chart/AAPL" in r for r in yahoo_replay.requests) == charts_before


@pytest.mark.django_db
def test_unknown_ticker_from_yahoo_is_structured(yahoo_replay: Any, yfinance_settings: Any, analyst: Any) -> None:
    yfinance_settings.YFINANCE_BASE_URL = yahoo_replay.url
    out = call_tool("get_stock_quote", {"ticker": "NOSUCH.NS"}, user=analyst)
    assert out.error is not None and out.error.error == "unknown_ticker"
    assert not Instrument.objects.filter(symbol="NOSUCH.NS").exists()


@pytest.mark.django_db
def test_retries_after_429(yahoo_replay: Any, yfinance_settings: Any) -> None:
    provider = YFinanceProvider(base_url=yahoo_replay.url, timeout=10, retries=3, backoff=0.01)
    # yfinance itself retries a 4xx once with its other cookie strategy, then raises YFRateLimitError;
    # our backoff loop retries that.
    yahoo_replay.fail_next = [429, 429, 429, 429]
    history = provider.history("AAPL", start=dt.date(2020, 8, 31))
    assert len(history.bars) >= 40
    assert yahoo_replay.fail_next == []


@pytest.mark.django_db
def test_dead_network_is_provider_unavailable(closed_port: int, yfinance_settings: Any, analyst: Any) -> None:
    yfinance_settings.YFINANCE_BASE_URL = f"http://127.0.0.1:{closed_port}"
    yfinance_settings.YFINANCE_RETRIES = 0
    for tool_name in ("get_stock_quote", "get_fundamentals", "compute_metrics"):
        out = call_tool(tool_name, {"ticker": "AAPL"}, user=analyst)
        assert out.error is not None, tool_name
        assert out.error.error == "provider_unavailable", (tool_name, out.error)


def test_shared_rate_limit_refuses_politely(yahoo_replay: Any, yfinance_settings: Any) -> None:
    from django.core.cache import cache

    cache.clear()
    yfinance_settings.YFINANCE_MAX_REQUESTS_PER_MINUTE = 3
    yfinance_settings.YFINANCE_MAX_RATE_WAIT_SECONDS = 0
    provider = YFinanceProvider(base_url=yahoo_replay.url, timeout=10, retries=0)
    with pytest.raises(MarketDataError) as raised:
        for _ in range(5):
            provider.fundamentals("AAPL")
    assert raised.value.tool_error.error == "provider_unavailable"
    assert "budget" in raised.value.tool_error.message
    # Only the budget's worth of requests reached the server.
    assert len(yahoo_replay.requests) <= 3


def test_retries_after_5xx(yahoo_replay: Any, yfinance_settings: Any) -> None:
    provider = YFinanceProvider(base_url=yahoo_replay.url, timeout=10, retries=3, backoff=0.01)
    yahoo_replay.fail_next = [503, 503, 502, 502]
    assert provider.fundamentals("AAPL").sector == "Technology"
    assert yahoo_replay.fail_next == []
    # Past the retry budget the failure is provider_unavailable, not an exception.
    stubborn = YFinanceProvider(base_url=yahoo_replay.url, timeout=10, retries=1, backoff=0.01)
    yahoo_replay.fail_next = [503] * 8
    with pytest.raises(MarketDataError) as raised:
        stubborn.fundamentals("AAPL")
    assert raised.value.tool_error.error == "provider_unavailable"


@pytest.mark.django_db
def test_network_dies_after_caching_serves_cached_bars(
    yahoo_replay: Any, yfinance_settings: Any, closed_port: int, analyst: Any
) -> None:
    yfinance_settings.YFINANCE_BASE_URL = yahoo_replay.url
    first = call_tool("get_stock_quote", {"ticker": "AAPL"}, user=analyst)
    assert first.ok
    # Now the network is dead and the cache counts as stale: the cached bars are still served,
    # with their own as-of date, rather than an error or an empty answer.
    yfinance_settings.YFINANCE_BASE_URL = f"http://127.0.0.1:{closed_port}"
    yfinance_settings.YFINANCE_RETRIES = 0
    yfinance_settings.MARKET_DATA_REFRESH_SECONDS = 0
    again = call_tool("get_stock_quote", {"ticker": "AAPL"}, user=analyst)
    assert again.ok, again.error
    assert again.output.as_of == first.output.as_of  # type: ignore[union-attr]
    assert again.output.last_close == first.output.last_close  # type: ignore[union-attr]


@pytest.mark.django_db(transaction=True)
def test_concurrent_analysts_fetch_once(yahoo_replay: Any, yfinance_settings: Any, make_user: Any) -> None:
    """Six analysts ask for the same new ticker at once: one resolution and one bar fetch happen
    (row and advisory locks in Postgres); the others read what the first stored."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    yfinance_settings.YFINANCE_BASE_URL = yahoo_replay.url
    users = [make_user("analyst") for _ in range(6)]
    barrier = __import__("threading").Barrier(len(users))

    def ask(user: Any) -> Any:
        try:
            barrier.wait(timeout=10)
            return call_tool("get_stock_quote", {"ticker": "AAPL"}, user=user)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=len(users)) as pool:
        outcomes = list(pool.map(ask, users))
    assert all(o.ok for o in outcomes), [o.error for o in outcomes]
    assert len({o.output.last_close for o in outcomes}) == 1
    charts = [r for r in yahoo_replay.requests if r.startswith("/v8/finance/chart/AAPL")]
    # One describe (+ yfinance's own timezone probe) and one history fetch — not six of each.
    print("chart requests:", charts)
    assert len(charts) <= 3, charts
    assert PriceBar.objects.filter(instrument__symbol="AAPL").count() == 49


@pytest.mark.django_db
def test_stale_cache_refreshes_incrementally(yahoo_replay: Any, yfinance_settings: Any, analyst: Any) -> None:
    yfinance_settings.YFINANCE_BASE_URL = yahoo_replay.url
    assert call_tool("get_stock_quote", {"ticker": "AAPL"}, user=analyst).ok
    instrument = Instrument.objects.get(symbol="AAPL")
    assert instrument.last_bar_date == dt.date(2020, 11, 6)
    version = instrument.bars_version
    yfinance_settings.MARKET_DATA_REFRESH_SECONDS = 0
    assert call_tool("get_stock_quote", {"ticker": "AAPL"}, user=analyst).ok
    last = [r for r in yahoo_replay.requests if r.startswith("/v8/finance/chart/AAPL?")][-1]
    # Asked only from the newest cached bar on (2020-11-06 00:00 New York), not for five years again.
    assert "period1=1604638800" in last and "range=5y" not in last
    # The replayed bars were upserted, not duplicated.
    assert PriceBar.objects.filter(instrument=instrument).count() == 49
    assert Instrument.objects.get(pk=instrument.pk).bars_version == version + 1
