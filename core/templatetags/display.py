"""``{% load display %}`` — template filters over :mod:`core.display_format` (interim number layer)."""

from __future__ import annotations

from typing import Any

from django import template

from core import display_format as fmt

register = template.Library()


@register.filter
def price(value: Any, currency: str = "") -> str:
    """``{{ v|price:"INR" }}`` → ``₹1,234.50``; ``{{ v|price:"^NSEI" }}`` (an index symbol) → points."""
    text = str(currency or "")
    if fmt.is_index(text):
        return fmt.price(value, index=True)
    return fmt.price(value, text)


@register.filter
def signed_pct(value: Any, digits: int = 2) -> str:
    """A change already in percent: ``1.234`` → ``+1.23 %``."""
    return fmt.signed_pct(value, digits)


@register.filter
def signed_frac(value: Any, digits: int = 2) -> str:
    """A change as a fraction: ``0.01234`` → ``+1.23 %``."""
    return fmt.signed_pct(value, digits, fraction=True)


@register.filter
def number(value: Any, digits: int = 2) -> str:
    return fmt.number(value, digits)


@register.filter
def metric_label(value: Any) -> str:
    return fmt.metric_label(value)


@register.filter
def plain(value: Any) -> str:
    return fmt.plain(value)


@register.simple_tag
def changes(before: Any, after: Any) -> list[tuple[str, str, str]]:
    """``{% changes event.before event.after as rows %}`` → ``[(field, old, new), ...]``."""
    return fmt.changes(before, after)


CHANGE_METRICS = {"change_1d_pct", "return_30d_pct"}


@register.simple_tag
def claim_value(value: Any, claim: Any) -> str:
    """A brief claim's figure in its unit: ``%`` metrics with 2 dp (changes signed), prices in the
    claim's currency, an index (``^NSEI``) in points."""
    unit = str(claim.get("unit", "") if hasattr(claim, "get") else "")
    metric = str(claim.get("metric", "") if hasattr(claim, "get") else "")
    if unit == "%":
        return fmt.signed_pct(value) if metric in CHANGE_METRICS else fmt.pct(value, fraction=False)
    ticker = str(claim.get("ticker", "") if hasattr(claim, "get") else "")
    return fmt.price(value, unit, index=fmt.is_index(ticker))


@register.filter
def usd(value: Any) -> str:
    """A cost in US dollars: ``$0.00``, or 4 dp under a cent (``$0.0012``)."""
    v = fmt._finite(value)
    if v is None:
        return fmt.DASH
    return f"${v:,.4f}" if 0 < abs(v) < 0.01 else f"${v:,.2f}"
