"""Streamable HTTP transport at ``/mcp``: origin check, size cap, bearer-token auth with the
``mcp`` scope, per-token rate limit — then the SDK's app with the user on the request scope."""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from typing import Any

import anyio
import anyio.to_thread
import redis
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from mcp.server.transport_security import TransportSecuritySettings

from core.services import api_token_authenticate
from mcp_bridge.server import USER_SCOPE_KEY, build_server

Scope = dict[str, Any]
ASGIApp = Any

_redis_client: redis.Redis | None = None


def _redis() -> redis.Redis:
    global _redis_client
    if _redis_client is None:
        _redis_client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
    return _redis_client


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return None


def origin_allowed(origin: str) -> bool:
    """Exact origins from MCP_ALLOWED_ORIGINS; an entry ending in ``:*`` allows any port."""
    for allowed in settings.MCP_ALLOWED_ORIGINS:
        if allowed.endswith(":*"):
            base = allowed[:-2]
            if origin == base or (origin.startswith(base + ":") and origin[len(base) + 1 :].isdigit()):
                return True
        elif origin == allowed:
            return True
    return False


async def _respond(send: Any, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"error": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            + (headers or []),
        }
    )
    await send({"type": "http.response.body", "body": body})


def _authenticate(raw_header: str | None) -> tuple[int, str, Any, list[tuple[bytes, bytes]]]:
    """(status, message, token, extra headers) — status 0 means allowed."""
    try:
        return _check_token(raw_header)
    finally:
        # This path bypasses Django's request cycle, so close connections as it would.
        close_old_connections()


def _check_token(raw_header: str | None) -> tuple[int, str, Any, list[tuple[bytes, bytes]]]:
    challenge = [(b"www-authenticate", b'Bearer realm="mcp"')]
    if not raw_header or not raw_header.lower().startswith("bearer "):
        return 401, "Missing bearer token: create an API token with the 'mcp' scope under Settings.", None, challenge
    token = api_token_authenticate(raw_header[7:].strip())
    if token is None:
        return 401, "Invalid, expired or revoked API token.", None, challenge
    if not token.has_scope("mcp"):
        return 403, "This API token lacks the 'mcp' scope.", None, []
    # Per token and per user (issue 49: 20 tokens of one user had 20 times the limit), both in
    # one Redis round trip.
    limits = [
        (f"alphadesk:mcp:rate:{token.pk}", settings.MCP_RATE_LIMIT_PER_MINUTE, "this token"),
        (f"alphadesk:mcp:rate:user:{token.user_id}", settings.MCP_RATE_LIMIT_PER_USER_PER_MINUTE, "your account"),
    ]
    now = time.time()
    try:
        windows = _sliding_windows([key for key, _, _ in limits], now)
    except redis.RedisError:
        return 503, "Rate limiter unavailable (Redis is down); try again shortly.", None, []
    for (_, limit, whose), (count, oldest) in zip(limits, windows, strict=True):
        if count > limit:
            retry_after = min(60, max(1, int(60 - (now - oldest)) + 1)) if oldest else 60
            return (
                429,
                f"Rate limit of {limit} requests per minute for {whose} exceeded.",
                None,
                [(b"retry-after", str(retry_after).encode())],
            )
    return 0, "", token, []


def _sliding_windows(keys: list[str], now: float) -> list[tuple[int, float | None]]:
    """Record this request in each key's window of the last 60 s (a sorted set of request times)
    and return (requests in the window, the oldest one's time). Unlike a fixed per-minute counter
    a sliding window cannot let 2x the limit through across a minute boundary."""
    pipe = _redis().pipeline()
    member = f"{now:.6f}:{uuid.uuid4().hex[:8]}"
    for key in keys:
        pipe.zremrangebyscore(key, 0, now - 60)
        pipe.zadd(key, {member: now})
        pipe.zcard(key)
        pipe.zrange(key, 0, 0, withscores=True)
        pipe.expire(key, 61)
    results = pipe.execute()
    windows = []
    for i in range(len(keys)):
        _, _, count, oldest, _ = results[i * 5 : i * 5 + 5]
        windows.append((int(count), float(oldest[0][1]) if oldest else None))
    return windows


def _stream_slot_take(token_id: int) -> bool:
    """Count one more open event stream for the token; False (and nothing counted) over the cap.
    The key expires a minute after the longest a stream may live, so a crashed process cannot
    hold slots for ever."""
    key = f"alphadesk:mcp:streams:{token_id}"
    pipe = _redis().pipeline()
    pipe.incr(key)
    pipe.expire(key, int(settings.MCP_SSE_MAX_SECONDS) + 60)
    count, _ = pipe.execute()
    if int(count) > settings.MCP_SSE_MAX_STREAMS_PER_TOKEN:
        _redis().decr(key)
        return False
    return True


def _stream_slot_release(token_id: int) -> None:
    with contextlib.suppress(redis.RedisError):  # else the key's expiry frees the slot
        _redis().decr(f"alphadesk:mcp:streams:{token_id}")


async def _serve_stream(app: ASGIApp, scope: Scope, receive: Any, send: Any) -> None:
    """Run a ``GET /mcp`` event stream for at most MCP_SSE_MAX_SECONDS, then end it cleanly
    (the client reconnects if it still wants one)."""
    state = {"started": False, "finished": False}

    async def tracking_send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            state["started"] = True
        elif message["type"] == "http.response.body" and not message.get("more_body", False):
            state["finished"] = True
        await send(message)

    with anyio.move_on_after(settings.MCP_SSE_MAX_SECONDS):
        await app(scope, receive, tracking_send)
    if state["started"] and not state["finished"]:
        await send({"type": "http.response.body", "body": b"", "more_body": False})


class MCPGate:
    """ASGI middleware in front of the SDK app (which also validates Host/Origin)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        origin = _header(scope, b"origin")
        if origin is not None and not origin_allowed(origin):
            await _respond(send, 403, f"Origin {origin!r} is not allowed.")
            return
        length = _header(scope, b"content-length")
        if length is not None and length.isdigit() and int(length) > settings.MCP_MAX_REQUEST_BYTES:
            await _respond(send, 413, f"Request body over {settings.MCP_MAX_REQUEST_BYTES} bytes.")
            return
        status, message, token, headers = await sync_to_async(_authenticate, thread_sensitive=True)(
            _header(scope, b"authorization")
        )
        if status:
            await _respond(send, status, message, headers)
            return
        scope[USER_SCOPE_KEY] = token.user
        if scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        # A GET opens a server-to-client event stream: bounded in number per token and in time.
        try:
            taken = await anyio.to_thread.run_sync(_stream_slot_take, token.pk)
        except redis.RedisError:
            await _respond(send, 503, "Stream limiter unavailable (Redis is down); try again shortly.")
            return
        if not taken:
            cap = settings.MCP_SSE_MAX_STREAMS_PER_TOKEN
            message = f"This token already has {cap} open event streams, the most allowed."
            await _respond(send, 429, message, [(b"retry-after", b"5")])
            return
        try:
            await _serve_stream(self.app, scope, receive, send)
        finally:
            await anyio.to_thread.run_sync(_stream_slot_release, token.pk)


def build_http_app() -> ASGIApp:
    """The Starlette app for ``/mcp`` (its lifespan runs the SDK's session manager)."""
    # No logging capability here: a JSON response cannot carry log notifications (issue 49).
    server = build_server(logging=False)
    return server.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        json_response=True,
        max_request_body_size=settings.MCP_MAX_REQUEST_BYTES,
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=settings.MCP_ALLOWED_HOSTS,
            allowed_origins=settings.MCP_ALLOWED_ORIGINS,
        ),
    )
