"""The MCP bridge over streamable HTTP, driven by the official SDK client and raw HTTP."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from core.models import AuditEvent
from core.tools import mcp_whitelist
from mcp_bridge.notify import JSON_SCHEMA_2020_12
from mcp_bridge.services import arguments_digest
from tests.mcp_bridge.conftest import run_async

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
JSON_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _with_client(url: str, token: str, body: Any) -> Any:
    async def run() -> Any:
        import httpx2

        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            return await body(client)

    return run_async(run)


def test_list_tools_is_exactly_the_registry_whitelist(mcp_url: str, mcp_token: str) -> None:
    async def body(client: Client) -> Any:
        return await client.list_tools()

    tools = {tool.name: tool for tool in _with_client(mcp_url, mcp_token, body).tools}
    whitelist = mcp_whitelist()
    assert set(tools) == set(whitelist)
    for name, spec in whitelist.items():
        assert tools[name].description == spec.description
        assert tools[name].input_schema == {"$schema": JSON_SCHEMA_2020_12, **spec.input_schema()}


def test_tool_call_valid_and_invalid(mcp_url: str, mcp_token: str, analyst: Any) -> None:
    async def body(client: Client) -> Any:
        ok = await client.call_tool("calculate_financial_metric", {"expression": "pct_change(200, 230)"})
        bad = await client.call_tool("calculate_financial_metric", {"expression": "__import__('os')"})
        missing = await client.call_tool("calculate_financial_metric", {})
        unknown = await client.call_tool("shell", {"cmd": "ls"})
        return ok, bad, missing, unknown

    ok, bad, missing, unknown = _with_client(mcp_url, mcp_token, body)
    assert not ok.is_error
    assert ok.structured_content is not None and ok.structured_content["result"] == pytest.approx(15.0)
    assert (
        bad.is_error
        and "Unknown function '__import__'" in bad.content[0].text
        and "Traceback" not in bad.content[0].text
    )
    assert missing.is_error and "expression" in missing.content[0].text
    assert unknown.is_error and "no tool called 'shell'" in unknown.content[0].text

    events = list(AuditEvent.objects.filter(action="mcp.tool_call").order_by("id"))
    assert [(e.after or {})["outcome"] for e in events] == ["ok", "invalid_expression", "invalid_input", "unknown_tool"]
    afters = [e.after or {} for e in events]
    assert all(e.actor_id == analyst.pk for e in events) and all(a["transport"] == "http" for a in afters)
    assert afters[0]["arguments_sha256"] == arguments_digest({"expression": "pct_change(200, 230)"})
    assert afters[0]["latency_ms"] >= 0


def _post(url: str, headers: dict[str, str], body: Any = INIT) -> httpx.Response:
    return httpx.post(url, headers={**JSON_HEADERS, **headers}, content=json.dumps(body), timeout=10)


def test_no_token_or_revoked_token_is_401(mcp_url: str, analyst: Any) -> None:
    from core.services import api_token_create, api_token_revoke

    missing = _post(mcp_url, {})
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")
    token, raw = api_token_create(user=analyst, name="soon revoked", scopes=["mcp"])
    assert _post(mcp_url, {"Authorization": f"Bearer {raw}"}).status_code == 200
    api_token_revoke(user=analyst, token_id=token.pk)
    assert _post(mcp_url, {"Authorization": f"Bearer {raw}"}).status_code == 401
    assert _post(mcp_url, {"Authorization": "Bearer adk_made_up"}).status_code == 401


def test_token_without_mcp_scope_is_403(mcp_url: str, analyst: Any) -> None:
    from core.services import api_token_create

    _, raw = api_token_create(user=analyst, name="rest only", scopes=["api"])
    response = _post(mcp_url, {"Authorization": f"Bearer {raw}"})
    assert response.status_code == 403
    assert "mcp" in response.json()["error"]


def test_foreign_origin_is_403_and_local_origin_allowed(mcp_url: str, mcp_token: str) -> None:
    auth = {"Authorization": f"Bearer {mcp_token}"}
    assert _post(mcp_url, {**auth, "Origin": "http://evil.example.com"}).status_code == 403
    assert _post(mcp_url, {**auth, "Origin": "http://localhost:3000"}).status_code == 200


def test_rate_limit_answers_429(mcp_url: str, mcp_token: str, settings: Any) -> None:
    settings.MCP_RATE_LIMIT_PER_MINUTE = 3
    auth = {"Authorization": f"Bearer {mcp_token}"}
    statuses = [_post(mcp_url, auth).status_code for _ in range(5)]
    assert statuses[:3] == [200, 200, 200]
    assert statuses[3:] == [429, 429]
    limited = _post(mcp_url, auth)
    assert 1 <= int(limited.headers["retry-after"]) <= 60


def test_oversized_request_is_413(mcp_url: str, mcp_token: str) -> None:
    huge = {**INIT, "params": {**INIT["params"], "padding": "x" * 300_000}}  # type: ignore[dict-item]
    response = _post(mcp_url, {"Authorization": f"Bearer {mcp_token}"}, huge)
    assert response.status_code == 413


def test_user_a_cannot_read_user_bs_portfolio_through_any_tool(mcp_url: str, mcp_token: str, make_user: Any) -> None:
    from portfolios.services import portfolio_create

    owner_b = make_user("analyst")
    private, _ = portfolio_create(
        user=owner_b, name="B private", holdings=[("TCS.NS", 0.5), ("SBIN.NS", 0.5)], shared_with_team=False
    )
    shared, _ = portfolio_create(
        user=owner_b, name="B shared", holdings=[("INFY.NS", 0.5), ("ICICIBANK.NS", 0.5)], shared_with_team=True
    )
    portfolio_tools = [
        name for name, spec in mcp_whitelist().items() if "portfolio_id" in spec.input_schema()["properties"]
    ]
    assert portfolio_tools == ["analyze_portfolio"]

    async def body(client: Client) -> Any:
        hidden = await client.call_tool("analyze_portfolio", {"portfolio_id": private.pk})
        visible = await client.call_tool("analyze_portfolio", {"portfolio_id": shared.pk})
        return hidden, visible

    hidden, visible = _with_client(mcp_url, mcp_token, body)
    assert hidden.is_error
    text = hidden.content[0].text
    assert "TCS" not in text and "SBIN" not in text and "B private" not in text
    assert not visible.is_error
    assert visible.structured_content is not None
    assert {a["symbol"] for a in visible.structured_content["assets"]} == {"INFY.NS", "ICICIBANK.NS"}


def test_market_tools_over_http_valid_and_unknown_ticker(mcp_url: str, mcp_token: str) -> None:
    async def body(client: Client) -> Any:
        ok = await client.call_tool("compute_metrics", {"ticker": "reliance"})
        unknown = await client.call_tool("compute_metrics", {"ticker": "NOSUCHCO"})
        garbage = await client.call_tool("get_stock_quote", {"ticker": "DROP TABLE;"})
        return ok, unknown, garbage

    ok, unknown, garbage = _with_client(mcp_url, mcp_token, body)
    assert not ok.is_error and ok.structured_content is not None
    assert ok.structured_content["symbol"] == "RELIANCE.NS" and ok.structured_content["source"] == "snapshot"
    assert unknown.is_error and "[unknown_ticker]" in unknown.content[0].text
    assert garbage.is_error and "Traceback" not in garbage.content[0].text


def test_the_tool_whitelist_is_closed() -> None:
    assert set(mcp_whitelist()) == {
        "search_financial_documents",
        "calculate_financial_metric",
        "get_stock_quote",
        "get_price_history",
        "get_fundamentals",
        "compute_metrics",
        "analyze_portfolio",
        "fetch_rss_news",
    }


def _approved_brief(owner: Any, name: str, text: str) -> Any:
    from django.utils import timezone

    from briefs.models import Brief, BriefRun
    from portfolios.services import watchlist_create

    watchlist = watchlist_create(user=owner, name=name, tickers=["INFY.NS"])
    run = BriefRun.objects.create(watchlist=watchlist, trigger="api", status="archived", tickers=["INFY.NS"])
    Brief.objects.create(
        run=run,
        watchlist=watchlist,
        status="approved",
        title=f"{name} brief",
        draft={},
        body_text=text,
        body_html=f"<p>{text}</p>",
        decided_by="reviewer@example.test",
        decided_at=timezone.now(),
        claims=[{"id": "c1", "ticker": "INFY.NS", "metric": "last_close", "value": 1500.5}],
    )
    return watchlist


def test_brief_resources_are_scoped_to_the_user(mcp_url: str, mcp_token: str, analyst: Any, make_user: Any) -> None:
    from mcp.shared.exceptions import MCPError

    mine = _approved_brief(analyst, "Mine", "Infosys closed at {{c1}}.")
    theirs = _approved_brief(make_user("analyst"), "Theirs", "secret desk view")

    async def body(client: Client) -> Any:
        listed = await client.list_resources()
        templates = await client.list_resource_templates()
        read = await client.read_resource(f"alphadesk://briefs/watchlist/{mine.pk}/latest")
        try:
            await client.read_resource(f"alphadesk://briefs/watchlist/{theirs.pk}/latest")
            leaked = "read"
        except MCPError as exc:
            leaked = str(exc)
        return listed, templates, read, leaked

    listed, templates, read, leaked = _with_client(mcp_url, mcp_token, body)
    assert [str(r.uri) for r in listed.resources] == [f"alphadesk://briefs/watchlist/{mine.pk}/latest"]
    assert templates.resource_templates[0].uri_template == "alphadesk://briefs/watchlist/{watchlist_id}/latest"
    content = json.loads(read.contents[0].text)
    assert content["title"] == "Mine brief" and content["claims"][0]["value"] == 1500.5
    assert "No approved brief" in leaked and "secret" not in leaked
    assert AuditEvent.objects.filter(action="mcp.resource_read", actor=analyst).count() == 1
