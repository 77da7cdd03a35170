"""Per-user API tokens: created and revoked from settings and the API, stored hashed, scoped."""

from typing import Any

from django.urls import reverse
from rest_framework.test import APIClient

from core.models import ApiToken, AuditEvent


def _bearer(token: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return api


def test_token_create_use_revoke_through_the_api(analyst: Any) -> None:
    session_api = APIClient()
    session_api.force_login(analyst)
    created = session_api.post("/api/v1/tokens", {"name": "Excel", "scopes": ["api"]}, format="json")
    assert created.status_code == 201
    raw = created.json()["token"]
    assert raw.startswith("adk_")

    stored = ApiToken.objects.get(pk=created.json()["id"])
    assert raw.split("_", 2)[2] not in (stored.secret_hash, stored.prefix)  # only a hash is kept

    me = _bearer(raw).get("/api/v1/me")
    assert me.status_code == 200
    assert me.json() == {"id": analyst.pk, "email": analyst.email, "roles": ["analyst"]}
    stored.refresh_from_db()
    assert stored.last_used_at is not None

    revoked = session_api.post(f"/api/v1/tokens/{stored.pk}/revoke")
    assert revoked.status_code == 200 and revoked.json()["is_active"] is False
    after = _bearer(raw).get("/api/v1/me")
    assert after.status_code == 401
    assert "revoked" in after.json()["detail"]

    actions = set(AuditEvent.objects.filter(subject_id=str(stored.pk)).values_list("action", flat=True))
    assert actions == {"api_token.create", "api_token.revoke"}


def test_bad_tokens_get_401(analyst: Any) -> None:
    assert _bearer("adk_nothing_here").get("/api/v1/me").status_code == 401
    assert _bearer("garbage").get("/api/v1/me").status_code == 401
    anonymous = APIClient().get("/api/v1/me")
    assert anonymous.status_code == 401
    assert anonymous["WWW-Authenticate"].startswith("Bearer")
    malformed = APIClient()
    malformed.credentials(HTTP_AUTHORIZATION="Bearer two parts")
    assert malformed.get("/api/v1/me").status_code == 401


def test_a_guessed_secret_with_a_real_prefix_fails(analyst: Any) -> None:
    from core.services import api_token_create

    _, raw = api_token_create(user=analyst, name="real")
    prefix = raw.split("_")[1]
    assert _bearer(f"adk_{prefix}_{'A' * 43}").get("/api/v1/me").status_code == 401


def test_mcp_only_token_cannot_use_the_rest_api(analyst: Any) -> None:
    from core.services import api_token_create

    _, raw = api_token_create(user=analyst, name="desktop", scopes=["mcp"])
    response = _bearer(raw).get("/api/v1/me")
    assert response.status_code == 403
    assert "api" in response.json()["detail"]


def test_bad_token_input_is_a_clear_400(analyst: Any) -> None:
    api = APIClient()
    api.force_login(analyst)
    assert api.post("/api/v1/tokens", {"name": ""}, format="json").status_code == 400
    bad_scope = api.post("/api/v1/tokens", {"name": "x", "scopes": ["root"]}, format="json")
    assert bad_scope.status_code == 400 and "scopes" in bad_scope.json()
    assert ApiToken.objects.count() == 0


def test_cannot_revoke_someone_elses_token(analyst: Any, make_user: Any) -> None:
    from core.services import api_token_create

    other = make_user("analyst")
    token, raw = api_token_create(user=other, name="theirs")
    api = APIClient()
    api.force_login(analyst)
    assert api.post(f"/api/v1/tokens/{token.pk}/revoke").status_code == 404
    assert _bearer(raw).get("/api/v1/me").status_code == 200


def test_settings_page_creates_shows_once_and_revokes(client: Any, analyst: Any) -> None:
    client.force_login(analyst)
    page = client.post(reverse("settings"), {"name": "Notebook", "scopes": ["api", "mcp"]})
    assert page.status_code == 200
    raw = page.context["new_token"]
    assert raw in page.content.decode()
    token = ApiToken.objects.get(user=analyst)
    assert token.scopes == ["api", "mcp"]
    # shown once: the next visit does not contain it
    assert raw not in client.get(reverse("settings")).content.decode()

    empty = client.post(reverse("settings"), {"name": "", "scopes": ["api"]})
    assert empty.status_code == 400 and ApiToken.objects.count() == 1

    client.post(reverse("api-token-revoke", args=[token.pk]))
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert _bearer(raw).get("/api/v1/me").status_code == 401
