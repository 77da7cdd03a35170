"""``{% load audit %}{% audit_history subject %}``: the per-object history panel any page can include."""

from __future__ import annotations

from typing import Any

from django import template
from django.db import models

from reviews.selectors import audit_events_for_subject

register = template.Library()


@register.inclusion_tag("components/_audit_history.html", takes_context=True)
def audit_history(context: dict[str, Any], subject: models.Model, limit: int = 20) -> dict[str, Any]:
    user = context["request"].user
    return {
        "events": audit_events_for_subject(user=user, subject=subject, limit=limit),
        "subject_type": subject._meta.label_lower,
        "subject_id": subject.pk,
    }
