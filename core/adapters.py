from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import HttpRequest


class AccountAdapter(DefaultAccountAdapter):
    """Public signup is closed unless ``ACCOUNT_ALLOW_SIGNUP`` is set; admins create users.

    Refused (rate-limited) logins are audited: an account under attack leaves a trace even
    though no password was checked."""

    def is_open_for_signup(self, request: HttpRequest, *args: Any, **kwargs: Any) -> bool:
        return bool(settings.ACCOUNT_ALLOW_SIGNUP)

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        try:
            super().pre_authenticate(request, **credentials)
        except ValidationError:
            _audit_throttled_login(request, credentials)
            raise


def _audit_throttled_login(request: HttpRequest, credentials: dict[str, Any]) -> None:
    from django.contrib.auth import get_user_model

    from core.audit import audit_record

    attempted = str(credentials.get("email") or credentials.get("username") or "")[:254]
    user = get_user_model().objects.filter(email__iexact=attempted).first() if attempted else None
    audit_record(
        actor=None,
        action="auth.login_throttled",
        subject=user,
        after={"attempted": attempted},
        request=request,
    )
