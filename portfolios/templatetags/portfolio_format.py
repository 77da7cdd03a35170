"""Correlation shading for the portfolio page. Every figure goes through the one number layer,
``{% load figures %}`` (core/formatting.py); this is colour, not a figure."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def corr_class(value: float) -> str:
    """Blue for positive, red for negative correlation; opacity by strength, in tenths. A class
    (static/portfolios/portfolios.css) rather than a style attribute: the Content-Security-Policy
    allows no inline styles."""
    strength = round(min(abs(value), 1.0) * 10)
    return f"corr-{'p' if value >= 0 else 'n'}{strength}"


@register.filter
def bar_class(weight: float) -> str:
    """The allocation bar's width class, ``w-0`` … ``w-100`` (whole percent; same CSP reason)."""
    return f"w-{max(0, min(100, round(float(weight) * 100)))}"
