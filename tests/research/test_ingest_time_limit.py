"""Issue 49, finding 6: ingestion had no Celery time limit. A real prefork worker (time limits
need one; the shared test worker is solo) with a soft limit of 2 s: a document that takes longer
fails with a reason that says what to do, keeps no passage, the worker child lives on, and the
next document on the same queue is ingested."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from typing import Any

import pytest
from django.core.files.base import ContentFile

from tests.conftest import ARTIFACTS, ROOT, test_database_url

QUEUE = "ingest-limit-test"


def _document(owner: Any, name: str, text: str) -> Any:
    from research.models import Document

    data = text.encode()
    return Document.objects.create(
        owner=owner,
        title=name,
        kind="txt",
        filename=name,
        file=ContentFile(data, name=name),
        size_bytes=len(data),
        content_hash=os.urandom(32).hex(),
    )


def _wait(document: Any, seconds: float) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        document.refresh_from_db()
        if document.status in {"done", "failed"}:
            return document
        time.sleep(0.5)
    return document


@pytest.mark.worker
def test_a_document_over_its_time_limit_fails_cleanly(transactional_db: Any, analyst: Any) -> None:
    from django.conf import settings

    from research.tasks import ingest_document, time_limit_message

    rng = random.Random(49)
    words = [f"w{rng.randrange(10**6)}" for _ in range(5000)]
    big = _document(analyst, "big.txt", "\n\n".join(" ".join(rng.choices(words, k=120)) for _ in range(400)))
    small = _document(analyst, "small.txt", "The repo rate was left unchanged at 6.5 per cent.")
    env = {
        **os.environ,
        "DATABASE_URL": test_database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "PYTHONWARNINGS": "ignore",
        "INGEST_SOFT_TIME_LIMIT_SECONDS": "2",
        "INGEST_TIME_LIMIT_SECONDS": "60",
    }
    ARTIFACTS.mkdir(exist_ok=True)
    log = (ARTIFACTS / "celery-ingest-limit.log").open("w")
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "prefork", "--concurrency", "1",
         "-Q", QUEUE, "--hostname", f"limit-{os.getpid()}@%h", "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        # The sender's limits travel in the message (Celery's timelimit header), so the test's
        # sends name the worker's; in production the web and the worker read the same settings.
        limits = {"soft_time_limit": 2, "time_limit": 60}
        ingest_document.apply_async(args=[big.pk], queue=QUEUE, **limits)
        ingest_document.apply_async(args=[small.pk], queue=QUEUE, **limits)
        big = _wait(big, 120)
        small = _wait(small, 120)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        log.close()
    assert big.status == "failed", (big.status, big.status_message)
    assert big.error == time_limit_message(2)
    assert big.status_message == f"Failed: {time_limit_message(2)}"[:200]
    assert "Split it into smaller files" in big.error
    assert big.chunks.count() == 0
    assert small.status == "done", (small.status, small.error)
    assert small.chunks.count() == 1
