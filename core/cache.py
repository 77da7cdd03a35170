"""One Redis connection pool per process for Django's cache (rate-limit counters, cached pings).

Django keeps a cache object per thread, and each builds its own connection pool. Under ASGI every
request runs in a thread of its own, so every request opened a new TCP connection to Redis (and
said HELLO) before its first rate-limit check: measured as the largest single cost of an API read
under load. redis-py's pools are thread-safe and reset themselves after a fork, so one pool per
process and URL serves every thread."""

from __future__ import annotations

import threading
from typing import Any, ClassVar

import redis

_LOCK = threading.Lock()


class SharedConnectionPool(redis.ConnectionPool):
    """``pool_class`` for the cache: ``from_url`` hands every caller the same pool per settings."""

    _shared: ClassVar[dict[tuple[str, str], redis.ConnectionPool]] = {}

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> redis.ConnectionPool:  # type: ignore[override]
        key = (url, repr(sorted(kwargs.items(), key=lambda item: item[0])))
        with _LOCK:
            pool = cls._shared.get(key)
            if pool is None:
                pool = cls._shared[key] = redis.ConnectionPool.from_url(url, **kwargs)
            return pool
