"""Request-edge middleware: the client's real address (and scheme) behind trusted proxies, an
absolute session lifetime, and JSON errors for everything under ``/api/``."""

from __future__ import annotations

import ipaddress
import json
import logging
import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse

from core.api_errors import internal_error_body

logger = logging.getLogger("core.api")
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(entries: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries if entry.strip())


def _trusted(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in _networks(tuple(settings.TRUSTED_PROXIES)))


def client_ip(remote_addr: str, forwarded_for: str) -> str:
    """The client's address: ``X-Forwarded-For`` counts only when the direct peer is one of
    ``TRUSTED_PROXIES``; then the rightmost hop that is not itself a trusted proxy is the client
    (anything left of it was written by the client and proves nothing)."""
    if not forwarded_for or not _trusted(remote_addr):
        return remote_addr
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    for hop in reversed(hops):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return remote_addr  # garbage in the header: fall back to the peer we can see
        if not _trusted(hop):
            return hop
    return hops[0] if hops else remote_addr


# Headers only a trusted proxy may set; from anyone else they are dropped before anything reads them.
_PROXY_ONLY_HEADERS = ("HTTP_X_FORWARDED_PROTO", "HTTP_X_FORWARDED_HOST", "HTTP_X_FORWARDED_PORT")


class ClientIpMiddleware:
    """Set ``REMOTE_ADDR`` to the real client (login throttles, the audit log and DRF throttles
    all read it). Web servers run with their own proxy-header handling off (``--no-proxy-headers``)
    so this is the one place that decides whom to believe."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        peer = request.META.get("REMOTE_ADDR", "")
        if not _trusted(peer):
            # Whether the request came over HTTPS (SECURE_PROXY_SSL_HEADER) is a proxy's word too:
            # from any other peer the header is the client's own claim (issue 49).
            for header in _PROXY_ONLY_HEADERS:
                request.META.pop(header, None)
        request.META["REMOTE_ADDR"] = client_ip(peer, request.META.get("HTTP_X_FORWARDED_FOR", ""))
        return self.get_response(request)


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def _body_limit(request: HttpRequest) -> int:
    content_type = request.META.get("CONTENT_TYPE", "")
    if content_type.startswith("multipart/form-data"):
        return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)  # document uploads have their own cap
    return int(settings.API_MAX_BODY_BYTES)


def _too_large(limit: int) -> JsonResponse:
    return JsonResponse(
        {"error": "too_large", "detail": f"The request body is over the limit of {limit:,} bytes."}, status=413
    )


class ApiErrorMiddleware:
    """Under ``/api/``: a body over the limit is a JSON 413 before anything reads it; an error page
    Django renders (unknown URL, bad request, crash) becomes JSON with the same status."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not _is_api(request):
            return self.get_response(request)
        length = request.META.get("CONTENT_LENGTH") or "0"
        limit = _body_limit(request)
        if length.isdigit() and int(length) > limit:
            return _too_large(limit)
        response = self.get_response(request)
        if response.status_code >= 400 and not response.get("Content-Type", "").startswith("application/"):
            return self._as_json(response)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not _is_api(request):
            return None
        if isinstance(exception, RequestDataTooBig):
            return _too_large(_body_limit(request))
        logger.exception("unhandled error under /api/", exc_info=exception)
        return JsonResponse(internal_error_body(), status=500)

    @staticmethod
    def _as_json(response: HttpResponse) -> HttpResponse:
        status = response.status_code
        if status >= 500:
            body: dict[str, Any] = internal_error_body()
        else:
            body = {"detail": response.reason_phrase or "Request refused."}
        converted = HttpResponse(json.dumps(body), status=status, content_type="application/json")
        for header in ("Allow", "Retry-After", "WWW-Authenticate"):
            if header in response:
                converted[header] = response[header]
        return converted


SESSION_STARTED_KEY = "_alphadesk_signed_in_at"


class AbsoluteSessionMiddleware:
    """A signed-in session ends ``SESSION_ABSOLUTE_SECONDS`` after sign-in however active it is (the
    idle timeout alone let a stolen session live for ever while in use): the next request signs out
    and goes to the sign-in page (an API call gets 401)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        from django.contrib.auth import logout
        from django.contrib.auth.views import redirect_to_login

        user = getattr(request, "user", None)
        session = getattr(request, "session", None)
        if user is not None and user.is_authenticated and session is not None and not _by_token(request):
            now = int(time.time())
            started = session.get(SESSION_STARTED_KEY)
            if started is None:
                session[SESSION_STARTED_KEY] = now  # signed in before this rule; the clock starts now
            elif now - int(started) > settings.SESSION_ABSOLUTE_SECONDS:
                logout(request)
                if _is_api(request):
                    return JsonResponse({"detail": "Your session has ended; sign in again."}, status=401)
                return redirect_to_login(request.get_full_path())
        return self.get_response(request)


def _by_token(request: HttpRequest) -> bool:
    return request.META.get("HTTP_AUTHORIZATION", "").lower().startswith("bearer ")
