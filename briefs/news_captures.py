"""News from the RSS captures shipped in ``data/news`` (``BRIEF_NEWS_SOURCE=captures``, the
offline default): the demo's briefs get real, dated headlines without a network.

``captures.json`` lists the captures and, per ticker, the names a headline must mention to be news
about it (plus the instrument's own short name and symbol). A ``market`` capture of a region is also
the market news of that region's benchmark index (^NSEI for India). A capture's build time is the
news as-of; nothing pretends to be live. Captures are parsed once per process (re-read when a file
changes).
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings

from briefs.feeds import parse_feed
from briefs.headlines import NewsResult, collect

MARKET_INDEX_REGION = {"^NSEI": "IN", "^BSESN": "IN", "^NSEBANK": "IN", "^GSPC": "US", "SPY": "US", "^DJI": "US"}
_NAME_SUFFIX_RE = re.compile(r"\s*(?:\(Class [A-Z]\)|Ltd\.?|Limited|Inc\.?|Corporation|Corp\.?|plc)\s*$", re.I)


@dataclass(frozen=True)
class Capture:
    file: str
    publisher: str
    feed: str
    region: str
    scope: str
    as_of: Any  # dt.date | None: the capture's build date
    entries: list[dict[str, str]] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.publisher} · {self.feed}" if self.feed else self.publisher


_lock = threading.Lock()
_loaded: dict[str, tuple[tuple[float, ...], list[Capture], dict[str, list[str]]]] = {}


def _read(directory: Path) -> tuple[list[Capture], dict[str, list[str]]]:
    manifest = json.loads((directory / "captures.json").read_text())
    captures = []
    for spec in manifest.get("captures", []):
        parsed = parse_feed((directory / spec["file"]).read_bytes())
        captures.append(
            Capture(
                file=spec["file"],
                publisher=spec.get("publisher", ""),
                feed=spec.get("feed", ""),
                region=spec.get("region", ""),
                scope=spec.get("scope", ""),
                as_of=parsed.updated.date() if parsed.updated else None,
                entries=parsed.entries,
            )
        )
    return captures, {k: list(v) for k, v in manifest.get("aliases", {}).items()}


def load_captures() -> tuple[list[Capture], dict[str, list[str]]]:
    """The shipped captures and aliases, parsed once per process and again when a file changes."""
    directory = Path(settings.BRIEF_NEWS_CAPTURES_DIR)
    if not (directory / "captures.json").exists():
        return [], {}
    stamp = tuple(p.stat().st_mtime for p in sorted(directory.iterdir()) if p.is_file())
    key = str(directory)
    with _lock:
        cached = _loaded.get(key)
        if cached is None or cached[0] != stamp:
            captures, aliases = _read(directory)
            _loaded[key] = (stamp, captures, aliases)
        _, captures, aliases = _loaded[key]
    return captures, aliases


def region_of(symbol: str) -> str:
    if symbol in MARKET_INDEX_REGION:
        return MARKET_INDEX_REGION[symbol]
    return "IN" if symbol.endswith((".NS", ".BO")) else "US"


def aliases_for(symbol: str, name: str, shipped: dict[str, list[str]]) -> list[str]:
    """Names that make a headline news about ``symbol``: the shipped aliases, the instrument's short
    name (``Infosys Ltd.`` → ``Infosys``) and a plain symbol of three letters or more (``INFY``)."""
    names = list(shipped.get(symbol, []))
    short = _NAME_SUFFIX_RE.sub("", name or "").strip()
    if len(short) >= 4:
        names.append(short)
    base = symbol.split(".")[0].lstrip("^")
    if len(base) >= 3 and base.isalpha():
        names.append(base)
    return list(dict.fromkeys(names))


def _pattern(aliases: list[str]) -> re.Pattern[str] | None:
    """Whole words; an all-capitals alias (SBI, TCS) must match in capitals, the rest in any case."""
    if not aliases:
        return None
    parts = [
        re.escape(a) if a.isupper() else "(?i:" + re.escape(a) + ")" for a in sorted(aliases, key=len, reverse=True)
    ]
    return re.compile(r"(?<![\w&])(?:" + "|".join(parts) + r")(?![\w&])")


def news_from_captures(symbol: str, *, name: str = "", limit: int = 8) -> NewsResult:
    """A ticker's headlines from the captures: those that mention it, or — for a region's market
    index — the region's market news."""
    captures, shipped = load_captures()
    market = symbol in MARKET_INDEX_REGION
    region = region_of(symbol)
    used = [c for c in captures if c.scope == "market" and c.region == region] if market else list(captures)
    pattern = None if market else _pattern(aliases_for(symbol, name, shipped))
    result = NewsResult(feeds_ok=len(used), source="RSS capture")
    seen: set[str] = set()
    contributed: list[Capture] = []
    for capture in used:
        entries = capture.entries if pattern is None else [e for e in capture.entries if pattern.search(e["title"])]
        if entries:
            contributed.append(capture)
        if collect(result, entries, capture.publisher, seen, limit):
            break
    shown = contributed or used
    dates = [c.as_of for c in shown if c.as_of is not None]
    result.as_of = max(dates) if dates else None
    if shown:
        result.source = "RSS capture: " + ", ".join(c.label for c in shown)
    return result
