"""Template filters over ``core.formatting`` — the one way a page shows a figure.

``{% load figures %}`` then, for example::

    {{ quote.last_close|price:quote.currency }}     ₹1,234.50     (an index: {{ v|price:"pts" }} → 24,363.30 pts)
    {{ metrics.change_1d_pct|signed_pct }}          +1.23% / −0.64%
    {{ metrics.volatility_annualised_pct|pct }}     24.10%
    {{ analysis.total_return|fraction_pct }}        12.50%
    {{ bar.volume|compact }}                        12.3M
    {{ brief.as_of|human_date }}                    30 Sep 2025
    {{ step.created_at|human_datetime }}            30 Sep 2025, 14:05 (in the current time zone)
    {{ "return_30d_pct"|metric_label }}             30-day return
    {{ step.latency_ms|duration }}                  12 ms
    {% figure claim.value claim.metric unit=claim.unit %}
        → <span class="figure" title="-0.6410256410256387">−0.64%</span> (full precision in the tooltip)
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils import timezone
from django.utils.html import format_html

from core import formatting

register = template.Library()


@register.filter
def price(value: Any, unit: str = "") -> str:
    """A price in ``unit``: a currency code (``INR`` → ₹…) or ``pts`` for an index level."""
    return formatting.price(value, unit, "index" if unit == formatting.POINTS else "")


@register.filter
def points(value: Any) -> str:
    return formatting.points(value)


@register.filter
def pct(value: Any) -> str:
    """A level already in percent, unsigned: ``24.1`` → ``24.10%``."""
    return formatting.percent(value)


@register.filter
def signed_pct(value: Any) -> str:
    """A change or return already in percent, signed: ``-0.64`` → ``−0.64%``."""
    return formatting.percent(value, signed=True)


@register.filter
def fraction_pct(value: Any) -> str:
    """A fraction as percent: ``0.125`` → ``12.50%``."""
    return formatting.fraction_percent(value)


@register.filter
def compact(value: Any) -> str:
    return formatting.compact(value)


@register.filter
def money(value: Any, currency: str = "") -> str:
    """A large amount with its currency, abbreviated: ``$2.9T``."""
    return formatting.money_compact(value, currency)


@register.filter
def number(value: Any, digits: int = 2) -> str:
    return formatting.format_number(value, int(digits))


@register.filter
def human_date(value: Any) -> str:
    return formatting.format_date(value)


@register.filter
def human_datetime(value: Any) -> str:
    """In the current time zone (``TIME_ZONE`` or the activated one)."""
    return formatting.format_datetime(value, timezone.get_current_timezone())


@register.filter
def metric_label(key: Any) -> str:
    return formatting.metric_label(str(key))


@register.filter
def duration(value: Any) -> str:
    """Milliseconds as a person reads them: ``12 ms``, ``1.24 s``."""
    return formatting.duration_ms(value)


@register.filter
def sign_class(value: Any, shown_as: str = "") -> str:
    """``up`` / ``down`` / ``""`` for colouring a change, by its sign as shown: a change in percent at
    two decimals (``signed_pct``), or ``sign_class:"fraction"`` for a fraction shown as a percent
    (``signed_fraction_pct``: ``0.004`` reads ``+0.40%``, so it is ``up``). A figure that reads zero
    has no colour."""
    number = formatting.as_number(value)
    if number is None:
        return ""
    sign = formatting.shown_sign(number * 100 if shown_as == "fraction" else number, 2)
    return {1: "up", -1: "down"}.get(sign, "")


@register.simple_tag
def figure(value: Any, metric: str, unit: str = "", currency: str = "", kind: str = "") -> str:
    """A metric's value, formatted by its key, with the stored full precision in a tooltip."""
    text = formatting.format_metric(metric, value, unit=unit, currency=currency, kind=kind)
    full = formatting.full_precision(value)
    if not full:
        return text
    return format_html('<span class="figure" title="{}">{}</span>', full, text)


@register.filter
def signed_fraction_pct(value: Any) -> str:
    """A change or return as a fraction, signed: ``0.5381`` → ``+53.81%``."""
    return formatting.fraction_percent(value, signed=True)


@register.filter
def usd(value: Any) -> str:
    """A cost in US dollars: ``$0.25``, ``$0.0012`` under a cent."""
    return formatting.usd(value)


@register.filter
def field_label(key: Any) -> str:
    """A field or type key as a capitalised label: ``mpc_minutes`` → ``MPC minutes``."""
    return formatting.field_label(key)


@register.filter
def plain(value: Any) -> str:
    """A stored value as a short phrase (times in the current time zone)."""
    return formatting.plain(value, tz=timezone.get_current_timezone())


@register.simple_tag
def changes(before: Any, after: Any) -> list[tuple[str, str, str]]:
    """``{% changes event.before event.after as rows %}`` → ``[(field, old, new), ...]``."""
    return formatting.changes(before, after, tz=timezone.get_current_timezone())
