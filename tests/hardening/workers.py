"""Real Celery worker processes the fault tests start, kill and stop (solo pool, on named queues)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

from django.conf import settings

from tests.conftest import ARTIFACTS, ROOT, test_database_url

_LOGS: list[Any] = []


def start_worker(name: str, queues: str, **env: str) -> subprocess.Popen[bytes]:
    """``celery worker`` against the test database and Redis; ``env`` overrides settings."""
    command = ["worker", "--pool", "solo", "--loglevel", "INFO"]
    command += ["--hostname", f"{name}-{os.getpid()}@%h", "--without-gossip", "--without-mingle", "-Q", queues]
    return _start_celery(name, command, env)


def start_beat(name: str, **env: str) -> subprocess.Popen[bytes]:
    """``celery beat`` with the database scheduler, against the test database and Redis."""
    command = [
        "beat",
        "--loglevel",
        "INFO",
        "--pidfile=",
        "--scheduler",
        "django_celery_beat.schedulers:DatabaseScheduler",
    ]
    return _start_celery(f"beat-{name}", command, env)


def _start_celery(name: str, command: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    full_env = {
        **os.environ,
        "DATABASE_URL": test_database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "PYTHONWARNINGS": "ignore",
        **env,
    }
    ARTIFACTS.mkdir(exist_ok=True)
    log = (ARTIFACTS / f"celery-{name}.log").open("w")
    _LOGS.append(log)  # closed by stop_workers
    argv = [sys.executable, "-m", "celery", "-A", "config", *command]
    return subprocess.Popen(argv, cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT)


def wait_for(condition: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def stop_workers(*procs: subprocess.Popen[bytes] | None) -> None:
    try:
        for proc in procs:
            if proc is None:
                continue
            if proc.poll() is None:
                proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    finally:
        while _LOGS:
            _LOGS.pop().close()
