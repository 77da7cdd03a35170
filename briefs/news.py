"""RSS headlines per ticker: from live feeds (short timeout, size cap) or from the shipped captures
(``briefs.news_captures``), parsed by ``briefs.feeds`` (fast, with a forgiving fallback),
normalised, de-duplicated, and scored with offline rules.

Headline text is **untrusted data**: it is stripped of markup and control characters, collapsed,
length-capped and only ever quoted verbatim or fenced as data (:func:`core.llm.fence`). Nothing in a
headline can widen the tickers a run covers or change who receives a brief: those come from the
watchlist, never from text.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.parse
import urllib.request

from django.conf import settings
from django.utils import timezone

from briefs.feeds import parse_feed
from briefs.headlines import HEADLINE_MAX_CHARS, NewsResult, collect, normalise_headline
from briefs.news_captures import news_from_captures

__all__ = ["HEADLINE_MAX_CHARS", "NewsResult", "news_for", "normalise_headline", "risk_evidence", "score"]

MAX_FEED_BYTES = 2 * 1024 * 1024

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


def _events(title: str) -> list[str]:
    words = set(_WORD_RE.findall(title.lower()))
    return [event for word, event in _RISK_EVENTS.items() if word in words]


def score(titles: list[str]) -> tuple[float, str, list[str]]:
    """(score in −1..1, label, risk events) from keyword rules — the offline engine."""
    pos = neg = 0
    events: list[str] = []
    for title in titles:
        words = set(_WORD_RE.findall(title.lower()))
        pos += len(words & _POSITIVE)
        neg += len(words & _NEGATIVE)
        for event in _events(title):
            if event not in events:
                events.append(event)
    total = pos + neg
    value = 0.0 if total == 0 else (pos - neg) / total
    label = "positive" if value > 0.2 else "negative" if value < -0.2 else "mixed" if total else "neutral"
    return value, label, events


def risk_evidence(titles: list[str]) -> list[dict[str, str]]:
    """The first headline that shows each risk event: ``[{"event", "headline"}]``, in event order."""
    evidence: dict[str, str] = {}
    for title in titles:
        for event in _events(title):
            evidence.setdefault(event, title)
    return [{"event": event, "headline": headline} for event, headline in evidence.items()]


def feed_urls(symbol: str, name: str = "") -> list[str]:
    """The configured feed URL templates for a ticker (``{symbol}``, ``{query}`` are URL-quoted)."""
    base = symbol.split(".")[0].lstrip("^")
    query = urllib.parse.quote_plus(f"{name or base} stock")
    return [
        t.format(symbol=urllib.parse.quote(symbol), base=urllib.parse.quote(base), query=query)
        for t in settings.BRIEF_NEWS_FEEDS
    ]


def fetch_bytes(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "AlphaDesk/1.0 (+morning briefs)"})  # noqa: S310
    # Only http(s): news_for refuses other schemes before calling here.
    with urllib.request.urlopen(request, timeout=settings.BRIEF_NEWS_TIMEOUT_SECONDS) as response:  # noqa: S310  # nosec B310
        data: bytes = response.read(MAX_FEED_BYTES + 1)
    if len(data) > MAX_FEED_BYTES:
        raise ValueError("feed larger than the size cap")
    return data


def news_for(symbol: str, *, name: str = "", limit: int = 8) -> NewsResult:
    """Headlines for one ticker: from the shipped captures (``BRIEF_NEWS_SOURCE=captures``) or
    from every configured live feed, de-duplicated on normalised text."""
    if settings.BRIEF_NEWS_SOURCE == "captures":
        return news_from_captures(symbol, name=name, limit=limit)
    result = NewsResult(as_of=timezone.localdate())
    seen: set[str] = set()
    for url in feed_urls(symbol, name):
        if not url.startswith(("http://", "https://")):
            result.feeds_failed.append(url)
            continue
        try:
            parsed = parse_feed(fetch_bytes(url))
        except (OSError, ValueError, urllib.error.URLError):
            result.feeds_failed.append(url)
            continue
        result.feeds_ok += 1
        if collect(result, parsed.entries, urllib.parse.urlsplit(url).hostname or "", seen, limit):
            return result
    return result
