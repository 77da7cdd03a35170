"""Finding 0: concurrent API clients exhausted PostgreSQL (one persistent connection per ASGI
worker thread); the health check waited on a real Celery ping every time.

Reproduced against a real uvicorn process, as in the Procfile: concurrent bearer-token clients
for a few seconds. With the pool, every request succeeds and the server never holds more
connections than the pool's size; without it (the old persistent connections) it holds more."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

from tests.hardening.live import UNLIMITED, hammer, sample_connections

CLIENTS = 16
SECONDS = 3.0
POOL = 4


def _run(server: Any, tokens: list[str], name: str) -> tuple[Any, int]:
    stop, peak = threading.Event(), [0]
    sampler = threading.Thread(target=sample_connections, args=(name, stop, peak))
    sampler.start()
    try:
        result = hammer(server.url, tokens, ["/api/v1/me", "/api/v1/portfolios"], SECONDS)
    finally:
        stop.set()
        sampler.join()
    return result, peak[0]


def test_concurrent_clients_stay_within_the_pool(
    uvicorn_factory: Callable[..., Any], api_tokens: Callable[..., list[str]]
) -> None:
    tokens = api_tokens(CLIENTS)
    server = uvicorn_factory("adk-pool", DB_POOL_MAX_SIZE=str(POOL), DB_POOL_MIN_SIZE="1", **UNLIMITED)
    result, peak = _run(server, tokens, "adk-pool")
    # Enough traffic that every client had requests in flight together (a count, not a throughput:
    # a slow shared CI machine served 95 requests in the 3 s where a quiet one serves hundreds).
    assert result.total >= 3 * CLIENTS, result.statuses
    assert result.failures() == 0, (result.statuses, result.errors[:3])
    assert set(result.statuses) == {200}, result.statuses
    assert 1 <= peak <= POOL, f"{peak} connections held with a pool of {POOL}"


def test_without_the_pool_connections_pile_up_per_thread(
    uvicorn_factory: Callable[..., Any], api_tokens: Callable[..., list[str]]
) -> None:
    """The control: the old setting (persistent per-thread connections) is what the pool fixes."""
    tokens = api_tokens(CLIENTS)
    server = uvicorn_factory("adk-nopool", DB_POOL="false", DB_CONN_MAX_AGE="60")
    _, peak = _run(server, tokens, "adk-nopool")
    assert peak > POOL, f"expected the unpooled server to hold more than {POOL} connections, saw {peak}"


def test_liveness_touches_nothing_and_readiness_caches_the_celery_ping(
    uvicorn_factory: Callable[..., Any],
) -> None:
    # The server's broker is in-process (kombu's memory transport), so no worker can answer — not
    # even one another test left serving the real broker: an uncached readiness check would wait
    # the whole ping timeout (1 s) on every call.
    server = uvicorn_factory(
        "adk-health",
        CELERY_BROKER_URL="memory://",
        HEALTH_CELERY_PING_TIMEOUT="1.0",
        HEALTH_CELERY_CACHE_SECONDS="30",
    )
    with httpx.Client(base_url=server.url, timeout=10) as client:
        live = client.get("/api/v1/health/live")
        assert live.status_code == 200 and live.json() == {"status": "ok"}
        first = client.get("/api/v1/health")
        assert first.status_code == 503
        assert first.json()["components"]["celery"]["error"] == "no Celery worker answered the ping"
        started = time.perf_counter()
        later = [client.get("/api/v1/health") for _ in range(20)]
        elapsed = time.perf_counter() - started
    assert all(r.status_code == 503 for r in later)
    assert all("cached_for_s" in r.json()["components"]["celery"] for r in later)
    assert elapsed < 5.0, f"20 readiness checks took {elapsed:.1f} s: the ping is not cached"
