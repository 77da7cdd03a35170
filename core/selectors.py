from typing import Any

from django.db.models import QuerySet

from core.models import ApiToken


def api_token_list(*, user: Any) -> QuerySet[ApiToken]:
    """The user's own tokens, newest first (revoked ones included, so history is visible)."""
    return ApiToken.objects.filter(user=user).order_by("revoked_at", "-created_at")
