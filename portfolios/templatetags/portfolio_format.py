"""Correlation shading for the portfolio page. Every figure goes through the one number layer,
``{% load figures %}`` (core/formatting.py); this is colour, not a figure."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def corr_bg(value: float) -> str:
    """Blue for positive, red for negative correlation; opacity by strength."""
    alpha = min(abs(value), 1.0) * 0.6
    rgb = "37, 99, 235" if value >= 0 else "220, 38, 38"
    return f"background: rgba({rgb}, {alpha:.2f})"
