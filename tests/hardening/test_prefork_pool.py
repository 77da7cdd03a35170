"""The connection pool in Celery's prefork worker (as `make demo` and the Procfile run it): each
child opens its own pool after the fork, tasks complete, and the worker's PostgreSQL sessions stay
within children × DB_POOL_MAX_SIZE.

Celery (5.5 on) closes a prefork child's pool after every task, so the worker holds sessions only
while tasks run. The probes therefore hold their session for a moment: sampled while they run, both
children's sessions are seen. (Tasks that only updated a row finished between samples on a loaded
machine, and the count read 0.)"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
from django.conf import settings

from core.models import WorkerProbe
from core.tasks import worker_probe_complete
from tests.conftest import ARTIFACTS, ROOT, test_database_url
from tests.hardening.live import connections_named, sample_connections

QUEUE = "adk-prefork-test"
APP = "adk-prefork"
PROBES, HOLD_SECONDS = 12, 0.4  # 12 × 0.4 s over 2 children: about 2.4 s with both sessions busy


@pytest.mark.worker
@pytest.mark.timeout(180)
def test_prefork_children_each_use_their_own_bounded_pool(transactional_db: Any) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": f"{test_database_url()}&application_name={APP}",
        "REDIS_URL": settings.REDIS_URL,
        "PYTHONWARNINGS": "ignore",
        "DB_POOL_MAX_SIZE": "2",
    }
    ARTIFACTS.mkdir(exist_ok=True)
    with (ARTIFACTS / "celery-prefork.log").open("w") as log:
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--concurrency",
                "2",
                "--loglevel",
                "INFO",
                "--hostname",
                f"prefork-{os.getpid()}@%h",
                "--without-gossip",
                "--without-mingle",
                "-Q",
                QUEUE,
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        stop, peak = threading.Event(), [0]
        sampler = threading.Thread(target=sample_connections, args=(APP, stop, peak))
        sampler.start()
        try:
            probes = [WorkerProbe.objects.create() for _ in range(PROBES)]
            for probe in probes:
                worker_probe_complete.apply_async((probe.pk, HOLD_SECONDS), queue=QUEUE)
            deadline = time.monotonic() + 90
            pending = WorkerProbe.objects.filter(pk__in=[p.pk for p in probes], completed_at__isnull=True)
            while pending.exists() and time.monotonic() < deadline:
                peak[0] = max(peak[0], connections_named(APP))  # this thread samples too: load cannot starve both
                time.sleep(0.1)
            assert not pending.exists(), f"{pending.count()} of {PROBES} probes never completed"
        finally:
            stop.set()
            sampler.join()
            worker.terminate()
            worker.wait(timeout=60)
    # Both children held a session at once (each its own pool), and never more than their pools allow.
    assert 2 <= peak[0] <= 2 * 2, f"{peak[0]} sessions for 2 children with pools of 2"
