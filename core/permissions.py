"""The API's permission checks, composed in one place.

DRF replaces ``DEFAULT_PERMISSION_CLASSES`` wholesale as soon as a view sets ``permission_classes``:
a view that named only its area check silently dropped the token-scope check (issue 49: an
``mcp``-only token used REST research and briefs). Views therefore never list permissions by
hand; they take them from :func:`api_permissions`, which always starts with sign-in and the
``api`` scope. tests/core/test_api_scope_architecture.py requires it of every API view routed."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission, IsAuthenticated

from core.models import ApiToken
from core.roles import HasArea


class TokenHasApiScope(BasePermission):
    """Requests authenticated by an API token need its ``api`` scope (``mcp``-only tokens are for MCP)."""

    message = "This API token lacks the 'api' scope."

    def has_permission(self, request: Any, view: Any) -> bool:
        if isinstance(request.auth, ApiToken):
            return request.auth.has_scope("api")
        return True


# What every authenticated API view checks first, in this order (settings.REST_FRAMEWORK's
# DEFAULT_PERMISSION_CLASSES names the same two).
BASE_API_PERMISSIONS: tuple[type[BasePermission], ...] = (IsAuthenticated, TokenHasApiScope)


def api_permissions(*extra: type[BasePermission]) -> list[type[BasePermission]]:
    """``permission_classes`` for an API view: signed in, the token's ``api`` scope, then ``extra``
    (an area or role check). The only way views set permissions, so none can drop the scope check."""
    return [*BASE_API_PERMISSIONS, *extra]


def area_api_permissions(area: str) -> list[type[BasePermission]]:
    """``api_permissions`` plus the role check of navigation ``area`` (core.roles.AREA_ROLES)."""
    return api_permissions(HasArea.for_area(area))
