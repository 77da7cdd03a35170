"""Finding 1: a token could mint wider rights, tokens never expired, and there was no limit.

Now (choice documented in docs/architecture.md, API): a token may create tokens only for its own user, with
scopes it has, expiring no later than itself; revoking it revokes what it created; a user holds
at most API_TOKEN_MAX_ACTIVE_PER_USER active tokens; every step is audited."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import timezone
from rest_framework.test import APIClient

from core.models import ApiToken, AuditEvent
from core.services import api_token_create


def _bearer(token: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return api


def test_an_api_token_cannot_mint_an_mcp_token(analyst: Any) -> None:
    _, raw = api_token_create(user=analyst, name="api only", scopes=["api"])
    response = _bearer(raw).post("/api/v1/tokens", {"name": "wider", "scopes": ["api", "mcp"]}, format="json")
    assert response.status_code == 403
    assert "mcp" in response.json()["detail"]
    assert ApiToken.objects.filter(user=analyst).count() == 1


def test_a_token_made_by_a_token_is_revoked_with_it_and_never_outlives_it(analyst: Any, settings: Any) -> None:
    settings.API_TOKEN_DEFAULT_DAYS = 90
    parent, raw = api_token_create(user=analyst, name="parent", scopes=["api", "mcp"], expires_in_days=10)
    made = _bearer(raw).post(
        "/api/v1/tokens", {"name": "child", "scopes": ["mcp"], "expires_in_days": 30}, format="json"
    )
    assert made.status_code == 201, made.json()
    child = ApiToken.objects.get(pk=made.json()["id"])
    assert child.parent_id == parent.pk and child.scopes == ["mcp"]
    assert child.expires_at == parent.expires_at  # capped at the parent's 10 days, not 30
    grandchild_raw = api_token_create(user=analyst, name="grandchild", scopes=["mcp"], parent=child)[1]

    session = APIClient()
    session.force_login(analyst)
    assert session.post(f"/api/v1/tokens/{parent.pk}/revoke").status_code == 200
    assert ApiToken.objects.active().filter(user=analyst).count() == 0
    assert _bearer(grandchild_raw).get("/api/v1/me").status_code == 401
    cascade = AuditEvent.objects.filter(action="api_token.revoke").order_by("id")
    assert [(e.subject_id, e.after) for e in cascade] == [
        (str(parent.pk), None),
        (str(child.pk), {"cascade_from": parent.pk}),
        (str(ApiToken.objects.get(name="grandchild").pk), {"cascade_from": parent.pk}),
    ]
    created = AuditEvent.objects.get(action="api_token.create", subject_id=str(child.pk))
    assert (created.after or {})["created_by_token"] == parent.pk and (created.after or {})["scopes"] == ["mcp"]


def test_tokens_expire_by_default_and_expired_ones_get_401(analyst: Any, settings: Any) -> None:
    settings.API_TOKEN_DEFAULT_DAYS = 7
    token, raw = api_token_create(user=analyst, name="week")
    expected = timezone.now() + dt.timedelta(days=7)
    assert token.expires_at is not None and abs((token.expires_at - expected).total_seconds()) < 60
    assert _bearer(raw).get("/api/v1/me").status_code == 200
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    assert _bearer(raw).get("/api/v1/me").status_code == 401


def test_expiry_beyond_the_maximum_is_a_400(analyst: Any, settings: Any) -> None:
    settings.API_TOKEN_MAX_DAYS = 365
    session = APIClient()
    session.force_login(analyst)
    response = session.post("/api/v1/tokens", {"name": "forever", "expires_in_days": 10_000}, format="json")
    assert response.status_code == 400 and "expires_in_days" in response.json()
    assert not ApiToken.objects.exists()


def test_the_active_token_count_is_limited_per_user(analyst: Any, make_user: Any, settings: Any) -> None:
    settings.API_TOKEN_MAX_ACTIVE_PER_USER = 3
    for n in range(3):
        api_token_create(user=analyst, name=f"t{n}")
    session = APIClient()
    session.force_login(analyst)
    refused = session.post("/api/v1/tokens", {"name": "fourth"}, format="json")
    assert refused.status_code == 409
    assert refused.json()["error"] == "conflict" and "3 active tokens" in refused.json()["detail"]
    # Revoking one frees a place; another user is not affected by this one's count.
    first = ApiToken.objects.filter(user=analyst).first()
    assert first is not None
    session.post(f"/api/v1/tokens/{first.pk}/revoke")
    assert session.post("/api/v1/tokens", {"name": "fourth"}, format="json").status_code == 201
    assert api_token_create(user=make_user("analyst"), name="other")[0].pk
