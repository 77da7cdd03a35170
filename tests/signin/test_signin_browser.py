"""Sign-in flows in real Chromium: set up TOTP, sign in with password + code, with a recovery
code, and the failed-password delay. (OpenID Connect: test_oidc_browser.py.)"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache

from tests.conftest import TEST_PASSWORD, browser_login
from tests.signin.totp_reference import fresh_period, totp

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


def _log_out(page: Any) -> None:
    page.click("[data-testid=usermenu] summary")
    page.click("text=Log out")
    page.wait_for_url(re.compile(r".*/accounts/login/"))


def _password_step(page: Any, live_server: Any, email: str, password: str = TEST_PASSWORD) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_login", email)
    page.fill("#id_password", password)
    page.click("button[type=submit]")


def test_totp_set_up_then_sign_in_with_a_code_and_with_a_recovery_code(
    page: Any, live_server: Any, analyst: Any
) -> None:
    browser_login(page, live_server, analyst.email)
    page.goto(f"{live_server.url}/settings/")
    assert page.get_by_test_id("mfa-status").inner_text().startswith("Off")
    page.click("text=Manage two-factor sign-in and recovery codes")
    # allauth's pages sit in the portal's card, with the portal's buttons.
    assert page.locator("main.auth-page").count() == 1
    assert page.locator("main.auth-page").evaluate("e => getComputedStyle(e).borderTopWidth") == "1px"
    page.locator("main a.button", has_text="Activate").click()
    page.fill("#id_password", TEST_PASSWORD)  # allauth's re-authentication before adding a factor
    page.click("main button[type=submit]")
    page.wait_for_url(re.compile(r".*/accounts/2fa/totp/activate/"))
    assert page.locator("img.mfa-qr").evaluate("e => e.naturalWidth > 0 && e.src.startsWith('data:image/svg')")
    secret = page.input_value("#authenticator_secret")
    fresh_period()
    page.fill("#id_code", totp(secret))
    page.click("main button[type=submit]")
    page.wait_for_url(re.compile(r".*/accounts/2fa/recovery-codes/"))
    codes = page.input_value("#recovery_codes").split()
    assert len(codes) == 10 and all(re.fullmatch(r"\d{8}", c) for c in codes)
    page.goto(f"{live_server.url}/settings/")
    assert page.get_by_test_id("mfa-status").inner_text().startswith("On")
    _log_out(page)

    # Password, then the authenticator's code.
    _password_step(page, live_server, analyst.email)
    page.wait_for_url(re.compile(r".*/accounts/2fa/authenticate/"))
    assert page.locator("main.auth-page h1").inner_text() == "Two-Factor Authentication"
    fresh_period()
    page.fill("#id_code", totp(secret))
    page.click("main button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    assert page.locator("[data-testid=usermenu] summary").inner_text() == analyst.email
    _log_out(page)

    # Password, then a recovery code (the phone is lost); the code is spent.
    _password_step(page, live_server, analyst.email)
    page.wait_for_url(re.compile(r".*/accounts/2fa/authenticate/"))
    page.fill("#id_code", codes[0])
    page.click("main button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    _log_out(page)
    _password_step(page, live_server, analyst.email)
    page.wait_for_url(re.compile(r".*/accounts/2fa/authenticate/"))
    page.fill("#id_code", codes[0])
    page.click("main button[type=submit]")
    assert "Incorrect code" in page.locator("main").inner_text()
    assert page.url.endswith("/accounts/2fa/authenticate/")


def test_failed_passwords_bring_a_delay_that_ends(page: Any, live_server: Any, settings: Any, analyst: Any) -> None:
    settings.LOGIN_DELAY_FREE_FAILURES, settings.LOGIN_DELAY_BASE_SECONDS = 2, 2
    for _ in range(3):
        _password_step(page, live_server, analyst.email, "wrong-password")
        assert "not correct" in page.locator(".flash-error").inner_text()
    _password_step(page, live_server, analyst.email)  # the right password, during the delay
    message = page.locator(".flash-error").inner_text()
    wait = int(re.search(r"Try again in (\d+) seconds", message).group(1))  # type: ignore[union-attr]
    assert 1 <= wait <= 2
    assert page.url.startswith(f"{live_server.url}/accounts/login/")
    time.sleep(wait + 0.2)
    _password_step(page, live_server, analyst.email)
    page.wait_for_url(f"{live_server.url}/")
