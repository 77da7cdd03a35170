"""Finding 4: ``GET /mcp`` held a text/event-stream open for ever (30 on one token stayed alive
for 10 minutes). Now a stream ends after MCP_SSE_MAX_SECONDS and a token may hold at most
MCP_SSE_MAX_STREAMS_PER_TOKEN at once; ending one frees its place."""

from __future__ import annotations

import time
from contextlib import ExitStack
from typing import Any

import httpx

SSE = {"Accept": "text/event-stream"}


def _open(stack: ExitStack, http: httpx.Client, url: str) -> httpx.Response:
    return stack.enter_context(http.stream("GET", url, headers=SSE))


def test_event_streams_are_capped_per_token_and_end_on_time(mcp_url: str, mcp_token: str, settings: Any) -> None:
    settings.MCP_SSE_MAX_STREAMS_PER_TOKEN = 2
    settings.MCP_SSE_MAX_SECONDS = 2.0
    auth = {"Authorization": f"Bearer {mcp_token}"}
    with httpx.Client(headers=auth, timeout=15) as http, ExitStack() as stack:
        first, second = _open(stack, http, mcp_url), _open(stack, http, mcp_url)
        assert first.status_code == second.status_code == 200
        assert first.headers["content-type"].startswith("text/event-stream")
        third = http.get(mcp_url, headers=SSE)
        assert third.status_code == 429 and "2 open event streams" in third.json()["error"]
        started = time.monotonic()
        for _ in first.iter_bytes():  # returns when the server ends the stream
            pass
        lasted = time.monotonic() - started
        assert 1.0 <= lasted < 6.0, f"the stream lasted {lasted:.1f} s with a limit of 2 s"
        for _ in second.iter_bytes():
            pass
    # Both ended: the token's places are free again.
    with httpx.Client(headers=auth, timeout=15) as http, ExitStack() as stack:
        again = _open(stack, http, mcp_url)
        assert again.status_code == 200
