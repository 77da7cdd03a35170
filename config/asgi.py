"""ASGI entry point (uvicorn): Django for everything, the MCP bridge at ``/mcp``."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import django
from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse, HttpResponseBase
from django.urls import set_script_prefix

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


class RequestThreads:
    """Single-thread executors lent to requests, and kept for the next one.

    Django's handler gives each request a new thread (a ``ThreadSensitiveContext`` with its own
    executor, shut down at the end): under load, starting and joining that thread was a tenth of
    an API read's CPU. A request here borrows an idle thread instead. The thread goes back only
    once the work queued on it has finished — a view still running after its client went away
    keeps its thread, and no later request queues behind it. At most ``keep`` idle threads stay."""

    def __init__(self, keep: int = 64) -> None:
        self.keep = keep
        self._idle: list[ThreadPoolExecutor] = []
        self._lock = threading.Lock()

    def lease(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="request")

    def give_back(self, executor: ThreadPoolExecutor) -> None:
        executor.submit(self._park, executor)  # runs after whatever the request left queued

    def _park(self, executor: ThreadPoolExecutor) -> None:
        with self._lock:
            if len(self._idle) < self.keep:
                self._idle.append(executor)
                return
        executor.shutdown(wait=False)


class RequestSlots:
    """At most ``limit`` requests of this process run their synchronous work at once; the others
    wait their turn in the event loop, where waiting costs nothing. Fifty threads sharing one GIL
    spend a third more CPU per request on switching than a handful do.

    A request still running after ``slow_after`` seconds gives its slot to the next one and goes
    on outside the count: a chat message posted with ``wait``, an export or a slow provider can
    delay the others by that long at most, never starve them. ``limit`` 0 bounds nothing."""

    def __init__(self, limit: int, slow_after: float) -> None:
        self.limit = limit
        self.slow_after = slow_after
        self._semaphore: asyncio.Semaphore | None = None

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        if self.limit <= 0:
            yield
            return
        if self._semaphore is None:  # made inside the server's event loop, on first use
            self._semaphore = asyncio.Semaphore(self.limit)
        semaphore = self._semaphore
        await semaphore.acquire()
        held = [True]

        def give_back() -> None:
            if held[0]:
                held[0] = False
                semaphore.release()

        timer = asyncio.get_running_loop().call_later(self.slow_after, give_back)
        try:
            yield
        finally:
            timer.cancel()
            give_back()


class OneHopASGIHandler(ASGIHandler):
    """Django's ASGI handler, with the middleware chain and the view run in one thread per request.

    Our views and most middleware are synchronous. Django's stock handler builds an async chain,
    where every ``MiddlewareMixin`` middleware runs its request and response halves through
    ``sync_to_async`` — two thread hops each, about twenty per request — and then hops once more
    for the view. Measured under wrk: 4.1 ms of server CPU for ``/api/v1/health/live``, which does
    nothing. Here the chain is the WSGI one (synchronous), entered once from the event loop (by
    ``handle`` below, which replaces Django's and with it ``get_response_async``), in the
    request's thread-sensitive context, so database connections stay per request as before.
    Streaming responses are still sent by the ASGI handler."""

    threads = RequestThreads()

    def __init__(self) -> None:
        from django.conf import settings

        super().__init__()
        self.slots = RequestSlots(settings.ASGI_REQUEST_SLOTS, slow_after=settings.ASGI_SLOW_REQUEST_MS / 1000)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        # As Django's own handler does, with the request's thread borrowed rather than started.
        executor = self.threads.lease()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            self.threads.give_back(executor)

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Django's ``handle`` with the request's synchronous work in one hop: the request_started
        signal, the middleware chain and view, and — for a response already in memory — its
        ``close()`` (request_finished: the request's database connection goes back to the pool,
        from the thread that used it). Django's own takes three hops and two tasks for this. A
        streaming response is sent as Django sends it: watching for the client going away, and
        closed once sent."""
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        set_script_prefix(get_script_prefix(scope))
        try:
            async with self.slots.slot():
                response = await sync_to_async(self._respond, thread_sensitive=True)(scope, body_file)
            if response.streaming:
                await self._stream(response, receive, send)
            else:
                await self.send_response(response, send)
        finally:
            body_file.close()

    def _respond(self, scope: dict[str, Any], body_file: Any) -> HttpResponseBase:
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, error_response = self.create_request(scope, body_file)
        response: Any = error_response if request is None else self.get_response(request)
        response._handler_class = self.__class__
        if isinstance(response, FileResponse):
            response.block_size = self.chunk_size
        if not response.streaming:
            response.close()
        return response

    async def _stream(self, response: HttpResponseBase, receive: Any, send: Any) -> None:
        sending = asyncio.create_task(self.send_response(response, send))
        watching = asyncio.create_task(self.listen_for_disconnect(receive))
        await asyncio.wait([sending, watching], return_when=asyncio.FIRST_COMPLETED)
        for task in (watching, sending):
            if not task.done():
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError, RequestAborted):
                await task
        await sync_to_async(response.close, thread_sensitive=True)()


django.setup(set_prefix=False)
django_app = OneHopASGIHandler()  # Django is set up before the bridge imports models

from core.edge_headers import SecurityHeadersASGI  # noqa: E402
from mcp_bridge.http import MCPGate, build_http_app  # noqa: E402

mcp_app = build_http_app()
# The portal's security headers on every /mcp answer, refusals by the gate included.
gated_mcp_app = SecurityHeadersASGI(MCPGate(mcp_app))


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        # Django has no lifespan; the MCP app's starts and stops the SDK session manager.
        await mcp_app(scope, receive, send)
    elif scope["type"] == "http" and (scope["path"] == "/mcp" or scope["path"].startswith("/mcp/")):
        await gated_mcp_app(scope, receive, send)
    else:
        await django_app(scope, receive, send)
