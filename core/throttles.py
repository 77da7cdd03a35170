"""DRF throttles: per user, per API token, and per address for anonymous calls.

Rates live in settings (``API_THROTTLE_RATES``) and are read on every request, so an operator's
change (or a test's) takes effect without a restart. Counters live in the shared cache (Redis),
so every web process counts against the same limit. A refused request gets 429 with
``Retry-After``."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

from core.models import ApiToken

logger = logging.getLogger(__name__)


class _SettingsRateThrottle(SimpleRateThrottle):
    def get_rate(self) -> str | None:
        return settings.API_THROTTLE_RATES.get(self.scope or "")

    def allow_request(self, request: Any, view: Any) -> bool:
        # The rate is resolved per request (settings may change); SimpleRateThrottle reads it once.
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        try:
            return super().allow_request(request, view)
        except Exception:  # the counters' cache (Redis) is down: serve rather than fail every call
            logger.warning("rate limiter unavailable; request allowed", exc_info=True)
            return True


class UserRateThrottle(_SettingsRateThrottle):
    """Every authenticated user, however they authenticate (session or any of their tokens)."""

    scope = "user"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if not request.user or not request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class TokenRateThrottle(_SettingsRateThrottle):
    """Each API token on its own (a script's token cannot starve its owner's other clients)."""

    scope = "token"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if not isinstance(request.auth, ApiToken):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.auth.pk}


class AnonRateThrottle(_SettingsRateThrottle):
    """Unauthenticated calls, per client address (the one ClientIpMiddleware trusts)."""

    scope = "anon"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.META.get("REMOTE_ADDR", "")}
