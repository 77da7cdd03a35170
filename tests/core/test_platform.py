"""The real platform underneath: pgvector, Redis, a real Celery worker, health, schema, deploy check."""

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from config import embedded
from core.models import WorkerProbe
from core.tasks import worker_probe_complete

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_vector_extension_is_installed_by_migration() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        (version,) = cursor.fetchone()
        cursor.execute("SELECT '[1,2,3]'::vector <=> '[1,2,4]'::vector")
        (distance,) = cursor.fetchone()
    assert tuple(int(p) for p in version.split(".")) >= (0, 8, 0)
    assert 0 < distance < 0.01  # a real cosine distance from pgvector


@pytest.mark.worker
def test_real_worker_consumes_a_task_and_persists_its_result(celery_worker: Any) -> None:
    probe = WorkerProbe.objects.create()
    worker_probe_complete.delay(probe.pk)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        probe.refresh_from_db()
        if probe.completed_at:
            break
        time.sleep(0.1)
    assert probe.completed_at is not None, "the worker never completed the task"
    assert probe.worker  # written by the worker process, with its hostname


@pytest.mark.worker
def test_health_is_200_with_every_component_up(celery_worker: Any) -> None:
    from core.health import celery_cache_clear

    celery_cache_clear()  # an earlier test's answer (a worker it stopped) is kept per process for seconds
    response = APIClient().get("/api/v1/health")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    components = body["components"]
    assert {k: v["status"] for k, v in components.items()} == {"database": "up", "redis": "up", "celery": "up"}
    assert components["database"]["pgvector"].startswith("0.8")
    assert components["celery"]["workers"]
    assert body["llm_mode"] == "deterministic" and body["market_data"] == "snapshot"


@pytest.mark.django_db
def test_health_is_503_when_redis_is_stopped(settings: Any, tmp_path: Path) -> None:
    sock = Path("/tmp") / f"adk-health-{os.getpid()}.sock"  # unix socket paths must stay short
    embedded.start_redis(sock)
    settings.REDIS_URL = f"unix://{sock}"
    try:
        assert APIClient().get("/api/v1/health").json()["components"]["redis"]["status"] == "up"
    finally:
        embedded.stop_redis(sock)
    response = APIClient().get("/api/v1/health")
    body = response.json()
    assert response.status_code == 503
    assert body["status"] == "degraded"
    assert body["components"]["redis"]["status"] == "down"
    assert body["components"]["celery"]["error"] == "broker (Redis) is down"
    assert body["components"]["database"]["status"] == "up"


def test_openapi_schema_and_offline_docs(analyst: Any) -> None:
    api = APIClient()
    api.force_login(analyst)  # the schema and docs are for signed-in users (issue 17)
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert {"/api/v1/health", "/api/v1/me", "/api/v1/tokens", "/api/v1/tokens/{token_id}/revoke"} <= set(paths)
    docs = api.get("/api/docs/").content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in docs
    assert "cdn" not in docs.lower() and "unpkg" not in docs.lower()


def test_deploy_check_passes_under_production_settings() -> None:
    env = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DJANGO_DEBUG": "false",
        "DJANGO_HTTPS": "true",
        "DJANGO_SECRET_KEY": "p" * 10 + "roduction-secret-with-enough-entropy-0123456789-abcdefgh",
        "DJANGO_ALLOWED_HOSTS": "alphadesk.example.com",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_deploy_check_fails_with_development_defaults() -> None:
    """The check above can fail: the local defaults are not production-safe and it says so."""
    env = {**os.environ, "DJANGO_DEBUG": "true", "DJANGO_HTTPS": "false"}
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "SECURE_SSL_REDIRECT" in result.stderr + result.stdout
