"""The reviews part of the navigation: the pending-count badge (registered in settings TEMPLATES)."""

from typing import Any

from django.http import HttpRequest

from core.roles import can_access
from reviews.selectors import review_pending_count


def navigation(request: HttpRequest) -> dict[str, Any]:
    """``reviews_pending_count`` for reviewers and admins (one COUNT query); nothing for others."""
    user = request.user
    if not user.is_authenticated or not can_access(user, "reviews"):
        return {}
    return {"reviews_pending_count": review_pending_count(user=user)}
