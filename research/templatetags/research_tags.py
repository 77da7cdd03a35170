"""``{% load research_tags %}``: per-row permissions the library shows (the services enforce them)."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def deletable_by(document: Any, user: Any) -> bool:
    return bool(document.deletable_by(user))
