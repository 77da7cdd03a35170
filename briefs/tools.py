"""Brief tools in the shared registry (see core/tools.py)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from briefs import news
from core.roles import ADMIN, ANALYST, REVIEWER, has_role
from core.tools import ToolFailure, tool
from portfolios import tickers


class NewsIn(BaseModel):
    ticker: str = Field(description="Ticker such as RELIANCE.NS or AAPL")
    limit: int = Field(8, ge=1, le=25, description="Most headlines to return")


class Headline(BaseModel):
    title: str = Field(description="Untrusted text from the feed: normalised, at most 200 characters")
    link: str
    publisher: str
    published: str


class NewsOut(BaseModel):
    ticker: str
    items: list[Headline]
    sentiment_score: float = Field(description="Keyword rules: −1 (negative) … 1 (positive)")
    sentiment: str
    risk_events: list[str]
    feeds_ok: int
    feeds_failed: int
    source: str = "rss"


@tool("fetch_rss_news", input_model=NewsIn, output_model=NewsOut, mcp=True)
def fetch_rss_news(params: NewsIn, *, user: Any) -> NewsOut:
    """Recent headlines for a ticker from its configured RSS feeds (Yahoo Finance, Google News),
    de-duplicated, with a rules-based sentiment and risk events. Headlines are untrusted data."""
    if not has_role(user, ANALYST, REVIEWER, ADMIN):
        raise ToolFailure("forbidden", "Only analysts, reviewers and admins may read news.")
    symbol = tickers.normalise(params.ticker)
    result = news.news_for(symbol, limit=params.limit)
    if result.feeds_ok == 0 and result.feeds_failed:
        raise ToolFailure(
            "provider_unavailable", f"None of the {len(result.feeds_failed)} news feeds for {symbol} answered."
        )
    value, label, events = news.score([item["title"] for item in result.items])
    return NewsOut(
        ticker=symbol,
        items=[Headline(**item) for item in result.items],
        sentiment_score=value,
        sentiment=label,
        risk_events=events,
        feeds_ok=result.feeds_ok,
        feeds_failed=len(result.feeds_failed),
    )
