"""Loaded with ``-p tests.pytest_env`` (pyproject addopts) — before pytest-django reads the
settings, which a conftest.py would be too late for."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Each pytest-xdist worker is a session of its own, with its own embedded Postgres and Redis, BM25
# index and media under var/test/<worker> (gw0, gw1, …); a plain run uses var/test.
# (the controller's setting is inherited by the workers, so each one appends its own name).
os.environ.setdefault("ALPHADESK_VAR_DIR", str(ROOT / "var" / "test"))
if _worker := os.environ.get("PYTEST_XDIST_WORKER", ""):
    os.environ["ALPHADESK_VAR_DIR"] = str(Path(os.environ["ALPHADESK_VAR_DIR"]) / _worker)
# Threads serving requests (uvicorn for MCP, the live server) must not keep connections open past
# a test, or the test database cannot be dropped at the end of the session.
os.environ.setdefault("DB_CONN_MAX_AGE", "0")
# Playwright's sync API runs an event loop in the test thread; Django's ORM is safe here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
# A scripted model failure is seen once, as scripted: only tests/core/test_llm_retry.py (which sets
# its own) exercises retries, so no other test waits for backoffs or miscounts the fake's requests.
os.environ.setdefault("LLM_MAX_ATTEMPTS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
