"""POST/GET/DELETE /api/v1/evaluate: role checks, bad input → 400, one run per suite (409), the
poll URL and progress, and the endpoints in the OpenAPI schema."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_analyst_starts_a_run_and_gets_a_poll_url_with_progress(
    analyst: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client_for(analyst).post("/api/v1/evaluate", {"suite": "calculator"}, format="json")
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] == "queued" and body["suite"] == "calculator" and body["engine"] == "deterministic"
    assert body["poll_url"].endswith(f"/api/v1/evaluate/{body['id']}")
    assert body["progress"] == {"done": 0, "total": 0, "percent": 0, "current": ""}
    assert len(callbacks) == 1  # the Celery task is enqueued on commit
    # A second run of the same suite while one is active: 409 with the active run.
    again = client_for(analyst).post("/api/v1/evaluate", {"suite": "calculator"}, format="json")
    assert again.status_code == 409 and again.json()["active_run_id"] == body["id"]


def test_reviewer_runs_and_reads_the_result_with_cases(reviewer: Any) -> None:
    from evaluation.runner import execute

    response = client_for(reviewer).post(
        "/api/v1/evaluate", {"suite": "calculator", "tags": ["percent"]}, format="json"
    )
    assert response.status_code == 202
    execute(response.json()["id"])  # what the worker does
    detail = client_for(reviewer).get(response.json()["poll_url"])
    assert detail.status_code == 200
    body = detail.json()
    assert body["status"] == "done" and body["progress"]["percent"] == 100
    assert body["total"] == 261 and len(body["cases"]) == 261  # the arithmetic questions on the percent scale
    case = body["cases"][0]
    assert {"inputs", "expected", "actual", "verdicts", "measures", "outcome", "trace_url"} <= set(case)
    assert body["summary"]["questions"] == 261
    listed = client_for(reviewer).get("/api/v1/evaluate?suite=calculator").json()
    assert [r["id"] for r in listed] == [body["id"]]


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "suite"),
        ({"suite": "nope"}, "suite"),
        ({"suite": "research", "engine": "gpt"}, "engine"),
        ({"suite": "research", "engine": "anthropic"}, "engine"),  # no key configured
        ({"suite": "research", "tags": ["no-such-tag"]}, "tags"),
        ({"suite": "research", "tags": "calculator"}, "tags"),  # not a list
    ],
)
def test_bad_input_is_a_400_naming_the_field(analyst: Any, payload: dict[str, Any], field: str) -> None:
    response = client_for(analyst).post("/api/v1/evaluate", payload, format="json")
    assert response.status_code == 400 and field in response.json(), response.content


def test_only_admins_delete_runs(analyst: Any, reviewer: Any, admin_user: Any) -> None:
    from evaluation.models import EvalRun

    run = EvalRun.objects.create(suite="calculator", status="done")
    assert client_for(analyst).delete(f"/api/v1/evaluate/{run.pk}").status_code == 403
    assert client_for(reviewer).delete(f"/api/v1/evaluate/{run.pk}").status_code == 403
    assert client_for(admin_user).delete(f"/api/v1/evaluate/{run.pk}").status_code == 204
    assert not EvalRun.objects.filter(pk=run.pk).exists()
    assert client_for(admin_user).get(f"/api/v1/evaluate/{run.pk}").status_code == 404


def test_anonymous_and_roleless_users_are_refused(make_user: Any) -> None:
    assert APIClient().post("/api/v1/evaluate", {"suite": "calculator"}, format="json").status_code in (401, 403)
    assert client_for(make_user()).get("/api/v1/evaluate").status_code == 403


def test_endpoints_are_in_the_openapi_schema(analyst: Any) -> None:
    schema = client_for(analyst).get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert {"post", "get"} <= set(schema["paths"]["/api/v1/evaluate"])
    assert {"get", "delete"} <= set(schema["paths"]["/api/v1/evaluate/{run_id}"])
