"""Number formatting for market pages: fractions as percent, signed changes, correlation shading."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def pct(value: float | None, digits: int = 2) -> str:
    """A fraction as percent: 0.1234 → "12.34 %"; None → "—"."""
    if value is None:
        return "—"
    return f"{value * 100:,.{digits}f} %"


@register.filter
def pctv(value: float | None, digits: int = 2) -> str:
    """A value already in percent: 12.34 → "12.34 %"."""
    if value is None:
        return "—"
    return f"{value:,.{digits}f} %"


@register.filter
def num(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "—"
    return f"{value:,.{digits}f}"


@register.filter
def sign_class(value: float | None) -> str:
    if value is None:
        return ""
    return "up" if value > 0 else "down" if value < 0 else ""


@register.filter
def corr_bg(value: float) -> str:
    """Blue for positive, red for negative correlation; opacity by strength."""
    alpha = min(abs(value), 1.0) * 0.6
    rgb = "37, 99, 235" if value >= 0 else "220, 38, 38"
    return f"background: rgba({rgb}, {alpha:.2f})"


@register.filter
def bigmoney(value: float | None) -> str:
    if value is None:
        return "—"
    for unit, size in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
        if abs(value) >= size:
            return f"{value / size:,.2f} {unit}"
    return f"{value:,.0f}"
