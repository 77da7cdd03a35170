"""An MCP server (mcp 2.x ``MCPServer``) whose tools are exactly the registry's MCP whitelist.

Tool listings and input/output schemas come from the registry's pydantic models, so the agents
and MCP clients see one definition. Calls go through :func:`mcp_bridge.services.mcp_tool_call`
as the acting user: over HTTP the user the bearer token belongs to (set on the request scope
by :mod:`mcp_bridge.http`), over stdio the user named by the token in the environment.
"""

from __future__ import annotations

import json
import weakref
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

    def __init__(self, *, stdio_user: Any = None, logging: bool = True, **kwargs: Any) -> None:
        super().__init__(name="alphadesk", instructions=INSTRUCTIONS, **kwargs)
        self.stdio_user = stdio_user
        for prompt in product_prompts():
            self.add_prompt(prompt)
        # The level each session set with logging/setLevel (issue 49: one server-wide level let one
        # user's setting apply to every user). Weak keys: a closed session's entry goes with it.
        self._levels: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        if logging:
            # logging/setLevel declares the logging capability. Only where log notifications can
            # reach the client during a call (stdio): /mcp answers stateless JSON, which carries
            # the result alone, so it does not advertise logging at all (build_http_app).
            self._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, self._set_level)

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
        notes = ToolCallNotes(context, self.log_level(_session_of(context)))
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

    def log_level(self, session: Any) -> str:
        """The level ``session`` set (info until it sets one)."""
        return self._levels.get(session, "info") if session is not None else "info"

    async def _set_level(self, ctx: Any, params: SetLevelRequestParams) -> EmptyResult:
        session = _session_of(ctx)
        if session is not None:
            self._levels[session] = str(params.level)
        return EmptyResult()

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context: Any = None) -> Any:
        """JSON-RPC's -32602 (invalid params) for an unknown prompt or arguments it does not take:
        the SDK raised ValueError for both, which went out as error code 0."""
        if self._prompt_manager.get_prompt(name) is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown prompt: {name}", data={"name": name})
        try:
            return await super().get_prompt(name, arguments, context)
        except MCPError:
            raise
        except ValueError as exc:
            raise MCPError(code=INVALID_PARAMS, message=str(exc), data={"name": name}) from exc

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


def _session_of(context: Any) -> Any:
    """The protocol session (connection) a request belongs to (tool calls get a Context wrapping the request
    context; low-level handlers get the request context itself)."""
    if context is None:
        return None
    try:
        inner = getattr(context, "request_context", None)
    except (ValueError, AttributeError):  # a Context outside a request
        inner = None
    session = getattr(inner, "session", None) or getattr(context, "session", None)
    # The SDK builds a ServerSession per request, a proxy over the connection: the connection is
    # what lives as long as the client's session, so the level is kept against it.
    return getattr(session, "_connection", session)


def build_server(*, stdio_user: Any = None, logging: bool = True) -> RegistryMCPServer:
    return RegistryMCPServer(stdio_user=stdio_user, logging=logging)
