"""Session fixtures: real embedded Postgres+pgvector and Redis (started by settings under
var/test), users per role, a real Celery worker process and a real Chromium."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Environment for the whole run: tests/pytest_env.py (loaded before Django's settings).
ARTIFACTS = ROOT / "test-artifacts"
TEST_PASSWORD = "correct-horse-battery-staple-42"


# The test tiers (``make check`` runs lint and the tests that carry none of these marks): a test is
# marked by the fixtures it uses, so a new test lands in the right tier without remembering to mark it.
TIER_FIXTURES = {
    "browser": {"browser", "page", "live_server"},
    "worker": {"celery_worker", "celery_worker_process", "uvicorn_factory", "asgi_server"},
    "corpus": {"corpus", "mpc_corpus", "demo_library", "apple_10q", "filings_library", "evaluate"},
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for mark, fixtures in TIER_FIXTURES.items():
            if used & fixtures:
                item.add_marker(mark)


@pytest.fixture(scope="session", autouse=True)
def _clean_redis() -> None:
    """Stale broker messages or rate-limit counters from an earlier run must not leak in."""
    import redis
    from django.conf import settings

    client = redis.Redis.from_url(settings.REDIS_URL)
    client.flushall()
    client.close()


@pytest.fixture
def make_user(db: Any) -> Any:
    from core.services import user_ensure

    counter = iter(range(1, 10_000))

    def make(*roles: str, email: str | None = None, admin: bool = False) -> Any:
        email = email or f"{'-'.join(roles) or 'norole'}{next(counter)}@example.test"
        user, _ = user_ensure(email=email, roles=list(roles), password=TEST_PASSWORD, staff=admin)
        return user

    return make


@pytest.fixture
def analyst(make_user: Any) -> Any:
    return make_user("analyst", email="analyst@example.test")


@pytest.fixture
def reviewer(make_user: Any) -> Any:
    return make_user("reviewer", email="reviewer@example.test")


@pytest.fixture
def admin_user(make_user: Any) -> Any:
    return make_user("admin", "analyst", "reviewer", email="admin@example.test", admin=True)


def test_database_url() -> str:
    """The URL of the test database on the embedded server, for child processes."""
    from django.db import connection

    db = connection.settings_dict
    host = db.get("OPTIONS", {}).get("host") or db.get("HOST")
    if str(host).startswith("/"):
        return f"postgresql://{db['USER']}:@/{db['NAME']}?host={host}"
    return f"postgresql://{db['USER']}:{db['PASSWORD']}@{host}:{db['PORT'] or 5432}/{db['NAME']}"


test_database_url.__test__ = False  # type: ignore[attr-defined]


class CeleryWorker:
    """A real ``celery worker`` process against the embedded Redis and the test database."""

    def __init__(self, log_path: Path) -> None:
        from django.conf import settings

        env = {
            **os.environ,
            "DATABASE_URL": test_database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "PYTHONWARNINGS": "ignore",
        }
        self.log_path = log_path
        self.log = log_path.open("w")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--pool",
                "solo",
                "--loglevel",
                "INFO",
                "--hostname",
                f"test-{os.getpid()}@%h",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.wait_ready()

    def wait_ready(self, timeout: float = 60) -> None:
        from config.celery import app

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"celery worker exited early:\n{self.log_path.read_text()[-3000:]}")
            if app.control.ping(timeout=0.5):
                return
        raise RuntimeError(f"celery worker not ready:\n{self.log_path.read_text()[-3000:]}")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup: Any, django_db_blocker: Any) -> Iterator[CeleryWorker]:
    ARTIFACTS.mkdir(exist_ok=True)
    worker = CeleryWorker(ARTIFACTS / f"celery-worker{os.environ.get('PYTEST_XDIST_WORKER', '')}.log")
    yield worker
    worker.stop()


@pytest.fixture
def celery_worker(celery_worker_process: CeleryWorker, transactional_db: Any) -> CeleryWorker:
    """A running worker; the test's rows are committed (transactional_db) so it can see them."""
    return celery_worker_process


# --- browser ----------------------------------------------------------------------------------
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield instance
        instance.close()


@pytest.fixture
def page(browser: Any, request: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    pg = context.new_page()
    yield pg
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()


def browser_login(page: Any, live_server: Any, email: str, password: str = TEST_PASSWORD) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_login", email)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
