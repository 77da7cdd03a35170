"""Numbers for people: the one place the portal pages format figures.

INTERIM: a shared number-formatting layer (``core/formatting.py`` + ``core/templatetags/figures.py``)
is being built in parallel; when it lands, these functions become thin aliases of it (or their
callers switch to it). Until then every page of the portal formats through here
(``{% load display %}``), so there is one place to swap.

Conventions: prices in the instrument's currency (``₹1,234.50``, ``$187.20``), indices in points
(``24,567.80 pts``), percentages with a sign and 2 dp (``+1.23 %``), large amounts with a unit
(``₹12.3 lakh crore`` optional for INR, otherwise ``1.23 T``), metric keys as words.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.utils import timezone

DASH = "—"
CURRENCY_SYMBOLS = {"INR": "₹", "USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}

# Metric keys the tools, claims and analyses use, as an analyst reads them.
METRIC_LABELS: dict[str, str] = {
    "last_close": "Last close",
    "previous_close": "Previous close",
    "change_1d_pct": "1-day change",
    "return_30d_pct": "30-day return",
    "volatility_annualised_pct": "Volatility (annualised)",
    "max_drawdown_pct": "Max drawdown",
    "high_52w": "52-week high",
    "low_52w": "52-week low",
    "annualised_return": "Annualised return (CAGR)",
    "annualised_volatility": "Volatility (annualised)",
    "total_return": "Total return",
    "sharpe": "Sharpe ratio",
    "sortino": "Sortino ratio",
    "max_drawdown": "Max drawdown",
    "risk_free_rate": "Risk-free rate",
    "market_cap": "Market cap",
    "trailing_pe": "P/E (trailing)",
    "forward_pe": "P/E (forward)",
    "beta": "Beta",
    "dividend_yield": "Dividend yield",
    "shared_with_team": "Shared with the team",
    "brief_enabled": "Morning brief",
    "brief_time": "Brief time",
    "brief_weekdays": "Brief days",
    "doc_type": "Type",
    "doc_date": "Date",
    "is_reference": "Team reference set",
}
ACRONYMS = {"mpc", "rbi", "cpi", "gdp", "sebi", "esg", "etf", "ipo", "eps", "pe"}
_ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")


def _finite(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def number(value: Any, digits: int = 2) -> str:
    """``1234.5`` → ``1,234.50``; missing → ``—``."""
    v = _finite(value)
    return DASH if v is None else f"{v:,.{digits}f}"


def is_index(symbol: str) -> bool:
    """Yahoo-style index symbols start with ``^`` (``^NSEI``, ``^GSPC``): quoted in points."""
    return symbol.startswith("^")


def price(value: Any, currency: str = "", *, index: bool = False, digits: int = 2) -> str:
    """A price in its currency (``₹1,234.50``), or an index level in points (``24,567.80 pts``)."""
    v = _finite(value)
    if v is None:
        return DASH
    if index:
        return f"{v:,.{digits}f} pts"
    symbol = CURRENCY_SYMBOLS.get((currency or "").upper())
    if symbol:
        return f"{'-' if v < 0 else ''}{symbol}{abs(v):,.{digits}f}"
    return f"{v:,.{digits}f} {currency}".strip()


def signed_pct(value: Any, digits: int = 2, *, fraction: bool = False) -> str:
    """A change with its sign: ``1.234`` → ``+1.23 %`` (``fraction=True``: ``0.01234`` → ``+1.23 %``)."""
    v = _finite(value)
    if v is None:
        return DASH
    v = v * 100 if fraction else v
    if round(v, digits) == 0:
        return f"{0:.{digits}f} %"
    return f"{v:+,.{digits}f} %"


def pct(value: Any, digits: int = 2, *, fraction: bool = True) -> str:
    """A level (not a change): ``0.065`` → ``6.50 %``."""
    v = _finite(value)
    if v is None:
        return DASH
    return f"{(v * 100 if fraction else v):,.{digits}f} %"


def amount(value: Any, currency: str = "", *, indian: bool = False) -> str:
    """A large amount with a unit: ``1.23 T``/``456.70 B``/``12.00 M``; INR in lakh/crore when asked."""
    v = _finite(value)
    if v is None:
        return DASH
    prefix = CURRENCY_SYMBOLS.get((currency or "").upper(), "")
    if indian and (currency or "").upper() == "INR":
        for unit, size in (("lakh crore", 1e12), ("crore", 1e7), ("lakh", 1e5)):
            if abs(v) >= size:
                return f"{prefix}{v / size:,.2f} {unit}"
    for unit, size in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
        if abs(v) >= size:
            return f"{prefix}{v / size:,.2f} {unit}"
    return f"{prefix}{v:,.0f}"


def metric_label(key: Any) -> str:
    """``change_1d_pct`` → ``1-day change``; an unknown snake_case key becomes words."""
    text = str(key or "")
    if text in METRIC_LABELS:
        return METRIC_LABELS[text]
    if _SNAKE.match(text) or re.fullmatch(r"[a-z]+", text):
        words = text.replace("_pct", " (%)").replace("_", " ")
        words = " ".join(w.upper() if w in ACRONYMS else w for w in words.split(" "))
        return words[:1].upper() + words[1:]
    return text


def plain(value: Any, *, max_items: int = 6) -> str:
    """Any stored value (audit before/after) as a short phrase a person reads: floats rounded,
    lists joined, booleans as yes/no, nested mappings as ``label: value`` pairs."""
    if value is None or value == "":
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10_000 else str(value)
    if isinstance(value, float | Decimal):
        v = float(value)
        return f"{v:,.4g}" if abs(v) < 1 else f"{v:,.2f}".rstrip("0").rstrip(".")
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat(sep=" ", timespec="minutes") if isinstance(value, dt.datetime) else value.isoformat()
    if isinstance(value, list | tuple):
        shown = [plain(v) for v in value[:max_items]]
        more = f" … +{len(value) - max_items}" if len(value) > max_items else ""
        return (", ".join(shown) or DASH) + more
    if isinstance(value, Mapping):
        return "; ".join(f"{metric_label(k)}: {plain(v)}" for k, v in list(value.items())[:max_items])
    if isinstance(value, str) and _ISO_DATETIME.match(value):  # "2026-12-01T18:55:34.854107+05:30"
        try:
            parsed = dt.datetime.fromisoformat(value)
        except ValueError:
            return value
        if parsed.tzinfo is not None:  # shown in the portal's time zone, like every other time on the page
            parsed = timezone.localtime(parsed)
        return parsed.strftime("%Y-%m-%d %H:%M")
    return str(value)


def changes(before: Any, after: Any) -> list[tuple[str, str, str]]:
    """``(field, old, new)`` for every key whose value differs between two audit snapshots;
    a creation (no ``before``) or a deletion (no ``after``) lists the fields it carried."""
    old = before if isinstance(before, Mapping) else {}
    new = after if isinstance(after, Mapping) else {}
    if not old and not new:
        if before is None and after is None:
            return []
        return [("value", plain(before), plain(after))]
    keys = list(dict.fromkeys([*old.keys(), *new.keys()]))
    out = []
    for key in keys:
        if old.get(key) != new.get(key):
            out.append((metric_label(key), plain(old.get(key)) if key in old else DASH, plain(new.get(key))))
    return out
