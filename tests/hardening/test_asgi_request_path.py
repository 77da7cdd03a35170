"""What one API request costs the server under ASGI (uvicorn, as in the Procfile).

Costs found with a profiler under load and removed; each test here fails if it returns:
- Django's stock ASGI handler runs every ``MiddlewareMixin`` middleware's two halves through
  ``sync_to_async``: about twenty thread hops per request, and starts a thread per request.
  ``config.asgi`` runs request_started, the (synchronous) chain and view, and close() in one hop,
  on a thread lent to the request.
- Django's cache is per thread and each request has its own thread, so every request opened a new
  TCP connection to Redis for its rate-limit counters. The cache's pool is now one per process."""

from __future__ import annotations

import asyncio
import contextlib
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from unittest import mock

import httpx
import pytest
import redis
from asgiref.sync import SyncToAsync
from asgiref.testing import ApplicationCommunicator


def _hops_for_one_request(application: Any, path: str) -> tuple[int, int]:
    """(thread hops, status) of one GET through ``application``, counted at asgiref's one door."""
    hops = [0]
    real_call = SyncToAsync.__call__

    async def counting(self: SyncToAsync, *args: Any, **kwargs: Any) -> Any:
        hops[0] += 1
        return await real_call(self, *args, **kwargs)

    scope = {"type": "http", "method": "GET", "path": path, "query_string": b"", "headers": [(b"host", b"127.0.0.1")]}
    scope |= {"http_version": "1.1", "scheme": "http", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 5000)}

    async def run() -> int:
        communicator = ApplicationCommunicator(application, scope)
        await communicator.send_input({"type": "http.request", "body": b""})
        start = await communicator.receive_output(timeout=10)
        await communicator.receive_output(timeout=10)  # the body
        await communicator.send_input({"type": "http.disconnect"})  # lets the handler finish and clean up
        await communicator.wait(timeout=10)
        return int(start["status"])

    # In a thread of its own: another test of the session may have left an event loop running in
    # this one, and asyncio.run refuses to start inside a running loop.
    with mock.patch.object(SyncToAsync, "__call__", counting), ThreadPoolExecutor(1) as thread:
        status = thread.submit(lambda: asyncio.run(run())).result(timeout=60)
    return hops[0], status


@pytest.mark.django_db(transaction=True)
def test_a_request_hops_to_a_thread_once_for_the_whole_chain() -> None:
    from django.core.handlers.asgi import ASGIHandler

    from config.asgi import django_app

    ours, status = _hops_for_one_request(django_app, "/api/v1/health/live")
    assert status == 200
    stock, stock_status = _hops_for_one_request(ASGIHandler(), "/api/v1/health/live")
    assert stock_status == 200
    # One hop: request_started, the chain and view, and close() (request_finished) together.
    print(f"thread hops per request: {ours} here, {stock} with the stock handler")
    assert ours == 1, ours
    # The control: the stock handler hops several times here (how many depends on the middleware mix:
    # 6 with today's, more before two middlewares were added), so a check that saw no hop would fail.
    assert stock >= 5 * ours, (stock, ours)


def test_concurrent_api_requests_share_the_processes_redis_connections(
    uvicorn_factory: Callable[..., Any], api_tokens: Callable[..., list[str]]
) -> None:
    from django.conf import settings

    tokens = api_tokens(4)
    server = uvicorn_factory("adk-redis-pool")
    stats = redis.Redis.from_url(settings.REDIS_URL)
    before = int(stats.info("stats")["total_connections_received"])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        for i in range(120):  # every request is throttled: its counters are read and written in Redis
            response = client.get("/api/v1/me", headers={"Authorization": f"Bearer {tokens[i % 4]}"})
            assert response.status_code == 200, response.text
    opened = int(stats.info("stats")["total_connections_received"]) - before
    # One pool per process: a handful of connections in all, not one (or more) per request.
    assert opened <= 10, f"{opened} Redis connections opened for 120 requests"


def test_requests_borrow_a_thread_and_a_busy_one_is_never_lent() -> None:
    """Django starts (and joins) a thread per request; config.asgi lends idle ones instead."""
    import threading

    from config.asgi import RequestThreads

    threads = RequestThreads(keep=2)
    first = threads.lease()
    ident = first.submit(threading.get_ident).result()
    threads.give_back(first)
    first.submit(lambda: None).result()  # the give-back is queued behind the request's work
    again = threads.lease()
    assert again is first and again.submit(threading.get_ident).result() == ident

    release = threading.Event()
    again.submit(release.wait)  # a view still running after its client went away
    threads.give_back(again)
    other = threads.lease()
    assert other is not again  # the busy thread is not lent while its work runs
    release.set()
    again.submit(lambda: None).result()
    assert threads.lease() is again  # back once its work finished

    extra = [threads.lease() for _ in range(3)]
    for executor in extra:
        threads.give_back(executor)
        # Wait for the give-back; one that found the idle list full has shut its thread down, and
        # may have done so before this submit (the race the loaded fresh-clone run lost).
        with contextlib.suppress(RuntimeError):
            executor.submit(lambda: None).result()
        executor.shutdown(wait=True)
    assert len(threads._idle) == 2  # at most ``keep`` idle threads stay
    for executor in [other, again, *extra]:
        executor.shutdown(wait=True)


def _get(
    application: Any, path: str, *, disconnect_after_start: bool = False, token: str = ""
) -> tuple[int, bytes, int]:
    """(status, body, body messages) of one GET through ``application``."""
    headers = [(b"host", b"127.0.0.1")] + ([(b"authorization", f"Bearer {token}".encode())] if token else [])
    scope = {"type": "http", "method": "GET", "path": path, "query_string": b"", "headers": headers}
    scope |= {"http_version": "1.1", "scheme": "http", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 5000)}

    async def run() -> tuple[int, bytes, int]:
        communicator = ApplicationCommunicator(application, scope)
        await communicator.send_input({"type": "http.request", "body": b""})
        start = await communicator.receive_output(timeout=10)
        body, messages = b"", 0
        if disconnect_after_start:
            await communicator.send_input({"type": "http.disconnect"})
            await communicator.wait(timeout=10)  # the handler stops sending and finishes
            return int(start["status"]), body, messages
        while True:
            message = await communicator.receive_output(timeout=10)
            body, messages = body + message.get("body", b""), messages + 1
            if not message.get("more_body"):
                break
        await communicator.send_input({"type": "http.disconnect"})
        await communicator.wait(timeout=10)
        return int(start["status"]), body, messages

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(lambda: asyncio.run(run())).result(timeout=60)


@pytest.mark.django_db(transaction=True)
def test_a_streaming_response_is_sent_whole_and_stops_when_the_client_goes_away() -> None:
    """A file (whitenoise's FileResponse streams) arrives byte for byte in chunks; a client that
    leaves after the headers ends the stream without an error."""
    from django.conf import settings

    from config.asgi import django_app

    path = settings.BASE_DIR / "static" / "vendor" / "uplot-1.6.32" / "uPlot.iife.min.js"
    # Django reads a synchronous file iterator in a thread under ASGI, and says so.
    with pytest.warns(Warning, match="synchronous iterators"):
        status, body, messages = _get(django_app, "/static/vendor/uplot-1.6.32/uPlot.iife.min.js")
    assert status == 200 and body == path.read_bytes() and messages >= 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status, body, _ = _get(django_app, "/static/vendor/uplot-1.6.32/uPlot.iife.min.js", disconnect_after_start=True)
    assert status == 200 and body == b""


@pytest.mark.django_db(transaction=True)
def test_a_response_in_memory_is_sent_in_one_hop_and_its_connection_goes_back(analyst: Any) -> None:
    from django.db import connection

    from config.asgi import django_app
    from core.services import api_token_create

    token = api_token_create(user=analyst, name="pool")[1]

    def checked_out() -> int:
        stats = getattr(connection, "pool").get_stats()  # noqa: B009  (the pool is on by default; not typed on the base class)
        return int(stats.get("pool_size", 0)) - int(stats.get("pool_available", 0))

    before = checked_out()
    status, body, _ = _get(django_app, "/api/v1/me", token=token)  # the token is read from the database
    assert status == 200 and b"analyst@example.test" in body
    assert checked_out() <= before  # the request's connection went back to the pool


def _in_a_loop_of_its_own(coroutine: Callable[[], Any]) -> None:
    with ThreadPoolExecutor(1) as thread:  # (see _hops_for_one_request)
        thread.submit(lambda: asyncio.run(coroutine())).result(timeout=30)


def test_request_slots_bound_the_requests_running_at_once() -> None:
    from config.asgi import RequestSlots

    slots = RequestSlots(2, slow_after=5.0)
    running, peak = [0], [0]

    async def request() -> None:
        async with slots.slot():
            running[0] += 1
            peak[0] = max(peak[0], running[0])
            await asyncio.sleep(0.02)
            running[0] -= 1

    async def six_at_once() -> None:
        await asyncio.gather(*(request() for _ in range(6)))

    _in_a_loop_of_its_own(six_at_once)
    assert peak[0] == 2


def test_a_slow_request_gives_its_slot_to_the_next_and_a_fast_one_is_not_starved() -> None:
    """One slot; a request that takes 2 s (a chat message posted with wait) holds it for 0.05 s:
    the fast request behind it is served within a fraction of a second, not after 2 s."""
    from config.asgi import RequestSlots

    slots = RequestSlots(1, slow_after=0.05)
    served_after: list[float] = []

    async def slow() -> None:
        async with slots.slot():
            await asyncio.sleep(2)

    async def fast(began: float) -> None:
        async with slots.slot():
            served_after.append(asyncio.get_running_loop().time() - began)

    async def both() -> None:
        began = asyncio.get_running_loop().time()
        slow_one = asyncio.ensure_future(slow())
        await asyncio.sleep(0.01)
        await asyncio.gather(fast(began), fast(began), slow_one)

    _in_a_loop_of_its_own(both)
    assert len(served_after) == 2 and max(served_after) < 0.5, served_after
