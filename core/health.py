"""Component checks behind ``GET /api/v1/health`` (readiness) — each short, none raises.

``GET /api/v1/health/live`` (liveness) touches no dependency: the process answers, that is all."""

from __future__ import annotations

import threading
import time
from typing import Any

import redis
from django.conf import settings
from django.db import connection
from redis.backoff import NoBackoff
from redis.retry import Retry

from core.tasks import publish_transport_options


def llm_mode() -> str:
    if settings.ANTHROPIC_API_KEY:
        return "anthropic"
    if settings.GOOGLE_API_KEY:
        return "gemini"
    return "deterministic"


def _timed(check: Any) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        result = check()
        result.setdefault("status", "up")
    except Exception as exc:  # a health check reports failures; it must not raise them
        result = {"status": "down", "error": f"{type(exc).__name__}: {exc}"[:300]}
    result["latency_ms"] = round((time.perf_counter() - started) * 1000, 1)
    return result


# Keys of Django's connection parameters that only Django's own wrapper understands.
_DJANGO_ONLY_PARAMS = {"cursor_factory", "context", "prepare_threshold"}


def check_database(using: Any = None) -> dict[str, Any]:
    """A new session, never a pooled one: a server in shutdown keeps serving the sessions it has
    while refusing new ones, and the workers (whose sessions are new) are what fails then."""
    import psycopg

    wrapper = using or connection
    params = {k: v for k, v in wrapper.get_connection_params().items() if k not in _DJANGO_ONLY_PARAMS}
    params["connect_timeout"] = settings.HEALTH_DATABASE_TIMEOUT_SECONDS
    params["options"] = f"-c statement_timeout={int(settings.HEALTH_DATABASE_TIMEOUT_SECONDS * 1000)}"
    with psycopg.connect(**params, autocommit=True) as session:
        server_version = session.execute("SELECT current_setting('server_version')").fetchone()[0]  # type: ignore[index]
        row = session.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    result: dict[str, Any] = {"postgres": server_version, "pgvector": row[0] if row else None}
    if row is None:
        result.update(status="down", error="the vector extension is not installed (run migrations)")
    return result


def check_redis() -> dict[str, Any]:
    # No retries: redis-py's default backoff held each check ~3 s while Redis was down.
    client = redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1, retry=Retry(NoBackoff(), 0)
    )
    try:
        client.ping()
        return {"version": client.info("server").get("redis_version")}
    finally:
        client.close()


def _ping_celery() -> dict[str, Any]:
    # The project's Celery app (config/celery.py) makes itself the default app when Django starts
    # (Celery's Django fix-up), so current_app is it in every thread, without core importing config.
    from celery import current_app

    # A connection of its own, like a publish (core.tasks): a pooled one left over from before a
    # broker restart fails its first use, and the check would report a healthy queue as down.
    with current_app.connection_for_write(transport_options=publish_transport_options()) as broker:
        replies = current_app.control.ping(timeout=settings.HEALTH_CELERY_PING_TIMEOUT, connection=broker) or []
    workers = sorted(name for reply in replies for name in reply)
    if not workers:
        return {"status": "down", "workers": [], "error": "no Celery worker answered the ping"}
    return {"workers": workers}


# A real ping waits up to HEALTH_CELERY_PING_TIMEOUT for replies. Uncached, a load balancer
# polling the readiness check (or anyone hammering it) tied up the server at ~8 requests/s. The
# answer is kept per process for HEALTH_CELERY_CACHE_SECONDS, and only one thread pings at a time:
# the others wait for its answer instead of sending their own.
_celery_lock = threading.Lock()
_celery_cached: tuple[float, dict[str, Any]] | None = None


def check_celery() -> dict[str, Any]:
    global _celery_cached
    ttl = settings.HEALTH_CELERY_CACHE_SECONDS
    with _celery_lock:
        now = time.monotonic()
        if _celery_cached is not None and now - _celery_cached[0] < ttl:
            return {**_celery_cached[1], "cached_for_s": round(now - _celery_cached[0], 1)}
        result = _ping_celery()
        _celery_cached = (time.monotonic(), result)
        return dict(result)


def celery_cache_clear() -> None:
    """Forget the cached ping (tests, and after a deploy that changes the workers)."""
    global _celery_cached
    with _celery_lock:
        _celery_cached = None


def health_report() -> tuple[bool, dict[str, Any]]:
    """``(healthy, report)``; Celery is only pinged when its broker (Redis) is up."""
    components = {"database": _timed(check_database), "redis": _timed(check_redis)}
    if components["redis"]["status"] == "up":
        components["celery"] = _timed(check_celery)
    else:
        components["celery"] = {"status": "down", "error": "broker (Redis) is down"}
    healthy = all(c["status"] == "up" for c in components.values())
    return healthy, {
        "status": "ok" if healthy else "degraded",
        "components": components,
        "llm_mode": llm_mode(),
        "market_data": settings.MARKET_DATA_PROVIDER,
    }
