"""An MCP server (mcp 2.x ``MCPServer``) whose tools are exactly the registry's MCP whitelist.

Tool listings and input/output schemas come from the registry's pydantic models, so the agents
and MCP clients see one definition. Calls go through :func:`mcp_bridge.services.mcp_tool_call`
as the acting user: over HTTP the user the bearer token belongs to (set on the request scope
by :mod:`mcp_bridge.http`), over stdio the user named by the token in the environment.
"""

from __future__ import annotations

import json
from typing import Any

from asgiref.sync import sync_to_async
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent
from mcp_types import Tool as MCPTool

from core.tools import mcp_whitelist
from mcp_bridge.services import mcp_tool_call

USER_SCOPE_KEY = "alphadesk.user"

INSTRUCTIONS = (
    "AlphaDesk research tools. Every figure a tool returns is computed by code from the named "
    "source and as-of date; cite the tool output rather than restating numbers from memory."
)


class RegistryMCPServer(MCPServer):
    """MCPServer serving the shared registry's whitelist instead of decorated functions."""

    def __init__(self, *, stdio_user: Any = None, **kwargs: Any) -> None:
        super().__init__(name="alphadesk", instructions=INSTRUCTIONS, **kwargs)
        self.stdio_user = stdio_user

    async def list_tools(self) -> list[MCPTool]:
        return [
            MCPTool(
                name=spec.name,
                description=spec.description,
                input_schema=spec.input_schema(),
                output_schema=spec.output_schema(),
            )
            for spec in sorted(mcp_whitelist().values(), key=lambda s: s.name)
        ]

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        spec = mcp_whitelist().get(name)
        return spec.input_schema() if spec else None

    def _acting_user(self, context: Any) -> tuple[Any, str]:
        request = None
        if context is not None:
            try:
                request = context.request_context.request
            except ValueError:  # no request context: an in-process call
                request = None
        if request is not None and hasattr(request, "scope"):
            return request.scope.get(USER_SCOPE_KEY), "http"
        return self.stdio_user, "stdio"

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> CallToolResult:
        user, transport = self._acting_user(context)
        if user is None:
            return CallToolResult(
                content=[TextContent(type="text", text="Not authenticated: no user is bound to this connection.")],
                is_error=True,
            )
        outcome = await sync_to_async(mcp_tool_call, thread_sensitive=True)(
            user=user, name=name, arguments=arguments, transport=transport
        )
        if outcome.error is not None:
            error = outcome.error
            text = f"{error.message} [{error.error}]"
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        payload = outcome.as_dict()
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(payload, default=str))],
            structured_content=payload,
        )


def build_server(*, stdio_user: Any = None) -> RegistryMCPServer:
    return RegistryMCPServer(stdio_user=stdio_user)
