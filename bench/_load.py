"""Loopback load tools shared by the load benchmark and the hardening tests: a production-like
web process (``uvicorn config.asgi:application`` as in the Procfile) and a small bounded asyncio
client. Traffic only ever goes to 127.0.0.1; every loop stops on a deadline and a request cap."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
UVICORN = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1"]
# Server settings for load and fault runs that measure the server, not the rate limits: with exact
# counters, tokens hammering for seconds pass 300 calls a minute each.
UNLIMITED = {"API_THROTTLE_TOKEN": "1000000/min", "API_THROTTLE_USER": "1000000/min"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class UvicornProcess:
    """``uvicorn config.asgi:application`` on a free loopback port; ``env`` overrides settings."""

    def __init__(self, database_url: str, redis_url: str, log_path: Path, *extra: str, **env: str) -> None:
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
        self.proc = subprocess.Popen(  # noqa: S603  (our own interpreter and arguments)
            [*UVICORN, "--port", str(self.port), "--no-access-log", "--no-proxy-headers", "--no-server-header", *extra],
            cwd=ROOT,
            env=full_env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self._wait_ready()

    def _wait_ready(self, timeout: float = 90) -> None:
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
    seconds: float = 0.0

    @property
    def total(self) -> int:
        return sum(self.statuses.values()) + len(self.errors)

    def failures(self) -> int:
        return sum(n for status, n in self.statuses.items() if status >= 500) + len(self.errors)

    def percentile_ms(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return round(ordered[int(q * (len(ordered) - 1))] * 1000, 1) if ordered else 0.0

    def row(self) -> dict[str, Any]:
        return {
            "requests": self.total,
            "req/s": round(self.total / self.seconds, 1) if self.seconds else 0,
            "p50 ms": self.percentile_ms(0.50),
            "p95 ms": self.percentile_ms(0.95),
            "p99 ms": self.percentile_ms(0.99),
            "errors (5xx, refused)": self.failures(),
            "statuses": " ".join(f"{k}×{v}" for k, v in sorted(self.statuses.items())),
        }


# (client, index) -> an awaitable response: the request one client sends for its i-th call.
Request = Callable[[httpx.AsyncClient, int], Any]


def get_cycle(paths: list[str]) -> Request:
    return lambda client, i: client.get(paths[i % len(paths)])


async def _client_loop(base: str, token: str, request: Request, deadline: float, result: LoadResult, cap: int) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as client:
        i = 0
        while time.monotonic() < deadline and result.total < cap:
            started = time.perf_counter()
            try:
                response = await request(client, i)
                result.statuses[response.status_code] = result.statuses.get(response.status_code, 0) + 1
            except httpx.HTTPError as exc:
                result.errors.append(f"{type(exc).__name__}: {exc}")
            result.latencies.append(time.perf_counter() - started)
            i += 1


def hammer(base: str, tokens: Iterable[str], request: Request, seconds: float, cap: int = 200_000) -> LoadResult:
    """One client per token, looping until ``seconds`` pass or ``cap`` requests are sent in all."""
    if not base.startswith("http://127.0.0.1:"):
        raise ValueError("load only ever goes to the loopback address")
    result = LoadResult()

    async def main() -> None:
        deadline = time.monotonic() + seconds
        started = time.perf_counter()
        await asyncio.gather(*(_client_loop(base, t, request, deadline, result, cap) for t in tokens))
        result.seconds = time.perf_counter() - started

    # In a thread of its own: a caller may already run an event loop (Playwright's, in the tests).
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, main()).result()
    return result
