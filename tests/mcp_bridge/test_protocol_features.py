"""Finding 9 (MCP): prompts that fit the product, logging/setLevel with log notifications,
progress notifications on tool calls, JSON Schema 2020-12 tool schemas — driven by the SDK client
over stdio (a channel that carries server notifications during a call) and over HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from mcp_bridge.notify import JSON_SCHEMA_2020_12
from tests.mcp_bridge.conftest import run_async
from tests.mcp_bridge.test_http import _with_client
from tests.mcp_bridge.test_stdio import _params


# The SDK's client warns that logging is deprecated in the 2026 protocol revision; 2025 clients use it.
@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
def test_prompts_logging_and_progress_over_stdio(transactional_db: Any, analyst: Any) -> None:
    from core.services import api_token_create

    _, raw = api_token_create(user=analyst, name="desktop", scopes=["mcp"])
    logs: list[Any] = []
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_log(params: Any) -> None:
        logs.append(params)

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def run() -> Any:
        # mode="legacy": a 2025-revision client (initialize handshake), whose logging/setLevel the 2026
        # revision removed; Claude Desktop and the conformance suite speak 2025-06-18 / 2025-11-25.
        async with Client(_params(raw), read_timeout_seconds=60, logging_callback=on_log, mode="legacy") as client:
            capabilities = client.server_capabilities
            prompts = await client.list_prompts()
            brief = await client.get_prompt("brief-for-watchlist", {"watchlist_id": "7"})
            await client.set_logging_level("info")
            ok = await client.call_tool(
                "calculate_financial_metric",
                {"expression": "ratio(3, 4)"},
                progress_callback=on_progress,  # type: ignore[arg-type]
            )
            await client.set_logging_level("error")
            quiet = await client.call_tool("calculate_financial_metric", {"expression": "1 + 1"})
            return capabilities, prompts, brief, ok, quiet

    capabilities, prompts, brief, ok, quiet = run_async(run)
    assert capabilities.logging is not None and capabilities.prompts is not None
    assert {p.name for p in prompts.prompts} == {"brief-for-watchlist", "compare-documents", "analyse-portfolio"}
    assert all(p.description for p in prompts.prompts)
    text = brief.messages[0].content.text
    assert "alphadesk://briefs/watchlist/7/latest" in text and "claim id" in text
    assert not ok.is_error and ok.structured_content["result"] == 0.75
    assert [p[0] for p in progress] == [0, 1, 2] and all(p[1] == 2 for p in progress)
    assert (progress[-1][2] or "").startswith("calculate_financial_metric: done")
    messages = [str(entry.data) for entry in logs]
    # Two info lines for the first call; nothing for the second, below the "error" level.
    assert messages == ["calculate_financial_metric: started", messages[1]] and "done" in messages[1]
    assert not quiet.is_error


def test_tool_schemas_declare_json_schema_2020_12(mcp_url: str, mcp_token: str) -> None:
    async def body(client: Client) -> Any:
        return await client.list_tools()

    for tool in _with_client(mcp_url, mcp_token, body).tools:
        assert tool.input_schema["$schema"] == JSON_SCHEMA_2020_12
        assert tool.output_schema is not None and tool.output_schema["$schema"] == JSON_SCHEMA_2020_12
