"""Issue 49, finding 5 (MCP): JSON-RPC error codes, a log level per session, no logging
capability advertised where no log notification can be sent (/mcp answers stateless JSON), and a
rate limit per user as well as per token. Against the real ASGI app under uvicorn (HTTP) and the
real stdio server, through the mcp SDK's client."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.mcp_bridge.conftest import run_async
from tests.mcp_bridge.test_http import INIT, _post, _with_client

INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601


def _rpc(url: str, token: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    response = httpx.post(
        url,
        json={"jsonrpc": "2.0", "id": 7, "method": method, "params": params},
        headers={
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-06-18",
        },
        timeout=30,
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_an_unknown_prompt_is_invalid_params(mcp_url: str, mcp_token: str) -> None:
    answer = _rpc(mcp_url, mcp_token, "prompts/get", {"name": "no-such-prompt"})
    assert answer["error"]["code"] == INVALID_PARAMS
    assert answer["error"]["message"] == "Unknown prompt: no-such-prompt"


def test_a_prompt_without_its_required_argument_is_invalid_params(mcp_url: str, mcp_token: str) -> None:
    answer = _rpc(mcp_url, mcp_token, "prompts/get", {"name": "brief-for-watchlist", "arguments": {}})
    assert answer["error"]["code"] == INVALID_PARAMS


def test_http_does_not_advertise_logging(mcp_url: str, mcp_token: str) -> None:
    initialized = _post(mcp_url, {"Authorization": f"Bearer {mcp_token}"}, INIT).json()
    capabilities = initialized["result"]["capabilities"]
    assert "logging" not in capabilities and "prompts" in capabilities and "tools" in capabilities
    answer = _rpc(mcp_url, mcp_token, "logging/setLevel", {"level": "debug"})
    assert answer["error"]["code"] == METHOD_NOT_FOUND


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
def test_the_log_level_belongs_to_the_session(transactional_db: Any, analyst: Any) -> None:
    # One server, two sessions: the first sets "error", the second keeps the default "info" and
    # still gets its log lines (before the fix the level was the server's, for everyone).
    from mcp_bridge.server import build_server

    server = build_server(stdio_user=analyst)
    logs: dict[str, list[str]] = {"quiet": [], "chatty": []}

    def collector(name: str) -> Any:
        async def on_log(params: Any) -> None:
            logs[name].append(str(params.data))

        return on_log

    async def run() -> None:
        async with (
            Client(server, logging_callback=collector("quiet"), mode="legacy") as quiet,
            Client(server, logging_callback=collector("chatty"), mode="legacy") as chatty,
        ):
            await quiet.set_logging_level("error")
            await quiet.call_tool("calculate_financial_metric", {"expression": "1 + 1"})
            await chatty.call_tool("calculate_financial_metric", {"expression": "1 + 1"})

    run_async(run)
    assert logs["quiet"] == []
    assert logs["chatty"][0] == "calculate_financial_metric: started"
    assert "done" in logs["chatty"][1]


def test_the_rate_limit_counts_every_token_of_a_user(mcp_url: str, analyst: Any, settings: Any) -> None:
    from core.services import api_token_create

    settings.MCP_RATE_LIMIT_PER_MINUTE = 100
    settings.MCP_RATE_LIMIT_PER_USER_PER_MINUTE = 4
    tokens = [api_token_create(user=analyst, name=f"t{i}", scopes=["mcp"])[1] for i in range(3)]
    statuses = [_post(mcp_url, {"Authorization": f"Bearer {tokens[i % 3]}"}).status_code for i in range(6)]
    assert statuses == [200, 200, 200, 200, 429, 429]
    refused = _post(mcp_url, {"Authorization": f"Bearer {tokens[0]}"})
    assert refused.status_code == 429 and "your account" in refused.text
    assert 1 <= int(refused.headers["retry-after"]) <= 60


def test_prompts_still_work_over_http(mcp_url: str, mcp_token: str) -> None:
    async def body(client: Client) -> Any:
        try:
            await client.get_prompt("nope", {})
        except MCPError as exc:
            return exc.error.code
        return None

    assert _with_client(mcp_url, mcp_token, body) == INVALID_PARAMS
