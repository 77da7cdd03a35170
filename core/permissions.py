from typing import Any

from rest_framework.permissions import BasePermission

from core.models import ApiToken


class TokenHasApiScope(BasePermission):
    """Requests authenticated by an API token need its ``api`` scope (``mcp``-only tokens are for MCP)."""

    message = "This API token lacks the 'api' scope."

    def has_permission(self, request: Any, view: Any) -> bool:
        if isinstance(request.auth, ApiToken):
            return request.auth.has_scope("api")
        return True
