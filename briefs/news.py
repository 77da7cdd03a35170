"""RSS headlines per ticker: fetch (short timeout, size cap), parse with feedparser, normalise,
de-duplicate, and score with offline rules.

Headline text is **untrusted data**: it is stripped of markup and control characters, collapsed,
length-capped and only ever quoted verbatim or fenced as data (:func:`core.llm.fence`). Nothing in a
headline can widen the tickers a run covers or change who receives a brief: those come from the
watchlist, never from text.
"""

from __future__ import annotations

import re
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import feedparser
import nh3
from django.conf import settings

MAX_FEED_BYTES = 2 * 1024 * 1024
HEADLINE_MAX_CHARS = 200

_POSITIVE = {
    "beat", "beats", "gain", "gains", "growth", "grows", "jump", "jumps", "rally", "rallies", "record",
    "rise", "rises", "surge", "surges", "upgrade", "upgraded", "profit", "strong", "boost", "expands", "wins",
}  # fmt: skip
_NEGATIVE = {
    "cut", "cuts", "decline", "declines", "drop", "drops", "fall", "falls", "loss", "losses", "miss", "misses",
    "plunge", "plunges", "slump", "weak", "downgrade", "downgraded", "warning", "slowdown", "dip", "tumbles",
}  # fmt: skip
# Risk-event keywords → the event a reader should know about.
_RISK_EVENTS = {
    "lawsuit": "litigation", "sues": "litigation", "court": "litigation", "probe": "regulatory probe",
    "investigation": "regulatory probe", "sebi": "regulatory action", "penalty": "penalty", "fine": "penalty",
    "fraud": "fraud allegation", "resigns": "management change", "resignation": "management change",
    "recall": "product recall", "default": "credit event", "downgrade": "rating downgrade",
    "strike": "labour action", "sanctions": "sanctions", "tariff": "trade tariffs", "tariffs": "trade tariffs",
}  # fmt: skip
RISK_EVENT_NAMES = tuple(sorted(set(_RISK_EVENTS.values())))  # the only events a brief may flag
SENTIMENT_LABELS = ("positive", "negative", "mixed", "neutral")
_WORD_RE = re.compile(r"[a-z]+")


def normalise_headline(raw: str) -> str:
    """Plain text: no markup, no control characters, single spaces, at most 200 characters."""
    text = nh3.clean(raw or "", tags=set())
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in text)
    text = " ".join(text.split())
    text = text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
    if len(text) > HEADLINE_MAX_CHARS:
        text = text[: HEADLINE_MAX_CHARS - 1].rstrip() + "…"
    return text


def score(titles: list[str]) -> tuple[float, str, list[str]]:
    """(score in −1..1, label, risk events) from keyword rules — the offline engine."""
    pos = neg = 0
    events: list[str] = []
    for title in titles:
        words = set(_WORD_RE.findall(title.lower()))
        pos += len(words & _POSITIVE)
        neg += len(words & _NEGATIVE)
        for word, event in _RISK_EVENTS.items():
            if word in words and event not in events:
                events.append(event)
    total = pos + neg
    value = 0.0 if total == 0 else (pos - neg) / total
    label = "positive" if value > 0.2 else "negative" if value < -0.2 else "mixed" if total else "neutral"
    return value, label, events


def feed_urls(symbol: str, name: str = "") -> list[str]:
    """The configured feed URL templates for a ticker (``{symbol}``, ``{query}`` are URL-quoted)."""
    base = symbol.split(".")[0].lstrip("^")
    query = urllib.parse.quote_plus(f"{name or base} stock")
    return [
        t.format(symbol=urllib.parse.quote(symbol), base=urllib.parse.quote(base), query=query)
        for t in settings.BRIEF_NEWS_FEEDS
    ]


@dataclass
class NewsResult:
    items: list[dict[str, Any]] = field(default_factory=list)
    feeds_ok: int = 0
    feeds_failed: list[str] = field(default_factory=list)


def fetch_bytes(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "AlphaDesk/1.0 (+morning briefs)"})  # noqa: S310
    # Only http(s): news_for refuses other schemes before calling here.
    with urllib.request.urlopen(request, timeout=settings.BRIEF_NEWS_TIMEOUT_SECONDS) as response:  # noqa: S310
        data: bytes = response.read(MAX_FEED_BYTES + 1)
    if len(data) > MAX_FEED_BYTES:
        raise ValueError("feed larger than the size cap")
    return data


def news_for(symbol: str, *, name: str = "", limit: int = 8) -> NewsResult:
    """Headlines for one ticker from every configured feed, de-duplicated on normalised text."""
    result = NewsResult()
    seen: set[str] = set()
    for url in feed_urls(symbol, name):
        if not url.startswith(("http://", "https://")):
            result.feeds_failed.append(url)
            continue
        try:
            parsed = feedparser.parse(fetch_bytes(url))
        except (OSError, ValueError, urllib.error.URLError):
            result.feeds_failed.append(url)
            continue
        if parsed.bozo and not parsed.entries:
            result.feeds_failed.append(url)
            continue
        result.feeds_ok += 1
        for entry in parsed.entries:
            title = normalise_headline(str(entry.get("title", "")))
            key = title.casefold()
            if not title or key in seen:
                continue
            seen.add(key)
            source = entry.get("source") or {}
            link = str(entry.get("link", ""))[:500]
            result.items.append(
                {
                    "title": title,
                    "link": link if link.startswith(("https://", "http://")) else "",
                    "publisher": normalise_headline(str(source.get("title", "")) if isinstance(source, dict) else "")[
                        :80
                    ]
                    or urllib.parse.urlsplit(url).hostname
                    or "",
                    "published": str(entry.get("published", ""))[:64],
                }
            )
            if len(result.items) >= limit:
                return result
    return result
