"""Figures for people: one formatting layer for every page, email and text the portal shows.

Pure functions (no Django, no I/O), so pages, emails, plain-text renderers and agents share them.
The template filters over them are in ``core/templatetags/figures.py``.

House convention (apply it everywhere; the tests in ``tests/core/test_formatting.py`` pin it):

* **Minus sign** is U+2212 (``−``), never a hyphen; a value that rounds to zero has no sign.
* **Percentages** have two decimals and no space before ``%``: ``12.34%``. Changes and returns are
  *signed* (``+1.23%``, ``−0.64%``); levels such as volatility are not (``24.10%``).
  :func:`percent` takes a value already in percent (``-0.64`` → ``−0.64%``); :func:`fraction_percent`
  takes a fraction (``0.125`` → ``12.50%``).
* **Prices** carry the instrument's currency as a symbol where one is unambiguous (``₹1,234.50``,
  ``$189.20``, ``€``, ``£``, ``¥``), otherwise the ISO code (``CHF 12.30``); **indices are in points**
  (``24,363.30 pts``) whatever currency their data source reports.
* **Large numbers and volumes** are abbreviated: ``950``, ``1.2K``, ``12.3M``, ``123M``, ``4.5B``, ``2.1T``
  (one decimal below a hundred of the unit, none above).
* **Dates** read ``30 Sep 2025``; date-times ``30 Sep 2025, 14:05``.
* **Metric keys** are never shown raw: :func:`metric_label` turns ``return_30d_pct`` into
  ``30-day return``; :func:`format_metric` formats a value by what its key measures.
* Missing values render as an em dash ``—``.

Full precision stays in the stored data; pages put it in a tooltip (:func:`full_precision`).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Literal

MINUS = "\u2212"
MISSING = "—"

CURRENCY_SYMBOLS = {"INR": "₹", "USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}
CURRENCY_DECIMALS = {"JPY": 0}
POINTS = "pts"  # the unit of an index level

MetricKind = Literal["price", "pct", "signed_pct", "fraction", "signed_fraction", "ratio", "money", "count", "number"]

# What each metric key measures, and its label. Keys from the tools (compute_metrics, fundamentals,
# analyze_portfolio) and the briefs' claims. Unknown keys fall back to _guess_kind / _humanise.
METRICS: dict[str, tuple[str, MetricKind]] = {
    "last_close": ("last close", "price"),
    "previous_close": ("previous close", "price"),
    "close": ("close", "price"),
    "open": ("open", "price"),
    "high": ("high", "price"),
    "low": ("low", "price"),
    "high_52w": ("52-week high", "price"),
    "low_52w": ("52-week low", "price"),
    "change_1d_pct": ("1-day change", "signed_pct"),
    "return_30d_pct": ("30-day return", "signed_pct"),
    "volatility_annualised_pct": ("annualised volatility", "pct"),
    "max_drawdown_pct": ("maximum drawdown", "pct"),
    "volume": ("volume", "count"),
    "market_cap": ("market capitalisation", "money"),
    "trailing_pe": ("trailing P/E", "ratio"),
    "forward_pe": ("forward P/E", "ratio"),
    "beta": ("beta", "number"),
    "dividend_yield": ("dividend yield", "fraction"),
    "profit_margin": ("profit margin", "fraction"),
    "operating_margin": ("operating margin", "fraction"),
    "debt_to_equity": ("debt to equity", "pct"),
    "total_return": ("total return", "signed_fraction"),
    "annualised_return": ("annualised return", "signed_fraction"),
    "annualised_volatility": ("annualised volatility", "fraction"),
    "sharpe": ("Sharpe ratio", "number"),
    "sortino": ("Sortino ratio", "number"),
    "max_drawdown": ("maximum drawdown", "fraction"),
    "weight": ("weight", "fraction"),
    "contribution_to_return": ("contribution to return", "signed_fraction"),
    "contribution_to_risk": ("contribution to risk", "fraction"),
}

_PERIODS = {"d": "day", "w": "week", "m": "month", "y": "year"}
_PERIOD_RE = re.compile(r"^(\d+)([dwmy])$")


def is_index_symbol(symbol: str) -> bool:
    """Yahoo-style index symbols start with ``^`` (``^NSEI``, ``^GSPC``): quoted in points."""
    return (symbol or "").startswith("^")


def as_number(value: Any) -> float | None:
    """``value`` as a finite float, or None (None, NaN, ±inf and non-numbers are missing)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def shown_sign(value: float, digits: int | None = 2) -> int:
    """−1, 0 or 1: the sign of ``value`` as shown, i.e. rounded to ``digits`` decimals (None: shown
    to significant digits, so only zero reads as zero). A figure that rounds to zero has no sign:
    ``−0.004`` at two decimals reads ``0.00``, never ``−0.00``. The one rule for every sign, up/down
    colour and direction word (``sign_class``, the briefs' table and direction check)."""
    shown = value if digits is None else round(value, digits)
    return (shown > 0) - (shown < 0)


def _signed(body: str, value: float, digits: int | None, *, plus: bool = False) -> str:
    """``body`` (the magnitude as shown, rounded to ``digits``) with the sign :func:`shown_sign` gives."""
    sign = shown_sign(value, digits)
    return (MINUS if sign < 0 else "+" if plus and sign > 0 else "") + body


def format_number(value: Any, digits: int = 2, *, signed: bool = False) -> str:
    """``1234.567`` → ``1,234.57``; ``-3`` → ``−3.00``; ``signed=True`` adds ``+`` to positives."""
    number = as_number(value)
    if number is None:
        return MISSING
    return _signed(f"{abs(number):,.{digits}f}", number, digits, plus=signed)


def percent(value: Any, *, signed: bool = False, digits: int = 2, unit: str = "%") -> str:
    """Already in percent: ``-0.641`` → ``−0.64%``; signed ``+1.50%``; a difference ``−0.10 percentage points``."""
    number = as_number(value)
    if number is None:
        return MISSING
    return format_number(number, digits, signed=signed) + unit


def fraction_percent(value: Any, *, signed: bool = False, digits: int = 2) -> str:
    """A fraction as percent: ``0.125`` → ``12.50%``."""
    number = as_number(value)
    return MISSING if number is None else percent(number * 100.0, signed=signed, digits=digits)


def price_unit(currency: str = "", kind: str = "") -> str:
    """The unit a price of this instrument is shown in: ``pts`` for an index, else its currency code."""
    if (kind or "").lower() == "index" or currency == POINTS:
        return POINTS
    return (currency or "").upper()


def points(value: Any, digits: int = 2) -> str:
    """An index level: ``24363.3`` → ``24,363.30 pts``."""
    number = as_number(value)
    return MISSING if number is None else f"{format_number(number, digits)} {POINTS}"


def with_currency(amount: str, currency: str = "") -> str:
    """A formatted amount with its currency in front: ``("1,234.50", "INR")`` → ``₹1,234.50``;
    ``("12.30", "chf")`` → ``CHF 12.30`` (an ISO code and a space where no symbol is unambiguous);
    no currency → the amount as it is. The one place a figure gets its currency; signs go outside."""
    unit = (currency or "").upper()
    symbol = CURRENCY_SYMBOLS.get(unit)
    return f"{symbol}{amount}" if symbol else (f"{unit} {amount}" if unit else amount)


def price(value: Any, currency: str = "", kind: str = "") -> str:
    """A price in its instrument's unit: ``(1234.5, "INR")`` → ``₹1,234.50``; ``(24363.3, "INR",
    "index")`` → ``24,363.30 pts``; ``(12.3, "CHF")`` → ``CHF 12.30``; no currency → ``1,234.50``."""
    number = as_number(value)
    if number is None:
        return MISSING
    unit = price_unit(currency, kind)
    if unit == POINTS:
        return points(number)
    digits = CURRENCY_DECIMALS.get(unit, 2)
    return _signed(with_currency(format_number(abs(number), digits), unit), number, digits)


def scaled_money(value: Any, currency: str = "", scale: str = "", *, digits: int = 0, signed: bool = False) -> str:
    """An amount as a filing states it, in its scale: ``(81797, "USD", "million")`` → ``$81,797 million``;
    ``(-8796, "USD", "million")`` → ``−$8,796 million``; signed: ``+$1,609 million``."""
    number = as_number(value)
    if number is None:
        return MISSING
    body = with_currency(format_number(abs(number), digits), currency) + (f" {scale}" if scale else "")
    return _signed(body, number, digits, plus=signed)


_COMPACT_UNITS = (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3))


def _compact_magnitude(size: float) -> tuple[str, int]:
    """``size`` (≥ 0) abbreviated, and the decimals (in its own unit) it is rounded to when shown."""
    for suffix, scale in _COMPACT_UNITS:
        scaled = size / scale
        if round(scaled, 1) >= 1.0:  # largest unit first: 999,950 → 1.0M, never 1000.0K
            # At least 950 in its own unit: rounding to whole units keeps its sign.
            return (f"{scaled:,.0f}{suffix}" if scaled >= 100 else f"{scaled:.1f}{suffix}"), 0
    return (f"{size:.0f}", 0) if float(size).is_integer() else (f"{size:.1f}", 1)


def compact(value: Any) -> str:
    """Large numbers and volumes: ``950`` → ``950``, ``1234`` → ``1.2K``, ``12_345_678`` → ``12.3M``,
    ``123_456_789`` → ``123M``, ``4.5e9`` → ``4.5B``. Below a thousand: at most one decimal."""
    return money_compact(value)


def money_compact(value: Any, currency: str = "") -> str:
    """A large amount with its currency: ``(2.9e12, "USD")`` → ``$2.9T``; ``(5e9, "CHF")`` → ``CHF 5.0B``."""
    number = as_number(value)
    if number is None:
        return MISSING
    body, digits = _compact_magnitude(abs(number))
    return _signed(with_currency(body, currency), number, digits)


def ratio(value: Any, digits: int = 2) -> str:
    """A multiple: ``14.234`` → ``14.23×``."""
    number = as_number(value)
    return MISSING if number is None else format_number(number, digits) + "×"


def _as_date(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and value:
        try:
            return dt.date.fromisoformat(value[:10])
        except ValueError:
            return None
    return None


def format_date(value: Any) -> str:
    """``2025-09-30`` (date, datetime or ISO text) → ``30 Sep 2025``."""
    day = _as_date(value)
    return MISSING if day is None else f"{day.day} {day:%b %Y}"


def format_datetime(value: Any, tz: dt.tzinfo | None = None) -> str:
    """A datetime → ``30 Sep 2025, 14:05`` (converted to ``tz`` first when it is aware and tz is given)."""
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value)
        except ValueError:
            return MISSING
    if not isinstance(value, dt.datetime):
        return format_date(value)
    if tz is not None and value.tzinfo is not None:
        value = value.astimezone(tz)
    return f"{format_date(value)}, {value:%H:%M}"


def duration_ms(value: Any) -> str:
    """Elapsed time: ``0.42`` → ``0.4 ms``, ``12.3`` → ``12 ms``, ``1240`` → ``1.24 s``, ``125000`` → ``2 min 5 s``."""
    number = as_number(value)
    if number is None:
        return MISSING
    if number < 10:
        return f"{number:.1f} ms"
    if number < 1000:
        return f"{number:.0f} ms"
    seconds = number / 1000
    if seconds < 60:
        return f"{seconds:.2f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def _humanise(key: str) -> str:
    """``volume_20d_avg`` → ``volume 20-day avg``: words from a snake_case key, never the key."""
    words = []
    for part in key.strip("_").split("_"):
        period = _PERIOD_RE.match(part)
        if period:
            words.append(f"{period.group(1)}-{_PERIODS[period.group(2)]}")
        elif part == "pct":
            continue
        elif part:
            words.append(part)
    return " ".join(words) or key


def metric_label(key: str) -> str:
    """The human label of a metric key: ``return_30d_pct`` → ``30-day return``."""
    known = METRICS.get(key)
    return known[0] if known else _humanise(key)


def metric_kind(key: str) -> MetricKind:
    known = METRICS.get(key)
    if known:
        return known[1]
    return "pct" if key.endswith("_pct") else "number"


def format_metric(key: str, value: Any, *, unit: str = "", currency: str = "", kind: str = "") -> str:
    """A metric's value formatted by what its key measures. Prices take ``unit`` (a currency code
    or ``pts``) or ``currency``/``kind``; money takes ``currency``."""
    what = metric_kind(key)
    if what == "price":
        return price(value, unit or currency, "index" if unit == POINTS else kind)
    if what in {"pct", "signed_pct"}:
        return percent(value, signed=what == "signed_pct")
    if what in {"fraction", "signed_fraction"}:
        return fraction_percent(value, signed=what == "signed_fraction")
    if what == "money":
        return money_compact(value, unit or currency)
    if what == "ratio":
        return ratio(value)
    if what == "count":
        return compact(value)
    return format_number(value)


def full_precision(value: Any) -> str:
    """The stored value for a tooltip: ``repr`` of the float (``-0.6410256410256387``)."""
    number = as_number(value)
    return "" if number is None else repr(number)


def usd(value: Any) -> str:
    """A cost in US dollars: ``$0.25``; under a cent with 4 decimals (``$0.0012``)."""
    number = as_number(value)
    if number is None:
        return MISSING
    digits = 4 if 0 < abs(number) < 0.01 else 2
    body = with_currency(f"{abs(number):,.{digits}f}", "USD")
    return _signed(body, number, digits)


# Field names (settings, audit snapshots, document types) as a person reads them: a capitalised
# label, acronyms upper-case (``mpc_minutes`` → ``MPC minutes``). Metric keys keep metric_label.
FIELD_LABELS = {
    "shared_with_team": "Shared with the team",
    "brief_enabled": "Morning brief",
    "brief_time": "Brief time",
    "brief_weekdays": "Brief days",
    "doc_type": "Type",
    "doc_date": "Date",
    "is_reference": "Team reference set",
    "risk_free_rate": "Risk-free rate",
}
ACRONYMS = {"mpc", "rbi", "cpi", "gdp", "sebi", "esg", "etf", "ipo", "eps", "pe", "api", "url"}
_KEY = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")


def field_label(key: Any) -> str:
    """``brief_enabled`` → ``Morning brief``; ``mpc_minutes`` → ``MPC minutes``; ``return_30d_pct`` →
    ``30-day return``. Text that is not a key (``Annual report``) is returned as it is."""
    text = str(key or "")
    if text in FIELD_LABELS:
        return FIELD_LABELS[text]
    if not _KEY.match(text):
        return text
    words = " ".join(w.upper() if w in ACRONYMS else w for w in metric_label(text).split(" "))
    return words[:1].upper() + words[1:]


def _plain_number(value: float) -> str:
    size = abs(value)
    if size < 1:  # significant digits: only zero reads as zero
        return _signed(f"{size:,.4g}", value, None)
    return _signed(f"{size:,.2f}".rstrip("0").rstrip("."), value, 2)


def plain(value: Any, *, tz: dt.tzinfo | None = None, max_items: int = 6) -> str:
    """Any stored value (an audit snapshot's) as a short phrase: numbers rounded, lists joined,
    booleans yes/no, mappings as ``label: value``, ISO times as ``30 Sep 2025, 14:05`` in ``tz``."""
    if value is None or value == "":
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10_000 else str(value)
    if isinstance(value, float | Decimal):
        return _plain_number(float(value))
    if isinstance(value, dt.datetime):
        return format_datetime(value, tz)
    if isinstance(value, dt.date):
        return format_date(value)
    if isinstance(value, list | tuple):
        shown = [plain(v, tz=tz) for v in value[:max_items]]
        more = f" … +{len(value) - max_items}" if len(value) > max_items else ""
        return (", ".join(shown) or MISSING) + more
    if isinstance(value, Mapping):
        return "; ".join(f"{field_label(k)}: {plain(v, tz=tz)}" for k, v in list(value.items())[:max_items])
    if isinstance(value, str) and re.match(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", value):
        when = format_datetime(value, tz)
        return value if when == MISSING else when
    return str(value)


def changes(before: Any, after: Any, *, tz: dt.tzinfo | None = None) -> list[tuple[str, str, str]]:
    """``(field, old, new)`` for every key whose value differs between two audit snapshots; a
    creation (no ``before``) or a deletion (no ``after``) lists the fields it carried."""
    old = before if isinstance(before, Mapping) else {}
    new = after if isinstance(after, Mapping) else {}
    if not old and not new:
        return [] if before is None and after is None else [("Value", plain(before, tz=tz), plain(after, tz=tz))]
    keys = list(dict.fromkeys([*old.keys(), *new.keys()]))
    return [
        (field_label(k), plain(old[k], tz=tz) if k in old else MISSING, plain(new.get(k), tz=tz))
        for k in keys
        if old.get(k) != new.get(k)
    ]
