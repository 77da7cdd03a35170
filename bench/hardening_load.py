"""Reliability under load (issue 17), loopback only and bounded: uvicorn as in the Procfile, with
``LOAD_WEB_WORKERS`` worker processes (default 2, one per core), against the bench database, 50
concurrent clients, each with its own analyst and API token (driven by wrk when installed —
``make load-client`` — else by an httpx client on the same cores). Read endpoints
(``GET /api/v1/me``, ``/api/v1/portfolios``, ``/api/v1/watchlists``; the load analysts own none,
so the lists hold what the team shares — on the bench database, nothing: the request path is
measured, not serialising), chat submission
(``POST /api/v1/chat``, answer not awaited, no worker consuming so only the web side is measured),
and a ``wait=30`` chat request next to readers. ``peak PG sessions`` is the web processes' highest
connection count seen in pg_stat_activity. The API rate limits are raised for the run
(``API_THROTTLE_*``): this measures the server, not the limiter. ``LOAD_SECONDS`` sets each phase's
length (default 20; the finding-0 replay: 60). The last row times a fixed pure-Python loop before
the run: this VM's speed varies from host to host, and the rates with it."""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any

from bench._load import UNLIMITED, UvicornProcess, get_cycle, hammer
from bench._wrk import available as wrk_available
from bench._wrk import run_wrk

CLIENTS = int(os.environ.get("LOAD_CLIENTS", "50"))
SECONDS = float(os.environ.get("LOAD_SECONDS", "20"))
APP = "adk-load-web"
ME = ["/api/v1/me"]
READS = ["/api/v1/me", "/api/v1/portfolios", "/api/v1/watchlists"]


def _tokens(n: int) -> list[str]:
    from core.models import ApiToken
    from core.services import api_token_create, user_ensure

    tokens = []
    for i in range(n):
        user, _ = user_ensure(email=f"load{i}@alphadesk.local", roles=["analyst"], password=None)
        ApiToken.objects.filter(user=user).delete()  # bench users only: start each run clean
        tokens.append(api_token_create(user=user, name="load", scopes=["api"])[1])
    return tokens


def _database_url() -> str:
    from django.conf import settings

    return f"{settings.DATABASE_URL}{'&' if '?' in settings.DATABASE_URL else '?'}application_name={APP}"


def _peak_sessions(stop: threading.Event, peak: list[int]) -> None:
    from django.db import connection, connections

    try:
        while not stop.is_set():
            with connection.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [APP])
                peak[0] = max(peak[0], int(cursor.fetchone()[0]))
            time.sleep(0.1)
    finally:
        connections.close_all()


def _phase(name: str, tokens: list[str], drive: Any) -> dict[str, Any]:
    """``drive()`` → the row of one load phase; the web process's peak PostgreSQL sessions beside it."""
    stop, peak = threading.Event(), [0]
    sampler = threading.Thread(target=_peak_sessions, args=(stop, peak))
    sampler.start()
    try:
        row = drive()
    finally:
        stop.set()
        sampler.join()
    return {"phase": name, "clients": len(tokens), **row, "peak PG sessions": peak[0]}


def _httpx_row(server: UvicornProcess, tokens: list[str], request: Any, seconds: float) -> dict[str, Any]:
    result = hammer(server.url, tokens, request, seconds)
    return {"client": "httpx", "seconds": round(result.seconds, 1), **result.row()}


def _wrk_row(server: UvicornProcess, tokens: list[str], paths: list[str], seconds: float, **kw: Any) -> dict[str, Any]:
    return {"client": "wrk", "seconds": seconds, **run_wrk(server.url, tokens, paths, seconds, **kw)}


def _throughput(server: UvicornProcess, tokens: list[str]) -> list[dict[str, Any]]:
    """Reads, then chat submissions (answers not awaited), through wrk when it is installed."""
    question = json.dumps({"question": "What is 2 + 2?"})
    if wrk_available():
        return [
            _phase("read endpoints", tokens, lambda: _wrk_row(server, tokens, READS, SECONDS)),
            _phase(
                "chat submission",
                tokens,
                lambda: _wrk_row(server, tokens, ["/api/v1/chat"], min(SECONDS, 15), method="POST", body=question),
            ),
        ]
    chat = lambda client, i: client.post("/api/v1/chat", json={"question": f"What is 2 + {i}?"})  # noqa: E731
    return [
        _phase("read endpoints", tokens, lambda: _httpx_row(server, tokens, get_cycle(READS), SECONDS)),
        _phase("chat submission", tokens, lambda: _httpx_row(server, tokens, chat, min(SECONDS, 15))),
    ]


def _max_connections() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW max_connections")
        return int(cursor.fetchone()[0])


def _starvation(server: UvicornProcess, tokens: list[str]) -> dict[str, Any]:
    """One client waits up to 30 s for an answer (no worker runs, so it waits it all) while ten
    others read: their latency shows whether the waiting request holds anything they need."""
    import httpx

    waiter = threading.Thread(
        target=lambda: httpx.post(
            f"{server.url}/api/v1/chat",
            json={"question": "What is the repo rate?", "wait": 30},
            headers={"Authorization": f"Bearer {tokens[0]}"},
            timeout=60,
        )
    )
    waiter.start()
    time.sleep(1)
    readers = tokens[1:11]
    row = _phase("reads beside a wait=30 chat request", readers, lambda: _httpx_row(server, readers, get_cycle(ME), 10))
    waiter.join()
    return row


def run() -> list[dict[str, Any]]:
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    tokens = _tokens(CLIENTS)
    calibration = _calibration_seconds()
    workers = os.environ.get("LOAD_WEB_WORKERS", "2")
    env = {**UNLIMITED, "LOG_LEVEL": "WARNING"}
    log = settings.VAR_DIR / "load-web.log"
    server = UvicornProcess(_database_url(), settings.REDIS_URL, log, "--workers", workers, **env)
    try:
        rows = [*_throughput(server, tokens), _starvation(server, tokens)]
    finally:
        server.stop()
        _purge_chat_queue()
    pool = settings.DB_POOL_MAX_SIZE
    for row in rows:
        row["pool per process"] = f"{pool} × {workers}"
        row["max_connections"] = _max_connections()
    return [*rows, {"phase": "machine speed: the calibration loop before the run (lower is faster)",
                    "seconds": calibration}]  # fmt: skip


def _calibration_seconds() -> float:
    """Seconds for a fixed pure-Python loop (one core), best of three: this VM's speed moves
    from day to day and within the hour, so each run records the speed it was measured at."""
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        sum(i * i for i in range(10_000_000))
        best = min(best, time.perf_counter() - began)
    return round(best, 3)


def _purge_chat_queue() -> None:
    """The submitted turns were never meant to run: drop them from the bench broker."""
    from celery import current_app

    current_app.control.purge()
