"""ASGI entry point (uvicorn): Django for everything, the MCP bridge at ``/mcp``."""

from __future__ import annotations

import os
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

django_app = get_asgi_application()  # sets up Django before the bridge imports models

from mcp_bridge.http import MCPGate, build_http_app  # noqa: E402

mcp_app = build_http_app()
gated_mcp_app = MCPGate(mcp_app)


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        # Django has no lifespan; the MCP app's starts and stops the SDK session manager.
        await mcp_app(scope, receive, send)
    elif scope["type"] == "http" and (scope["path"] == "/mcp" or scope["path"].startswith("/mcp/")):
        await gated_mcp_app(scope, receive, send)
    else:
        await django_app(scope, receive, send)
