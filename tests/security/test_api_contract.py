"""Finding 8: a loose API contract. Oversized bodies got a 400 HTML page and 500s were HTML;
the schema and its docs were public; the schema listed few error statuses and no minLength;
a reviewer (no Portfolios area) could analyse a ticker basket over REST and MCP."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from core.services import api_token_create
from mcp_bridge.services import mcp_tool_call


def _session(user: Any) -> APIClient:
    api = APIClient()
    api.force_login(user)
    return api


@pytest.mark.django_db
def test_an_oversized_body_is_a_json_413(analyst: Any, settings: Any) -> None:
    settings.API_MAX_BODY_BYTES = 1000
    body = json.dumps({"name": "x" * 2000, "holdings": [{"ticker": "INFY"}]})
    response = _session(analyst).post("/api/v1/portfolios", body, content_type="application/json")
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"error": "too_large", "detail": "The request body is over the limit of 1,000 bytes."}


@pytest.mark.django_db
def test_unknown_api_urls_and_methods_answer_json(analyst: Any) -> None:
    api = _session(analyst)
    missing = api.get("/api/v1/no-such-thing")
    assert missing.status_code == 404 and missing.json() == {"detail": "Not Found"}
    wrong_method = api.delete("/api/v1/me")
    assert wrong_method.status_code == 405 and "not allowed" in wrong_method.json()["detail"]


@pytest.mark.django_db
def test_a_crash_in_an_api_view_is_a_json_500(analyst: Any, monkeypatch: Any) -> None:
    import core.apis

    def broken(user: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(core.apis, "user_roles", broken)
    client = Client(raise_request_exception=False)
    client.force_login(analyst)
    response = client.get("/api/v1/me")
    assert response.status_code == 500 and response["Content-Type"] == "application/json"
    assert response.json()["error"] == "internal_error" and "boom" not in response.content.decode()


@pytest.mark.django_db
def test_schema_and_docs_need_a_login(analyst: Any) -> None:
    anonymous = Client()
    assert anonymous.get("/api/schema/").status_code == 401
    docs = anonymous.get("/api/docs/")
    assert docs.status_code == 302 and docs["Location"].startswith("/accounts/login/")
    raw = api_token_create(user=analyst, name="docs", scopes=["api"])[1]
    schema = Client().get("/api/schema/", HTTP_AUTHORIZATION=f"Bearer {raw}", HTTP_ACCEPT="application/json")
    assert schema.status_code == 200


@pytest.mark.django_db
def test_the_schema_documents_error_statuses_and_non_empty_text(analyst: Any) -> None:
    schema = _session(analyst).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    token_create = schema["paths"]["/api/v1/tokens"]["post"]["responses"]
    assert {"400", "401", "403", "404", "409", "413", "429"} <= set(token_create)
    assert token_create["413"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    detail = schema["paths"]["/api/v1/portfolios/{portfolio_id}"]
    assert {"401", "403", "404", "429"} <= set(detail["get"]["responses"])
    assert "400" not in detail["get"]["responses"]  # a plain GET with no query takes no input
    health = schema["paths"]["/api/v1/health/live"]["get"]["responses"]
    assert set(health) == {"200"}  # public, not throttled
    chat = schema["components"]["schemas"]["ChatPost"]["properties"]["question"]
    assert chat["minLength"] == 1 and chat["pattern"]
    assert schema["components"]["schemas"]["WatchlistWrite"]["properties"]["tickers"]["minItems"] == 1
    empty = _session(analyst).post("/api/v1/chat", {"question": "   "}, format="json")
    assert empty.status_code == 400 and "question" in empty.json()


@pytest.mark.django_db(transaction=True)
def test_a_reviewer_cannot_analyse_a_basket_over_rest_or_mcp(reviewer: Any, analyst: Any) -> None:
    body = {"tickers": ["INFY", "TCS"], "weights": [0.5, 0.5]}
    refused = _session(reviewer).post("/api/v1/market/analyze", body, format="json")
    assert refused.status_code == 403
    assert _session(analyst).post("/api/v1/market/analyze", body, format="json").status_code == 200
    outcome = mcp_tool_call(user=reviewer, name="analyze_portfolio", arguments=body, transport="http")
    assert outcome.error is not None and outcome.error.error == "forbidden"
    assert "Portfolios" in outcome.error.message
