"""The portal's security headers for responses Django does not produce: ``/mcp`` is served by the
MCP SDK's Starlette app (config/asgi.py), which bypasses Django's middleware, so it answered with
none of them (issue 49, finding 4). The values are read from the same settings Django's
SecurityMiddleware, XFrameOptionsMiddleware and django-csp use, so the two cannot drift."""

from __future__ import annotations

from typing import Any

from django.conf import settings

# /mcp answers JSON (or an event stream) to programs, never a page: nothing in it may load or run
# anything, nor be framed. Stricter than the portal's page policy, which must allow its own files.
MCP_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"


def security_headers(*, secure: bool) -> list[tuple[str, str]]:
    """The headers every portal response carries (HSTS only over HTTPS, as Django sends it)."""
    headers = [("Content-Security-Policy", MCP_CONTENT_SECURITY_POLICY)]
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers.append(("X-Content-Type-Options", "nosniff"))
    if settings.SECURE_REFERRER_POLICY:
        headers.append(("Referrer-Policy", str(settings.SECURE_REFERRER_POLICY)))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        headers.append(("Cross-Origin-Opener-Policy", str(settings.SECURE_CROSS_ORIGIN_OPENER_POLICY)))
    headers.append(("X-Frame-Options", str(settings.X_FRAME_OPTIONS)))
    if secure and settings.SECURE_HSTS_SECONDS:
        hsts = f"max-age={settings.SECURE_HSTS_SECONDS}"
        if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS:
            hsts += "; includeSubDomains"
        if settings.SECURE_HSTS_PRELOAD:
            hsts += "; preload"
        headers.append(("Strict-Transport-Security", hsts))
    return headers


class SecurityHeadersASGI:
    """ASGI wrapper: adds :func:`security_headers` to every response start and drops any ``Server``
    header the app set (uvicorn's own is turned off with ``--no-server-header``)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = [(k.lower().encode(), v.encode()) for k, v in security_headers(secure=scope.get("scheme") == "https")]
        names = {name for name, _ in extra} | {b"server"}

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message = {**message, "headers": [*kept, *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
