"""``manage.py mcp`` over stdio, driven by the SDK client as a desktop client would."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from core.models import AuditEvent
from tests.conftest import test_database_url
from tests.mcp_bridge.conftest import run_async

pytestmark = pytest.mark.worker  # starts the stdio MCP server as a process of its own

ROOT = Path(__file__).resolve().parents[2]


def _params(token: str) -> StdioServerParameters:
    env = {
        **os.environ,
        "ALPHADESK_API_TOKEN": token,
        "DATABASE_URL": test_database_url(),
        "PYTHONWARNINGS": "ignore",
    }
    return StdioServerParameters(command=sys.executable, args=["manage.py", "mcp"], env=env, cwd=str(ROOT))


def test_stdio_lists_and_calls_tools_as_the_token_user(transactional_db: Any, analyst: Any, settings: Any) -> None:
    from core.services import api_token_create

    _, raw = api_token_create(user=analyst, name="desktop", scopes=["mcp"])

    async def run() -> Any:
        async with Client(_params(raw), read_timeout_seconds=60) as client:
            tools = await client.list_tools()
            ok = await client.call_tool("calculate_financial_metric", {"expression": "cagr(100, 121, 2)"})
            bad = await client.call_tool("calculate_financial_metric", {"expression": "1/0"})
            return tools, ok, bad

    tools, ok, bad = run_async(run)
    assert "calculate_financial_metric" in {t.name for t in tools.tools}
    assert ok.structured_content is not None
    assert abs(ok.structured_content["result"] - 10) < 1e-9  # cagr(100, 121, 2) = 10 %
    assert bad.is_error and "Division by zero" in bad.content[0].text
    event = AuditEvent.objects.filter(action="mcp.tool_call").order_by("id").first()
    assert event is not None and event.actor_id == analyst.pk and (event.after or {})["transport"] == "stdio"


def test_stdio_refuses_a_missing_or_wrong_scope_token(transactional_db: Any, analyst: Any) -> None:
    import subprocess

    from core.services import api_token_create

    _, rest_only = api_token_create(user=analyst, name="rest", scopes=["api"])
    for token, message in (
        ("", "Set ALPHADESK_API_TOKEN"),
        (rest_only, "lacks the 'mcp' scope"),
        ("adk_x_y", "invalid"),
    ):
        params = _params(token)
        result = subprocess.run(
            [params.command, *params.args],
            env=params.env,
            cwd=params.cwd,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert result.returncode != 0
        assert message in result.stderr
