"""Issue 49, finding 4: ``/mcp`` answered without the portal's security headers (no nosniff, no
CSP) and every response named its server (``Server: uvicorn``). Asked of uvicorn as the Procfile
runs it (a real process): the portal, the health probe and /mcp (a refusal by the gate and a real
MCP answer) carry no Server header, and /mcp carries the headers the portal's pages do."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.services import api_token_create

ROOT = Path(__file__).resolve().parents[2]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}


def _assert_mcp_headers(response: httpx.Response) -> None:
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["content-security-policy"] == (
        "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    )
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["referrer-policy"] == "same-origin"
    assert response.headers["cross-origin-opener-policy"] == "same-origin"


@pytest.mark.worker
def test_no_server_header_and_mcp_has_the_portal_headers(uvicorn_factory: Callable[..., Any], analyst: Any) -> None:
    server = uvicorn_factory("adk-headers")
    raw = api_token_create(user=analyst, name="headers", scopes=["mcp"])[1]
    with httpx.Client(base_url=server.url, timeout=30) as client:
        login = client.get("/accounts/login/")
        live = client.get("/api/v1/health/live")
        refused = client.post("/mcp", json=INITIALIZE)  # no token: the gate's 401
        answered = client.post(
            "/mcp",
            json=INITIALIZE,
            headers={"Authorization": f"Bearer {raw}", "Accept": "application/json, text/event-stream"},
        )
    assert (login.status_code, live.status_code, refused.status_code, answered.status_code) == (200, 200, 401, 200)
    for response in (login, live, refused, answered):
        assert "server" not in response.headers, response.url
    assert answered.json()["result"]["serverInfo"]["name"]
    _assert_mcp_headers(refused)
    _assert_mcp_headers(answered)
    assert login.headers["x-content-type-options"] == "nosniff"  # the portal's, from Django


def test_every_uvicorn_launch_turns_the_server_header_off() -> None:
    launches = {
        "Procfile": (ROOT / "Procfile").read_text(),
        "Dockerfile": (ROOT / "Dockerfile").read_text(),
        "docker-compose.yml": (ROOT / "docker-compose.yml").read_text(),
        "demo.py": (ROOT / "core/management/commands/demo.py").read_text(),
        "bench/_load.py": (ROOT / "bench/_load.py").read_text(),
    }
    for name, text in launches.items():
        assert "uvicorn" in text and "no-server-header" in text, name
        assert not re.search(r"--proxy-headers", text), name  # ClientIpMiddleware decides whom to believe
    for name in ("tests/mcp_bridge/conftest.py", "bench/mcp_http.py"):
        assert "server_header=False" in (ROOT / name).read_text(), name
