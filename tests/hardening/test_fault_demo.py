"""Faults under `make demo`: each process and embedded server killed with SIGKILL comes back by
itself, and Ctrl-C lets a running task finish before everything stops.

The real thing: ``manage.py demo --no-demo-data`` (migrations and demo users, no demo data) with
its own ``ALPHADESK_VAR_DIR`` — its own embedded PostgreSQL and Redis — on a free port; the test
kills what ``var/demo/pids.json`` names. Recovery is counted from the kill until the process has
a new pid and ``/api/v1/health`` answers 200 "ok" (database, Redis and a Celery worker up); the
figures are printed and kept in test-artifacts/demo-recovery.json (docs/operations.md)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from tests.conftest import ARTIFACTS, ROOT

GRACE = 20  # DEMO_SHUTDOWN_GRACE_SECONDS for this demo; the default is 60
RECOVERY_LIMIT = 30
# Inherited settings that would point the demo at the test session's servers.
NOT_INHERITED = {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "ALPHADESK_SKIP_EMBEDDED"}


@dataclass
class Demo:
    proc: subprocess.Popen[bytes]
    var: Path
    url: str
    log: Path

    def pids(self) -> dict[str, int | None]:
        try:
            return dict(json.loads((self.var / "demo" / "pids.json").read_text()))
        except (OSError, ValueError):
            return {}

    def health(self) -> tuple[int, dict[str, Any]]:
        try:
            response = httpx.get(f"{self.url}/api/v1/health", timeout=10)
        except httpx.HTTPError as exc:
            return 0, {"error": str(exc)}
        return response.status_code, response.json()

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def postgres(self) -> Any:
        import psycopg

        socket_dir = (self.var / "pgdata" / "postmaster.pid").read_text().splitlines()[4]
        return psycopg.connect(dbname="alphadesk", user="postgres", host=socket_dir, autocommit=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _alive(pid: int | None) -> bool:
    try:
        return pid is not None and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _left_behind(var: Path) -> list[int]:
    """Live processes of this demo's servers: the data directory in their command line (postmaster,
    Redis) or as their working directory (PostgreSQL's backends)."""
    left = []
    for p in psutil.process_iter(["cmdline", "cwd", "status"]):
        if p.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        if str(var) in " ".join(p.info["cmdline"] or []) or str(p.info["cwd"] or "").startswith(str(var)):
            left.append(p.pid)
    return left


def _wait(condition: Any, seconds: float, what: str, demo: Demo) -> float:
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > seconds:
            raise AssertionError(f"timed out after {seconds} s waiting for {what}\n{demo.output()[-4000:]}")
        time.sleep(0.25)
    return time.monotonic() - started


@pytest.fixture(scope="module")
def demo() -> Iterator[Demo]:
    var = Path(tempfile.mkdtemp(prefix="adk-demo-", dir="/tmp"))  # unix socket paths must stay short
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in NOT_INHERITED}
    env.update(
        ALPHADESK_VAR_DIR=str(var),
        EMBEDDED_PG_SHARED_BUFFERS="32MB",
        CELERY_CONCURRENCY="1",
        DEMO_SHUTDOWN_GRACE_SECONDS=str(GRACE),
        HEALTH_CELERY_CACHE_SECONDS="0",  # each health call asks the workers now, not 5 s ago
        DEMO_PASSWORD="demo-password-not-used-here",
        PYTHONWARNINGS="ignore",
    )
    ARTIFACTS.mkdir(exist_ok=True)
    log = ARTIFACTS / "demo-supervisor.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "manage.py", "demo", "--no-demo-data", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # as in a terminal of its own: its group is what Ctrl-C reaches
        )
    running = Demo(proc, var, f"http://127.0.0.1:{port}", log)
    try:
        _wait(lambda: running.health()[0] == 200, 120, "the demo to serve with every component up", running)
        yield running
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=GRACE + 30)
            except subprocess.TimeoutExpired:
                proc.kill()
        for pid in _left_behind(var):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(var, ignore_errors=True)


@pytest.mark.worker
@pytest.mark.timeout(150)
def test_each_process_and_server_killed_comes_back_by_itself(demo: Demo) -> None:
    recovery: dict[str, float] = {}
    for name in ("beat", "worker", "redis", "postgres"):
        before = demo.pids()[name]
        assert _alive(before), (name, before)
        pool = [c.pid for c in psutil.Process(before).children()] if name == "worker" else []
        os.kill(before, signal.SIGKILL)  # type: ignore[arg-type]
        killed = time.monotonic()

        def back(name: str = name, before: int | None = before) -> bool:
            now = demo.pids().get(name)
            if now in (None, before) or not _alive(now):
                return False
            status, body = demo.health()
            return status == 200 and body["status"] == "ok"

        _wait(back, RECOVERY_LIMIT, f"{name} to come back", demo)
        recovery[name] = round(time.monotonic() - killed, 1)
        if name in ("beat", "worker"):
            assert f"{name} exited with code -9 after" in demo.output()  # the supervisor saw the kill
            assert name in " ".join(psutil.Process(demo.pids()[name]).cmdline())
        else:
            assert f"{name} restarted (pid {demo.pids()[name]})" in demo.output()
        # The killed worker's pool child went with it: two workers never share the queue.
        assert not [pid for pid in pool if _alive(pid)], pool

    _, body = demo.health()
    assert {k: v["status"] for k, v in body["components"].items()} == {"database": "up", "redis": "up", "celery": "up"}
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "demo-recovery.json").write_text(json.dumps(recovery, indent=1) + "\n")
    print("recovery seconds (kill -9 → new pid and /api/v1/health ok):", recovery)
    assert all(seconds < RECOVERY_LIMIT for seconds in recovery.values())


def _send_probe(demo: Demo, hold_seconds: float) -> int:
    from celery import Celery

    with demo.postgres() as conn:
        probe_id = conn.execute(
            "INSERT INTO core_workerprobe (created_at, worker) VALUES (now(), '') RETURNING id"
        ).fetchone()[0]
    # Not the current app: a current one would stay this process's default (the demo's broker) for
    # every later test of the session.
    broker = Celery("probe", broker=f"redis+socket://{demo.var}/redis/redis.sock?db=0", set_as_current=False)
    try:
        # On the default queue by name: this bare app knows nothing of the project's routing.
        broker.send_task("core.tasks.worker_probe_complete", args=[probe_id, hold_seconds], queue="default")
    finally:
        broker.close()
    return int(probe_id)


@pytest.mark.worker
@pytest.mark.timeout(120)
def test_ctrl_c_lets_the_running_task_finish_then_stops_every_process(
    demo: Demo, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe_id = _send_probe(demo, hold_seconds=4)

    def task_running() -> bool:
        with demo.postgres() as conn:
            row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%%'").fetchone()
        return bool(row[0])

    _wait(task_running, 20, "the worker to start the probe task", demo)
    pids = demo.pids()
    everything = {p for p in pids.values() if p}
    for name in ("worker", "postgres"):
        everything |= {c.pid for c in psutil.Process(pids[name]).children(recursive=True)}

    stopping = time.monotonic()
    os.killpg(demo.proc.pid, signal.SIGINT)  # Ctrl-C in the demo's terminal
    demo.proc.wait(timeout=GRACE + 15)
    took = time.monotonic() - stopping

    out = demo.output()
    assert "worker stopped (exit code 0)" in out, out[-3000:]  # a warm shutdown, not a kill
    assert "still running: killing it" not in out, out[-3000:]
    assert took < GRACE, took
    print(f"Ctrl-C to every process stopped: {took:.1f} s (the running task held its session 4 s)")
    assert not [pid for pid in everything if _alive(pid)], everything
    assert not _left_behind(demo.var)

    # The probe's row, read from the demo's data directory with its server started again here.
    from config import embedded

    monkeypatch.setenv("EMBEDDED_PG_SHARED_BUFFERS", "32MB")
    server = embedded.postgres_server(demo.var)
    try:
        with demo.postgres() as conn:
            row = conn.execute("SELECT completed_at, worker FROM core_workerprobe WHERE id = %s", [probe_id]).fetchone()
    finally:
        server.cleanup()
    assert row[0] is not None and row[1], row  # completed, by the worker's process
