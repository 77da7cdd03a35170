"""A production-like web process for the hardening tests: ``uvicorn config.asgi:application`` in
its own process (as in the Procfile) against the test database, and a small asyncio load client."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
UVICORN = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class UvicornProcess:
    """``uvicorn config.asgi:application`` on a free loopback port; ``env`` overrides settings."""

    def __init__(self, database_url: str, redis_url: str, log_path: Path, **env: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.log = log_path.open("w")
        full_env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "PYTHONWARNINGS": "ignore",
            **env,
        }
        full_env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # the server must run as it does in production
        self.proc = subprocess.Popen(
            [*UVICORN, "--port", str(self.port), "--no-access-log", "--no-proxy-headers"],
            cwd=ROOT,
            env=full_env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self._wait_ready()

    def _wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"uvicorn exited early:\n{self.log_path.read_text()[-3000:]}")
            try:
                if httpx.get(f"{self.url}/api/v1/health/live", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"uvicorn not ready:\n{self.log_path.read_text()[-3000:]}")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


@dataclass
class LoadResult:
    statuses: dict[int, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.statuses.values()) + len(self.errors)

    def failures(self) -> int:
        return sum(n for status, n in self.statuses.items() if status >= 500) + len(self.errors)


async def _client_loop(
    base: str, headers: dict[str, str], paths: list[str], deadline: float, result: LoadResult, limit: int
) -> None:
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as client:
        i = 0
        while time.monotonic() < deadline and result.total < limit:
            started = time.perf_counter()
            try:
                response = await client.get(paths[i % len(paths)])
                result.statuses[response.status_code] = result.statuses.get(response.status_code, 0) + 1
            except httpx.HTTPError as exc:
                result.errors.append(f"{type(exc).__name__}: {exc}")
            result.latencies.append(time.perf_counter() - started)
            i += 1


def hammer(base: str, tokens: Iterable[str], paths: list[str], seconds: float, limit: int = 100_000) -> LoadResult:
    """One client per token, each sending GETs over ``paths`` in a loop until ``seconds`` pass
    (bounded by ``limit`` requests in all). Loopback only."""
    assert base.startswith("http://127.0.0.1:"), "load only ever goes to the loopback address"
    result = LoadResult()

    async def main() -> None:
        deadline = time.monotonic() + seconds
        await asyncio.gather(
            *(_client_loop(base, {"Authorization": f"Bearer {t}"}, paths, deadline, result, limit) for t in tokens)
        )

    asyncio.run(main())
    return result


def connections_named(application_name: str) -> int:
    """Server-side sessions of one application_name (pg_stat_activity), from the test process."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [application_name])
        return int(cursor.fetchone()[0])


def sample_connections(application_name: str, stop: Any, peak: list[int]) -> None:
    """Record the highest connection count until ``stop`` (a threading.Event) is set."""
    from django.db import connections

    try:
        while not stop.is_set():
            peak[0] = max(peak[0], connections_named(application_name))
            time.sleep(0.05)
    finally:
        connections.close_all()
