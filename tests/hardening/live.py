"""The hardening tests' web process and load client are the benchmark's (bench/_load.py), plus
a sampler of the server's PostgreSQL sessions."""

from __future__ import annotations

import time
from typing import Any

from bench._load import UNLIMITED, LoadResult, UvicornProcess, get_cycle
from bench._load import hammer as _hammer

__all__ = ["UNLIMITED", "LoadResult", "UvicornProcess", "connections_named", "hammer", "sample_connections"]


def hammer(base: str, tokens: list[str], paths: list[str], seconds: float, limit: int = 100_000) -> LoadResult:
    return _hammer(base, tokens, get_cycle(paths), seconds, limit)


def connections_named(application_name: str) -> int:
    """Server-side sessions of one application_name (pg_stat_activity), from the test process."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [application_name])
        return int(cursor.fetchone()[0])


def sample_connections(application_name: str, stop: Any, peak: list[int]) -> None:
    """Record the highest connection count until ``stop`` (a threading.Event) is set."""
    from django.db import DatabaseError, connections

    try:
        while not stop.is_set():
            try:
                peak[0] = max(peak[0], connections_named(application_name))
            except DatabaseError:  # a pooled connection broken by an earlier test's server restart
                connections["default"].close()
            time.sleep(0.05)
    finally:
        connections.close_all()
