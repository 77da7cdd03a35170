"""Roles and who may open what — the one place role checks live.

Roles are Django groups created by a migration (``core/migrations/0002_roles.py``). Views use
:func:`area_required`, API views take :class:`HasArea` through ``core.permissions.area_api_permissions``
(which keeps the token-scope check in front of it), and the MCP bridge calls
:func:`has_role` / :func:`can_access` directly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from rest_framework.permissions import BasePermission

ANALYST = "analyst"
REVIEWER = "reviewer"
ADMIN = "admin"
ROLES = (ANALYST, REVIEWER, ADMIN)

# Navigation areas and the roles that may open them. Reviewers read research and briefs
# (they approve what agents produce) but own no portfolios; analysts never review.
AREA_ROLES: dict[str, frozenset[str]] = {
    "research": frozenset({ANALYST, REVIEWER, ADMIN}),
    "briefs": frozenset({ANALYST, REVIEWER, ADMIN}),
    "portfolios": frozenset({ANALYST, ADMIN}),
    "reviews": frozenset({REVIEWER, ADMIN}),
    "evaluation": frozenset({ANALYST, REVIEWER, ADMIN}),
    "admin": frozenset({ADMIN}),
}


def user_roles(user: Any) -> frozenset[str]:
    """The user's roles; superusers hold every role. Cached on the user object per request."""
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return frozenset()
    cached = getattr(user, "_alphadesk_roles", None)
    if cached is None:
        cached = remember_roles(user, user.groups.filter(name__in=ROLES).values_list("name", flat=True))
    return cached


def remember_roles(user: Any, group_names: Iterable[str]) -> frozenset[str]:
    """Cache on ``user`` the roles its role groups ``group_names`` give (a superuser holds every
    role), for the rest of the request; returns them."""
    names = set(group_names) & set(ROLES)
    if user.is_superuser:
        names |= set(ROLES)
    user._alphadesk_roles = frozenset(names)
    return user._alphadesk_roles


def has_role(user: Any, *roles: str) -> bool:
    """True when the user holds at least one of ``roles``."""
    return bool(user_roles(user) & set(roles))


def can_access(user: Any, area: str) -> bool:
    return bool(user_roles(user) & AREA_ROLES[area])


def area_required(area: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """View decorator: log in first, then 403 unless the user's roles open ``area``."""
    if area not in AREA_ROLES:
        raise ValueError(f"unknown area {area!r}")

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not can_access(request.user, area):
                raise PermissionDenied(f"Your role does not give access to {area.title()}.")
            return view(request, *args, **kwargs)

        return login_required(wrapped)

    return decorator


class HasArea(BasePermission):
    """DRF permission for an area; API views use ``core.permissions.area_api_permissions("reviews")``,
    never this alone (alone it would replace the default sign-in and token-scope checks)."""

    area = ""
    message = "Your role does not give access to this area."

    @classmethod
    def for_area(cls, area: str) -> type[HasArea]:
        if area not in AREA_ROLES:
            raise ValueError(f"unknown area {area!r}")
        return type(f"HasArea_{area}", (cls,), {"area": area})

    def has_permission(self, request: Any, view: Any) -> bool:
        return can_access(request.user, self.area)


class HasRole(BasePermission):
    """DRF permission: ``permission_classes = [HasRole.of("reviewer", "admin")]``."""

    roles: tuple[str, ...] = ()
    message = "Your role does not allow this."

    @classmethod
    def of(cls, *roles: str) -> type[HasRole]:
        return type("HasRole_" + "_".join(roles), (cls,), {"roles": roles})

    def has_permission(self, request: Any, view: Any) -> bool:
        return has_role(request.user, *self.roles)
