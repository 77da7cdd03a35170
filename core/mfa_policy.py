"""Two-factor sign-in required per role (``MFA_REQUIRED_ROLES``): a signed-in user holding such a
role who has no TOTP authenticator yet is sent to allauth's TOTP set-up page before anything else.

A middleware rather than a decorator so that no page — including ones added later — can forget
it. What stays open is what the set-up itself needs: allauth's account and two-factor pages
(/accounts/…, which covers log out and the re-authentication allauth asks for) and static files.
API calls with a token are not sessions and are untouched here; a session call under /api/ gets a
JSON 403 that says what to do."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect

from core.roles import user_roles
from core.selectors import totp_active

_OPEN_PREFIXES = ("/accounts/", "/static/", "/favicon.ico")


def mfa_role_requires(user: Any) -> bool:
    """True when one of ``user``'s roles is listed in ``MFA_REQUIRED_ROLES``."""
    return bool(user_roles(user) & set(settings.MFA_REQUIRED_ROLES))


def mfa_setup_required(user: Any) -> bool:
    """True when ``user`` holds a role that requires TOTP and has not set it up."""
    return mfa_role_requires(user) and not totp_active(user=user)


class MfaRequiredMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if (
            user is not None
            and user.is_authenticated
            and not request.path.startswith(_OPEN_PREFIXES)
            and mfa_setup_required(user)
        ):
            if request.path.startswith("/api/"):
                return JsonResponse(
                    {"detail": "Your role requires two-factor sign-in: set it up at /accounts/2fa/ first."},
                    status=403,
                )
            return redirect("mfa_activate_totp")
        return self.get_response(request)
