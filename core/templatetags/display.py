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
