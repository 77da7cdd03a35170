from typing import Any

from rest_framework import authentication, exceptions
from rest_framework.request import Request

from core.models import ApiToken
from core.services import api_token_authenticate


class ApiTokenAuthentication(authentication.BaseAuthentication):
    """``Authorization: Bearer adk_…`` (or ``Token adk_…``) with a per-user API token."""

    keywords = ("bearer", "token")

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        header = authentication.get_authorization_header(request).decode("latin-1").split()
        if not header or header[0].lower() not in self.keywords:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Malformed Authorization header: expected 'Bearer <token>'.")
        token = api_token_authenticate(header[1])
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid, expired or revoked API token.")
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'
