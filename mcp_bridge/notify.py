"""What a tool call tells the client while it runs: progress notifications (when the request
carries ``_meta.progressToken``) and log notifications at or above the level the client set with
``logging/setLevel``. Both need a channel for server messages during a request: stdio, or HTTP
with an event-stream response; a JSON response (how /mcp answers, stateless) carries only the
result, so there they are simply not sent. Also the tool schemas' JSON Schema dialect."""

from __future__ import annotations

import logging
import warnings
from typing import Any

from mcp.shared.exceptions import MCPDeprecationWarning

logger = logging.getLogger("mcp_bridge")

JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema"
LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]


def json_schema_2020_12(schema: dict[str, Any]) -> dict[str, Any]:
    """Pydantic writes JSON Schema 2020-12 (``$defs``, ``prefixItems``...); say so with ``$schema``."""
    return {"$schema": JSON_SCHEMA_2020_12, **schema}


class ToolCallNotes:
    """Progress 0/2 → 1/2 → 2/2 around a call, and an info log line at its start and end."""

    def __init__(self, context: Any, level: str) -> None:
        self.context = context
        self.level = level if level in LEVELS else "info"

    async def _send(self, progress: float, message: str, level: str = "info") -> None:
        if self.context is None:
            return
        try:
            with warnings.catch_warnings():
                # Logging is deprecated in the 2026 protocol revision; clients of 2025 use it.
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                # A no-op unless the request carried _meta.progressToken.
                await self.context.report_progress(progress, 2, message)
                if LEVELS.index(level) >= LEVELS.index(self.level):
                    await self.context.log(level, message, logger_name="alphadesk")
        except Exception:  # a notification the transport cannot carry must not fail the call
            logger.debug("notification not sent", exc_info=True)

    async def started(self, name: str) -> None:
        await self._send(0, f"{name}: started")
        await self._send(1, f"{name}: running", level="debug")

    async def finished(self, name: str, outcome: Any) -> None:
        result = "done" if outcome.ok else f"failed ({outcome.error.error})"
        await self._send(2, f"{name}: {result} in {outcome.latency_ms:.0f} ms")
