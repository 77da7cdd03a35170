"""``python manage.py mcp``: the MCP server over stdio for desktop MCP clients.

The acting user is the owner of the API token in ``ALPHADESK_API_TOKEN`` (scope ``mcp``).
stdout carries the protocol, so nothing else may be printed there."""

from __future__ import annotations

import os
from typing import Any

import anyio
from django.core.management.base import BaseCommand, CommandError

from core.services import api_token_authenticate
from mcp_bridge.server import build_server


class Command(BaseCommand):
    help = "Serve the AlphaDesk MCP tools over stdio, as the user of ALPHADESK_API_TOKEN."

    def handle(self, *args: Any, **options: Any) -> None:
        raw = os.environ.get("ALPHADESK_API_TOKEN", "")
        if not raw:
            raise CommandError("Set ALPHADESK_API_TOKEN to an API token with the 'mcp' scope (Settings → API tokens).")
        token = api_token_authenticate(raw)
        if token is None:
            raise CommandError("ALPHADESK_API_TOKEN is invalid, expired or revoked.")
        if not token.has_scope("mcp"):
            raise CommandError("ALPHADESK_API_TOKEN lacks the 'mcp' scope.")
        server = build_server(stdio_user=token.user)
        anyio.run(server.run_stdio_async)
