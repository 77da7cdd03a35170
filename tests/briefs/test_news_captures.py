"""News offline: the shipped RSS capture as the news agent's source in snapshot mode (dated by its
build time), matched to tickers by name; the fast feed parser and its forgiving fallback."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from briefs import feeds, news
from briefs.news_captures import aliases_for, news_from_captures

CAPTURE = Path(__file__).resolve().parents[2] / "data" / "news" / "thehindu_business_economy_rss_2025-04-03.xml"


def test_the_capture_ships_with_the_project_and_parses_fast() -> None:
    parsed = feeds.parse_fast(CAPTURE.read_bytes())
    assert parsed.parser == "fast" and len(parsed.entries) == 100
    assert parsed.updated == dt.datetime(2025, 4, 3, 22, 41, 45, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30)))
    first = parsed.entries[0]
    assert first["title"] == (
        "Asian economies growth may dip as retaliation may not be an option for most: Barclays note"
    )
    assert first["link"].startswith("https://www.thehindu.com/")


def test_a_feed_the_fast_parser_cannot_read_falls_back_to_the_forgiving_one() -> None:
    # Unescaped ampersand and an undeclared entity: not well-formed XML, read by feedparser.
    broken = (
        b'<?xml version="1.0"?><rss version="2.0"><channel><title>Broken & co</title>'
        b"<item><title>Tata &nbsp;Steel rallies & gains</title><link>https://news.example/1</link></item>"
        b"</channel></rss>"
    )
    with pytest.raises(Exception):  # noqa: B017 - lxml's XMLSyntaxError: the strict parser refuses it
        feeds.parse_fast(broken)
    parsed = feeds.parse_feed(broken)
    assert parsed.parser == "forgiving"
    assert [news.normalise_headline(e["title"]) for e in parsed.entries] == ["Tata Steel rallies & gains"]
    atom = (
        b'<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title><updated>2025-04-03T10:00:00Z</updated>'
        b'<entry><title>Infosys wins deal</title><link href="https://news.example/a"/>'
        b"<updated>2025-04-03T09:00:00Z</updated></entry></feed>"
    )
    parsed = feeds.parse_feed(atom)
    assert parsed.parser == "fast" and parsed.entries[0]["link"] == "https://news.example/a"
    with pytest.raises(feeds.NotAFeed):
        feeds.parse_feed(b"not a feed at all")


def test_a_ticker_gets_the_headlines_that_name_it_and_the_index_gets_the_market(settings: Any) -> None:
    settings.BRIEF_NEWS_SOURCE = "captures"
    sbi = news_from_captures("SBIN.NS", name="State Bank of India", limit=8)
    assert [i["title"] for i in sbi.items] == [
        "Migration of labour from low-income states resulting in higher inflation in Kerala, TN: SBI study",
        "India to gain in an uncertain world of tariffs, says SBI report",
        "SBI pegs India’s Q3FY25 GDP growth at 6.2%-6.3%",
    ]
    assert sbi.as_of == dt.date(2025, 4, 3) and sbi.source == "RSS capture: The Hindu · Business · Economy"
    assert all(i["publisher"] == "The Hindu" for i in sbi.items)
    market = news_from_captures("^NSEI", name="NIFTY 50", limit=3)
    assert [i["title"] for i in market.items][:2] == [
        "Asian economies growth may dip as retaliation may not be an option for most: Barclays note",
        "Global order under churn, every region needs to look out for itself: Jaishankar",
    ]
    none = news_from_captures("INFY.NS", name="Infosys Ltd.", limit=8)
    assert none.items == [] and none.feeds_ok == 1  # read, and nothing names it: not a failure
    us = news_from_captures("SPY", name="SPDR S&P 500 ETF Trust", limit=8)
    assert us.items == []  # no US market capture ships


def test_names_that_match_a_ticker() -> None:
    shipped = {"SBIN.NS": ["SBI"]}
    assert aliases_for("SBIN.NS", "State Bank of India", shipped) == ["SBI", "State Bank of India", "SBIN"]
    assert aliases_for("INFY.NS", "Infosys Ltd.", {}) == ["Infosys", "INFY"]
    assert aliases_for("LT.NS", "", {}) == []  # two letters are too short to match safely


@pytest.mark.django_db
def test_the_news_tool_reads_the_capture_in_snapshot_mode(analyst: Any, settings: Any) -> None:
    from core.tools import call_tool

    settings.BRIEF_NEWS_SOURCE = "captures"
    out = call_tool("fetch_rss_news", {"ticker": "^NSEI", "limit": 8}, user=analyst)
    assert out.ok, out.error
    data = out.as_dict()
    assert data["as_of"] == "2025-04-03" and data["source"].startswith("RSS capture: The Hindu")
    assert len(data["items"]) == 8 and "trade tariffs" in data["risk_events"]
    evidence = {e["event"]: e["headline"] for e in data["risk_evidence"]}
    assert evidence["trade tariffs"] == "Examining implications of U.S. reciprocal tariffs on India: Commerce Ministry"
