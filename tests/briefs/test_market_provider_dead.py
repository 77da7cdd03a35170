"""Issue 17's last fault: the market-data provider itself dead during a scheduled brief.

A brief run end to end (data and news agents in parallel, writer, verifier, reviewer gate) with the
live provider (yfinance) pointed at a closed port: the run still ends at the reviewer with a brief
that is marked partial, names the tickers whose market data failed and why, keeps the news it did
get, and states no figure it could not source. Nothing already saved is lost."""

from __future__ import annotations

import datetime as dt
import socket
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from tests.briefs.test_pipeline import _run

pytestmark = pytest.mark.django_db(transaction=True)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # released on close: nothing listens there


def test_a_dead_market_provider_gives_a_partial_brief_for_review(
    watchlist: Any, analyst: Any, feeds: Any, settings: Any, tmp_path: Path
) -> None:
    import yfinance as yf

    from briefs.models import Brief
    from portfolios.models import Instrument, PriceBar

    yf.set_tz_cache_location(str(tmp_path / "yf-cache"))
    settings.YFINANCE_BASE_URL = f"http://127.0.0.1:{_closed_port()}"
    settings.YFINANCE_RETRIES = 0
    settings.YFINANCE_MAX_REQUESTS_PER_MINUTE = 10_000
    # RELIANCE.NS was fetched before the outage (its bars are in the Postgres cache, checked long
    # ago); INFY.NS never was.
    settings.MARKET_DATA_PROVIDER = "snapshot"
    from portfolios.market import series_get

    cached = series_get("RELIANCE.NS")
    Instrument.objects.filter(symbol="RELIANCE.NS").update(bars_checked_at=timezone.now() - dt.timedelta(days=2))
    settings.MARKET_DATA_PROVIDER = "yfinance"
    bars_before = PriceBar.objects.count()
    watchlist.tickers = ["RELIANCE.NS", "INFY.NS"]
    watchlist.save()

    run, values = _run(watchlist, analyst)

    market_errors = {(e["ticker"], e["error"]) for e in values["errors"] if e["source"] == "market"}
    # The benchmark the lead is read against (^NSEI for an Indian list) fails the same way.
    assert market_errors == {(t, "provider_unavailable") for t in ("INFY.NS", "^NSEI")}
    assert run.status == "awaiting_review" and run.partial
    brief = Brief.objects.get(run=run)
    assert brief.partial
    assert "PARTIAL BRIEF" in brief.body_text
    # INFY.NS says why it has no figures; RELIANCE.NS is served from the cache, dated and marked stale.
    assert (
        "Market data for this ticker could not be retrieved for this brief: the market-data provider could not "
        "be reached." in " ".join(brief.body_text.split())
    )
    assert f"Data as of {cached.as_of:%-d %b %Y} — stale" in brief.body_text
    # data/market/bars/RELIANCE.NS.csv: close 1,372.80 on 29 Sep 2025, 1,364.00 on 30 Sep → −0.64 %.
    assert "The shares slipped 0.64% on the day and closed at ₹1,364.00." in brief.body_text
    # The news agent's work survives the market outage: headlines from the feed server are in the brief.
    assert values["sentiment"].keys() >= {"RELIANCE.NS", "INFY.NS"}
    assert any("/RELIANCE.NS.xml" in r for r in feeds.requests)
    assert values["verification"]["ok"] is True
    assert PriceBar.objects.count() == bars_before  # the outage deleted no stored bar
