"""``{% load research_tags %}``: per-row permissions the library shows (the services enforce them)."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def deletable_by(document: Any, user: Any) -> bool:
    return bool(document.deletable_by(user))


@register.filter
def tool_provenance(claim: dict[str, Any]) -> str:
    """Where a tool figure came from, in words (research/chat/exports.py)."""
    from research.chat.exports import tool_provenance as in_words

    return in_words(claim)
