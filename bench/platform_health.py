"""Foundation: latency of the health endpoint's component checks and of a token-authenticated
API request, in-process, warm (median and p95 over repeated runs)."""

from __future__ import annotations

import time
from typing import Any

from bench._common import median_p95_columns


def run() -> list[dict[str, Any]]:
    from django.core.management import call_command
    from django.test import Client

    from core.health import check_database, check_redis
    from core.models import ApiToken
    from core.services import api_token_create, user_ensure

    call_command("migrate", verbosity=0)
    rows = []
    for name, check in (("health: database check", check_database), ("health: redis check", check_redis)):
        samples = []
        for _ in range(200):
            started = time.perf_counter()
            check()
            samples.append((time.perf_counter() - started) * 1000)
        rows.append({"what": name, "n": len(samples), **median_p95_columns(samples)})

    user, _ = user_ensure(email="bench@alphadesk.local", roles=["analyst"], password=None)
    # A user holds at most API_TOKEN_MAX_ACTIVE_PER_USER tokens: each run starts the bench user clean.
    ApiToken.objects.filter(user=user).delete()
    _, raw = api_token_create(user=user, name="bench")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {raw}", HTTP_HOST="localhost")
    client.get("/api/v1/me")
    samples = []
    for _ in range(200):
        started = time.perf_counter()
        assert client.get("/api/v1/me").status_code == 200
        samples.append((time.perf_counter() - started) * 1000)
    rows.append({"what": "GET /api/v1/me with a bearer token", "n": len(samples), **median_p95_columns(samples)})
    return rows
