from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.models import EmailAddress
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from core import login_guard


class AccountAdapter(DefaultAccountAdapter):
    """Public signup is closed unless ``ACCOUNT_ALLOW_SIGNUP`` is set; admins create users.

    Failed passwords slow the account down (core/login_guard.py) instead of locking it, and
    allauth's ``login_failed`` rate limits the client's address. Refused logins are audited: an
    account under attack leaves a trace even though no password was checked."""

    def is_open_for_signup(self, request: HttpRequest, *args: Any, **kwargs: Any) -> bool:
        return bool(settings.ACCOUNT_ALLOW_SIGNUP)

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        try:
            # The per-address limit first: an attempt refused below still spends the address's budget.
            super().pre_authenticate(request, **credentials)
        except ValidationError:
            _audit_throttled_login(request, credentials, reason="address")
            raise
        wait = login_guard.wait_seconds(_login(credentials), request.META.get("REMOTE_ADDR", ""))
        if wait:
            _audit_throttled_login(request, credentials, reason="delay")
            raise ValidationError(
                f"Too many failed sign-in attempts for this account. Try again in {wait} seconds.",
                code="login_delay",
            )

    def authentication_failed(self, request: HttpRequest, **credentials: Any) -> None:
        login_guard.record_failure(request, _login(credentials), request.META.get("REMOTE_ADDR", ""))

    def _delete_login_attempts_cached_email(self, request: HttpRequest, **credentials: Any) -> None:
        # A completed password reset proves the holder: their delay ends with allauth's own count.
        super()._delete_login_attempts_cached_email(request, **credentials)
        login_guard.forget_failures(_login(credentials))


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    """OpenID Connect sign-in maps to existing portal users only (settings: OIDC_*).

    allauth matches the provider's verified address to a user (``email_authentication``); an
    identity with no match, or with an unverified address, is refused — never created, since
    roles come from the portal's admins, not from the provider."""

    def is_open_for_signup(self, request: HttpRequest, sociallogin: Any) -> bool:
        return False

    def authenticate_by_email(self, sociallogin: Any) -> Any:
        found = super().authenticate_by_email(sociallogin)
        if found and not settings.ACCOUNT_ALLOW_SIGNUP:
            # allauth wipes the password of an account whose address it has not seen verified
            # (against someone who signed up with another's address and waits for the owner).
            # With signup closed an admin made the account for this address, and the provider
            # has just verified it: record it as verified and keep the holder's password.
            user, email = found
            EmailAddress.objects.update_or_create(
                user=user, email__iexact=email, defaults={"email": email, "verified": True}
            )
        return found


def _login(credentials: dict[str, Any]) -> str:
    return str(credentials.get("email") or credentials.get("username") or "")[:254]


def _audit_throttled_login(request: HttpRequest, credentials: dict[str, Any], *, reason: str) -> None:
    from django.contrib.auth import get_user_model

    from core.audit import audit_record

    attempted = _login(credentials)
    user = get_user_model().objects.filter(email__iexact=attempted).first() if attempted else None
    audit_record(
        actor=None,
        action="auth.login_throttled",
        subject=user,
        after={"attempted": attempted, "reason": reason},
        request=request,
    )
