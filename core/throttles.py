"""DRF throttle: per user, per API token, and per address for anonymous calls — one Redis call.

Rates live in settings (``API_THROTTLE_RATES``: ``user``, ``token``, ``anon``) and are read on
every request, so an operator's change (or a test's) takes effect without a restart. Counters are
sliding windows kept in the shared Redis, so every web process counts against the same limit.

A call counts against every limit that applies to it (a token's call against the token's and its
owner's), each on its own: a call one limit refuses still counts against the others, as DRF's
own throttles do when several are listed. All of it is one Lua script — one round trip, atomic
across processes. (DRF's stock throttles read and rewrite a pickled list per limit: four round
trips per call for a token, and two processes can both read the same count.) A refused request
gets 429 with ``Retry-After``: the seconds until the oldest call in the window leaves it."""

from __future__ import annotations

import logging
import math
import secrets
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache
from rest_framework.throttling import BaseThrottle

from core.models import ApiToken

logger = logging.getLogger(__name__)

# KEYS: one sorted set per limit (member = one call, score = its time in ms).
# ARGV: now (ms), this call's member, then (limit, window ms) per key.
# Returns, per key: 0 when the call was counted, else the ms until a slot frees.
_SLIDING_WINDOWS = """
local now = tonumber(ARGV[1])
local waits = {}
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[1 + 2 * i])
  local window = tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  if redis.call('ZCARD', key) < limit then
    redis.call('ZADD', key, now, ARGV[2])
    redis.call('PEXPIRE', key, window)
    waits[i] = 0
  else
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    waits[i] = math.max(1, tonumber(oldest[2]) + window - now)
  end
end
return waits
"""
_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    """``"300/min"`` → (300 calls, 60 s) — DRF's syntax: the period's first letter counts."""
    count, period = rate.split("/")
    return int(count), _PERIODS[period[0]]


class ApiRateThrottle(BaseThrottle):
    """Every API call: per user (session or any of their tokens), per token, or per address when
    anonymous (the address ClientIpMiddleware trusts)."""

    def __init__(self) -> None:
        self.wait_seconds: float | None = None

    def allow_request(self, request: Any, view: Any) -> bool:
        limits = self._limits(request)
        if not limits:
            return True
        now_ms = int(time.time() * 1000)
        args: list[Any] = [now_ms, secrets.token_hex(8)]
        for _, count, seconds in limits:
            args += [count, seconds * 1000]
        try:
            waits = _script()(keys=[key for key, _, _ in limits], args=args)
        except Exception:  # the counters' store (Redis) is down: serve rather than fail every call
            logger.warning("rate limiter unavailable; request allowed", exc_info=True)
            return True
        refused = [int(ms) for ms in waits if int(ms) > 0]
        if not refused:
            return True
        self.wait_seconds = max(refused) / 1000
        return False

    def wait(self) -> float | None:
        return None if self.wait_seconds is None else float(math.ceil(self.wait_seconds))

    def _limits(self, request: Any) -> list[tuple[str, int, int]]:
        """(counter key, calls, seconds) for each limit this call counts against."""
        rates = settings.API_THROTTLE_RATES
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            idents = [("user", user.pk)]
            if isinstance(request.auth, ApiToken):
                idents.append(("token", request.auth.pk))
        else:
            idents = [("anon", request.META.get("REMOTE_ADDR", ""))]
        limits = []
        for scope, ident in idents:
            if rates.get(scope):
                count, seconds = parse_rate(rates[scope])
                limits.append((cache.make_key(f"throttle:{scope}:{ident}"), count, seconds))
        return limits


_registered: dict[int, Any] = {}


def _script() -> Any:
    """The Lua script, registered once per Redis connection pool (one per process and URL:
    core/cache.py) on the cache's own Redis."""
    pool = cache._cache._get_connection_pool(True)  # type: ignore[attr-defined]
    script = _registered.get(id(pool))
    if script is None:
        script = _registered[id(pool)] = cache._cache.get_client(write=True).register_script(_SLIDING_WINDOWS)  # type: ignore[attr-defined]
    return script
