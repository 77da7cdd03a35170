"""Two-factor sign-in (allauth.mfa): once TOTP is on, a password alone signs nobody in; codes and
recovery codes work once; a role in MFA_REQUIRED_ROLES sets up TOTP before anything else."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret
from django.core.cache import cache
from django.test import Client

from tests.conftest import TEST_PASSWORD
from tests.signin.totp_reference import fresh_period, totp

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    cache.clear()  # used-code markers and rate-limit counters live in Redis
    yield
    cache.clear()


def _password_step(client: Client, email: str) -> Any:
    return client.post("/accounts/login/", {"login": email, "password": TEST_PASSWORD})


def _with_totp(user: Any) -> tuple[str, list[str]]:
    secret = generate_totp_secret()
    TOTP.activate(user, secret)
    return secret, RecoveryCodes.activate(user).get_unused_codes()


def test_with_totp_on_the_password_alone_signs_nobody_in(analyst: Any) -> None:
    secret, _ = _with_totp(analyst)
    client = Client()
    step = _password_step(client, analyst.email)
    assert step.status_code == 302 and step["Location"] == "/accounts/2fa/authenticate/"
    assert client.get("/").status_code == 302  # still anonymous between the two steps
    wrong = client.post("/accounts/2fa/authenticate/", {"code": "12345"})
    assert wrong.status_code == 200 and "Incorrect code" in wrong.content.decode()
    fresh_period()
    code = totp(secret)
    done = client.post("/accounts/2fa/authenticate/", {"code": code})
    assert done.status_code == 302 and done["Location"] == "/"
    assert client.get("/").status_code == 200
    # The same code a second time (a replay, same period) is refused.
    replay = Client()
    _password_step(replay, analyst.email)
    assert "Incorrect code" in replay.post("/accounts/2fa/authenticate/", {"code": code}).content.decode()


def test_a_recovery_code_signs_in_once(analyst: Any) -> None:
    _, codes = _with_totp(analyst)
    assert len(codes) == 10 and all(len(c) == 8 and c.isdigit() for c in codes)
    first = Client()
    _password_step(first, analyst.email)
    assert first.post("/accounts/2fa/authenticate/", {"code": codes[3]})["Location"] == "/"
    again = Client()
    _password_step(again, analyst.email)
    assert "Incorrect code" in again.post("/accounts/2fa/authenticate/", {"code": codes[3]}).content.decode()
    assert RecoveryCodes(analyst.authenticator_set.get(type="recovery_codes")).get_unused_codes() == [
        c for i, c in enumerate(codes) if i != 3
    ]


def test_a_required_role_sets_up_totp_before_anything_else(settings: Any, admin_user: Any, analyst: Any) -> None:
    settings.MFA_REQUIRED_ROLES = ["admin"]
    client = Client()
    assert _password_step(client, admin_user.email).status_code == 302
    for path in ("/", "/portfolios/", "/settings/", "/admin/"):
        response = client.get(path)
        assert (response.status_code, response["Location"]) == (302, "/accounts/2fa/totp/activate/"), path
    api = client.get("/api/v1/me")
    assert api.status_code == 403 and "two-factor" in api.json()["detail"]
    # allauth asks for the password again before a second factor is added (its re-authentication).
    assert client.get("/accounts/2fa/totp/activate/")["Location"].startswith("/accounts/reauthenticate/")
    client.post("/accounts/reauthenticate/", {"password": TEST_PASSWORD})
    page = client.get("/accounts/2fa/totp/activate/")
    assert page.status_code == 200
    secret = page.context["form"].secret
    fresh_period()
    activated = client.post("/accounts/2fa/totp/activate/", {"code": totp(secret)})
    assert activated["Location"] == "/accounts/2fa/recovery-codes/"  # recovery codes made with it
    assert client.get("/").status_code == 200
    assert client.get("/api/v1/me").status_code == 200
    # A role outside the list is not asked.
    other = Client()
    _password_step(other, analyst.email)
    assert other.get("/").status_code == 200


def test_settings_shows_whether_two_factor_is_on(client: Client, settings: Any, analyst: Any) -> None:
    client.force_login(analyst)
    assert "Off: signing in needs only your password." in client.get("/settings/").content.decode()
    settings.MFA_REQUIRED_ROLES = ["analyst"]
    _with_totp(analyst)
    assert "On: signing in asks for a code" in client.get("/settings/").content.decode()
