"""Parsing RSS and Atom feeds: a fast strict parser, and a forgiving one for feeds it cannot read.

The fast path is lxml over well-formed RSS 2.0, RSS 1.0 (RDF) and Atom, with a hardened parser (no
entity expansion, no network, no huge trees): about a millisecond for a hundred items, where
feedparser takes tens. A feed that is not well-formed XML, or not a feed shape we know, goes to
feedparser, which reads broken real-world feeds (unescaped ampersands, bad encodings, HTML mixed
in). Both return the same :class:`ParsedFeed`.
"""

from __future__ import annotations

import datetime as dt
import email.utils
from dataclasses import dataclass, field
from typing import Any

import feedparser
from lxml import etree

_ATOM = "{http://www.w3.org/2005/Atom}"
_RSS1 = "{http://purl.org/rss/1.0/}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, recover=False, strip_cdata=True)


@dataclass
class ParsedFeed:
    title: str = ""
    updated: dt.datetime | None = None  # the channel's lastBuildDate / updated, when given
    entries: list[dict[str, str]] = field(default_factory=list)  # title, link, published, source
    parser: str = "fast"  # "fast" or "forgiving": which parser read it


class NotAFeed(ValueError):
    """Neither parser found a feed in the bytes."""


def _text(node: Any, path: str) -> str:
    found = node.find(path)
    return (found.text or "").strip() if found is not None and found.text else ""


def parse_date(text: str) -> dt.datetime | None:
    """RFC 822 (RSS) or ISO 8601 (Atom) → aware datetime; None when unreadable."""
    if not text:
        return None
    try:
        return email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        pass
    try:
        parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def _rss(root: Any) -> ParsedFeed:
    channel = root.find("channel")
    if channel is None:
        raise NotAFeed("RSS without a channel")
    feed = ParsedFeed(title=_text(channel, "title"), updated=parse_date(_text(channel, "lastBuildDate")))
    for item in channel.iter("item"):
        feed.entries.append(
            {
                "title": _text(item, "title"),
                "link": _text(item, "link"),
                "published": _text(item, "pubDate") or _text(item, f"{_DC}date"),
                "source": _text(item, "source"),
            }
        )
    return feed


def _rdf(root: Any) -> ParsedFeed:
    channel = root.find(f"{_RSS1}channel")
    feed = ParsedFeed(title=_text(channel, f"{_RSS1}title") if channel is not None else "")
    for item in root.iter(f"{_RSS1}item"):
        feed.entries.append(
            {
                "title": _text(item, f"{_RSS1}title"),
                "link": _text(item, f"{_RSS1}link"),
                "published": _text(item, f"{_DC}date"),
                "source": "",
            }
        )
    return feed


def _atom(root: Any) -> ParsedFeed:
    feed = ParsedFeed(title=_text(root, f"{_ATOM}title"), updated=parse_date(_text(root, f"{_ATOM}updated")))
    for entry in root.iter(f"{_ATOM}entry"):
        link = entry.find(f"{_ATOM}link")
        feed.entries.append(
            {
                "title": _text(entry, f"{_ATOM}title"),
                "link": (link.get("href") or "") if link is not None else "",
                "published": _text(entry, f"{_ATOM}published") or _text(entry, f"{_ATOM}updated"),
                "source": _text(entry, f"{_ATOM}source/{_ATOM}title"),
            }
        )
    return feed


def parse_fast(data: bytes) -> ParsedFeed:
    """Strict: raises ``etree.XMLSyntaxError`` or :class:`NotAFeed` for anything it cannot read."""
    root = etree.fromstring(data, _PARSER)
    tag = root.tag if isinstance(root.tag, str) else ""
    if tag == "rss":
        return _rss(root)
    if tag == f"{_ATOM}feed":
        return _atom(root)
    if tag.endswith("RDF"):
        return _rdf(root)
    raise NotAFeed(f"unknown root element {tag!r}")


def parse_forgiving(data: bytes) -> ParsedFeed:
    """feedparser: reads broken feeds; raises :class:`NotAFeed` when even it finds no entries."""
    parsed = feedparser.parse(data)
    if parsed.bozo and not parsed.entries:
        raise NotAFeed(str(parsed.get("bozo_exception", "unreadable feed")))
    channel = parsed.get("feed", {})
    feed = ParsedFeed(
        title=str(channel.get("title", "")),
        updated=parse_date(str(channel.get("updated", "") or channel.get("published", ""))),
        parser="forgiving",
    )
    for entry in parsed.entries:
        source = entry.get("source") or {}
        feed.entries.append(
            {
                "title": str(entry.get("title", "")),
                "link": str(entry.get("link", "")),
                "published": str(entry.get("published", "") or entry.get("updated", "")),
                "source": str(source.get("title", "")) if isinstance(source, dict) else "",
            }
        )
    return feed


def parse_feed(data: bytes) -> ParsedFeed:
    """The fast parser, falling back to the forgiving one. Raises :class:`NotAFeed`."""
    try:
        return parse_fast(data)
    except (etree.XMLSyntaxError, NotAFeed, ValueError):
        return parse_forgiving(data)
