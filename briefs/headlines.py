"""Headlines as the news agent keeps them: untrusted feed text, normalised and de-duplicated.

Headline text is **untrusted data**: it is stripped of markup and control characters, collapsed
and length-capped here, and only ever quoted verbatim or fenced as data (:func:`core.llm.fence`).
"""

from __future__ import annotations

import datetime as dt
import html
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import nh3

HEADLINE_MAX_CHARS = 200


def normalise_headline(raw: str) -> str:
    """Plain text: no markup, no control characters, single spaces, at most 200 characters."""
    # Entities first (a feed may escape its markup, or leave "&nbsp;" as text), then strip markup,
    # then read the cleaner's output back as text.
    text = html.unescape(nh3.clean(html.unescape(raw or ""), tags=set()))
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in text)
    text = " ".join(text.split())
    if len(text) > HEADLINE_MAX_CHARS:
        text = text[: HEADLINE_MAX_CHARS - 1].rstrip() + "…"
    return text


@dataclass
class NewsResult:
    items: list[dict[str, Any]] = field(default_factory=list)
    feeds_ok: int = 0
    feeds_failed: list[str] = field(default_factory=list)
    as_of: dt.date | None = None  # capture time of the news (for live feeds: when they were read)
    source: str = "rss"  # "rss" (live feeds) or "rss capture: <publisher> …"


def headline_item(entry: dict[str, str], fallback_publisher: str) -> dict[str, Any] | None:
    """A feed entry as a normalised headline item (None when it has no title)."""
    title = normalise_headline(entry.get("title", ""))
    if not title:
        return None
    link = entry.get("link", "")[:500]
    return {
        "title": title,
        "link": link if link.startswith(("https://", "http://")) else "",
        "publisher": normalise_headline(entry.get("source", ""))[:80] or fallback_publisher,
        "published": entry.get("published", "")[:64],
    }


def collect(result: NewsResult, entries: list[dict[str, str]], publisher: str, seen: set[str], limit: int) -> bool:
    """Add new headlines to ``result`` (de-duplicated on normalised text); True once ``limit`` is reached."""
    for entry in entries:
        item = headline_item(entry, publisher)
        if item is None or item["title"].casefold() in seen:
            continue
        seen.add(item["title"].casefold())
        result.items.append(item)
        if len(result.items) >= limit:
            return True
    return False
