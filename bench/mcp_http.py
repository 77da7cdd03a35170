"""MCP bridge: a `compute_metrics` tools/call over streamable HTTP (real uvicorn on loopback,
bearer-token auth, rate limit, audit write included), warm, bars already cached. Target p95 ≤ 50 ms."""

from __future__ import annotations

import json
import socket
import statistics
import threading
import time
from typing import Any

import httpx
import uvicorn

CALLS = 300


def _serve() -> tuple[uvicorn.Server, str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config("config.asgi:application", host="127.0.0.1", port=port, log_level="warning", server_header=False)
    )
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    return server, f"http://127.0.0.1:{port}/mcp"


def _call(client: httpx.Client, url: str, name: str, arguments: dict[str, Any], call_id: int) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": call_id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    response = client.post(url, content=json.dumps(body))
    response.raise_for_status()
    return dict(response.json())


def run() -> list[dict[str, Any]]:
    from django.conf import settings
    from django.core.management import call_command

    from core.services import api_token_create, user_ensure

    call_command("migrate", verbosity=0)
    settings.MCP_RATE_LIMIT_PER_MINUTE = 10 * CALLS  # measure the path, not the limiter's refusal
    user, _ = user_ensure(email="bench-mcp@alphadesk.local", roles=["analyst"], password=None)
    _, token = api_token_create(user=user, name="bench mcp", scopes=["mcp"])
    server, url = _serve()
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    rows = []
    try:
        with httpx.Client(headers=headers, timeout=30) as client:
            for tool, arguments in (
                ("compute_metrics", {"ticker": "RELIANCE.NS"}),
                ("calculate_financial_metric", {"expression": "cagr(100, 180, 5)"}),
            ):
                for i in range(20):  # warm: imports, caches, bars in Postgres
                    first = _call(client, url, tool, arguments, i)
                if first.get("result", {}).get("isError"):
                    rows.append({"tool": tool, "n": 0, "note": first["result"]["content"][0]["text"][:80]})
                    continue
                samples = []
                for i in range(CALLS):
                    started = time.perf_counter()
                    _call(client, url, tool, arguments, i)
                    samples.append((time.perf_counter() - started) * 1000)
                samples.sort()
                rows.append(
                    {
                        "tool": f"{tool} over HTTP",
                        "n": CALLS,
                        "median_ms": round(statistics.median(samples), 1),
                        "p95_ms": round(samples[int(0.95 * (CALLS - 1))], 1),
                        "max_ms": round(samples[-1], 1),
                    }
                )
    finally:
        server.should_exit = True
    return rows
