"""Login audit: successful and failed logins land in the append-only audit log; a completed
sign-in also resets the account's failed-attempt delay (core/login_guard.py)."""

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest

from core import login_guard
from core.audit import audit_record


@receiver(user_logged_in)
def _audit_login(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    audit_record(actor=user, action="auth.login", subject=user, request=request)
    # Only a completed sign-in (second factor included) makes the address known to the account.
    if request is not None and user.email:
        login_guard.record_success(user.email, request.META.get("REMOTE_ADDR", ""))


@receiver(user_logged_out)
def _audit_logout(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    if user is not None:
        audit_record(actor=user, action="auth.logout", subject=user, request=request)


@receiver(user_login_failed)
def _audit_login_failed(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any
) -> None:
    # Never store the password; the attempted identifier is what an investigator needs.
    attempted = str(credentials.get("email") or credentials.get("username") or "")[:254]
    user = get_user_model().objects.filter(email__iexact=attempted).first() if attempted else None
    audit_record(
        actor=None,
        action="auth.login_failed",
        subject=user,
        after={"attempted": attempted},
        request=request,
    )
