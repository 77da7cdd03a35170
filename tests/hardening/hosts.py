"""Two "hosts" on this machine for the scale-out test: each a web process (uvicorn) and a Celery
worker (all four queues) with its own ALPHADESK_VAR_DIR — its own BM25 index, no media, no
shared file of any kind. They share only Postgres, Redis and the S3 bucket (tests/s3server.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from django.conf import settings

from tests.conftest import ARTIFACTS, ROOT, test_database_url
from tests.hardening.live import UvicornProcess
from tests.hardening.workers import start_worker

# The hosts' broker: a Redis database of its own, so a worker another test file left running in
# this session (on database 0) cannot take their tasks; the queues and routing are the product's.
BROKER_DB = 7
SECRET = "two-hosts-share-one-secret-key-as-a-deployment-does"


def broker_url() -> str:
    from config.settings import celery_url, redis_db_url

    return celery_url(redis_db_url(settings.REDIS_URL, BROKER_DB))


class Host:
    def __init__(self, name: str, var: Path, storage_url: str) -> None:
        self.name = name
        self.var = var
        var.mkdir(parents=True, exist_ok=True)
        self.env = {
            "ALPHADESK_VAR_DIR": str(var),
            "STORAGE_URL": storage_url,
            "CELERY_BROKER_URL": broker_url(),
            "DJANGO_SECRET_KEY": SECRET,
            "RESEARCH_EMBED_CACHE_DIR": "",  # no cache shared between hosts either: the model runs
            "HEALTH_CELERY_CACHE_SECONDS": "0",
        }
        url = f"{test_database_url()}&application_name=host-{name}"
        self.web = UvicornProcess(url, settings.REDIS_URL, ARTIFACTS / f"uvicorn-host-{name}.log", **self.env)
        self.worker: subprocess.Popen[bytes] | None = None

    @property
    def worker_log(self) -> Path:
        return ARTIFACTS / f"celery-host-{self.name}.log"

    def start_worker(self) -> None:
        self.worker = start_worker(f"host-{self.name}", ",".join(settings.CELERY_QUEUE_NAMES), **self.env)

    def kill_worker(self) -> None:
        assert self.worker is not None
        self.worker.send_signal(signal.SIGKILL)
        self.worker.wait(timeout=10)

    def stop_worker(self) -> None:
        if self.worker is not None and self.worker.poll() is None:
            self.worker.terminate()
            self.worker.wait(timeout=60)

    def api(self, method: str, path: str, token: str, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"}
        return httpx.request(method, f"{self.web.url}{path}", headers=headers, timeout=60, **kwargs)

    def manage(self, code: str, **env: str) -> str:
        """``manage.py shell -c code`` as this host (what its beat would run)."""
        full = {**os.environ, "DATABASE_URL": test_database_url(), "REDIS_URL": settings.REDIS_URL, **self.env, **env}
        done = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=full, capture_output=True, timeout=120
        )
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        return done.stdout.decode()

    def stop(self) -> None:
        try:
            self.stop_worker()
        finally:
            self.web.stop()
