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
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolResult,
    EmptyResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult,
    SetLevelRequestParams,
    TextContent,
    TextResourceContents,
)
from mcp_types import Resource as MCPResource
from mcp_types import ResourceTemplate as MCPResourceTemplate
from mcp_types import Tool as MCPTool

from core.tools import mcp_whitelist
from mcp_bridge.notify import ToolCallNotes, json_schema_2020_12
from mcp_bridge.prompts import product_prompts
from mcp_bridge.resources import URI_TEMPLATE, ResourceMissing, brief_resource_read, brief_resources
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
        for prompt in product_prompts():
            self.add_prompt(prompt)
        # logging/setLevel (declares the logging capability): the level filters the tool-call log
        # notifications of this connection (over stateless HTTP each request is its own connection).
        self._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, self._set_level)
        self.log_level: str = "info"

    async def list_tools(self) -> list[MCPTool]:
        return [
            MCPTool(
                name=spec.name,
                description=spec.description,
                input_schema=json_schema_2020_12(spec.input_schema()),
                output_schema=json_schema_2020_12(spec.output_schema()),
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
            except (ValueError, AttributeError):  # no request context: an in-process call
                request = getattr(context, "request", None)
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
        notes = ToolCallNotes(context, self.log_level)
        await notes.started(name)
        outcome = await sync_to_async(mcp_tool_call, thread_sensitive=True)(
            user=user, name=name, arguments=arguments, transport=transport
        )
        await notes.finished(name, outcome)
        if outcome.error is not None:
            error = outcome.error
            text = f"{error.message} [{error.error}]"
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        payload = outcome.as_dict()
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(payload, default=str))],
            structured_content=payload,
        )

    async def _set_level(self, ctx: Any, params: SetLevelRequestParams) -> EmptyResult:
        self.log_level = str(params.level)
        return EmptyResult()

    # Resources need the acting user, so the handlers (which receive the request context) are
    # overridden rather than the context-free list_resources().
    async def _handle_list_resources(self, ctx: Any, params: Any) -> ListResourcesResult:
        user, _ = self._acting_user(ctx)
        found = await sync_to_async(brief_resources, thread_sensitive=True)(user=user) if user else []
        return ListResourcesResult(
            resources=[
                MCPResource(uri=r.uri, name=r.name, description=r.description, mime_type="application/json")
                for r in found
            ]
        )

    async def _handle_list_resource_templates(self, ctx: Any, params: Any) -> ListResourceTemplatesResult:
        return ListResourceTemplatesResult(
            resource_templates=[
                MCPResourceTemplate(
                    uri_template=URI_TEMPLATE,
                    name="Latest approved brief of a watchlist",
                    description="The newest reviewer-approved morning brief of a watchlist you may see, with "
                    "its verified claims, as JSON.",
                    mime_type="application/json",
                )
            ]
        )

    async def _handle_read_resource(self, ctx: Any, params: Any) -> ReadResourceResult:
        user, _ = self._acting_user(ctx)
        uri = str(params.uri)
        if user is None:
            raise MCPError(code=INVALID_PARAMS, message="Not authenticated.")
        try:
            text = await sync_to_async(brief_resource_read, thread_sensitive=True)(user=user, uri=uri)
        except ResourceMissing as exc:
            raise MCPError(code=INVALID_PARAMS, message=str(exc), data={"uri": uri}) from exc
        return ReadResourceResult(contents=[TextResourceContents(uri=uri, text=text, mime_type="application/json")])


def build_server(*, stdio_user: Any = None) -> RegistryMCPServer:
    return RegistryMCPServer(stdio_user=stdio_user)
