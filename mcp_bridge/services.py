"""The one way an MCP request reaches a tool: run it as the user and audit the call."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db import close_old_connections

from core.audit import audit_record
from core.tools import ToolError, ToolOutcome, call_tool, mcp_whitelist


def arguments_digest(arguments: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of the arguments: provable without storing user data."""
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def mcp_tool_call(*, user: Any, name: str, arguments: dict[str, Any] | None, transport: str) -> ToolOutcome:
    """Run a whitelisted tool as ``user`` and write one audit event (user, tool, digest,
    outcome, latency). A tool outside the MCP whitelist is refused as unknown."""
    arguments = dict(arguments or {})
    try:
        return _call_and_audit(user=user, name=name, arguments=arguments, transport=transport)
    finally:
        close_old_connections()  # outside Django's request cycle: behave like a request


def _call_and_audit(*, user: Any, name: str, arguments: dict[str, Any], transport: str) -> ToolOutcome:
    if name in mcp_whitelist():
        outcome = call_tool(name, arguments, user=user)
    else:
        error = ToolError(error="unknown_tool", message=f"There is no tool called {name!r} on this server.")
        outcome = ToolOutcome(name, arguments, None, error, 0.0)
    audit_record(
        actor=user,
        action="mcp.tool_call",
        after={
            "tool": name,
            "arguments_sha256": arguments_digest(arguments),
            "outcome": "ok" if outcome.ok else outcome.error.error,  # type: ignore[union-attr]
            "latency_ms": outcome.latency_ms,
            "transport": transport,
        },
    )
    return outcome
