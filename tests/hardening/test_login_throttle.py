"""Issue 17 finding 3: login throttling trusted X-Forwarded-For from anyone, and one client could
lock out every user behind a shared IP. Finding 7 (part): throttled logins were not audited; a
password reset for an unknown address sent mail. Issue 49: a hard per-account lock could be held
by anyone who knew the address.

Now X-Forwarded-For counts only from TRUSTED_PROXIES, failures bring a progressive per-account
delay (strangers' failures apart from the holder's usual addresses) plus a per-address limit,
the holder is mailed once per window, refused logins are audited, and an unknown address gets no
mail."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from django.core import mail
from django.core.cache import cache
from django.test import Client

from core import login_guard
from core.middleware import client_ip
from core.models import AuditEvent
from tests.conftest import TEST_PASSWORD


@pytest.fixture(autouse=True)
def _fresh_limits() -> Iterator[None]:
    cache.clear()  # the rate-limit counters live in the cache (Redis)
    yield
    cache.clear()


def _login(client: Client, email: str, password: str, **headers: Any) -> Any:
    return client.post("/accounts/login/", {"login": email, "password": password}, **headers)


def test_forwarded_for_is_believed_only_from_trusted_proxies(settings: Any) -> None:
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    assert client_ip("203.0.113.9", "1.2.3.4") == "203.0.113.9"  # not a proxy: header ignored
    assert client_ip("10.0.0.5", "1.2.3.4") == "1.2.3.4"
    # The client may prepend anything; the rightmost hop that is not our proxy is the client.
    assert client_ip("10.0.0.5", "6.6.6.6, 1.2.3.4, 10.0.0.7") == "1.2.3.4"
    assert client_ip("10.0.0.5", "not-an-ip") == "10.0.0.5"


@pytest.mark.django_db
def test_rotating_forwarded_for_does_not_escape_the_limit_and_is_not_logged(
    settings: Any, analyst: Any, make_user: Any
) -> None:
    settings.TRUSTED_PROXIES = []
    settings.ACCOUNT_RATE_LIMITS = {"login_failed": "10/m/ip"}
    client = Client()
    victims = [make_user("analyst") for _ in range(12)]
    statuses = [
        _login(client, v.email, "wrong", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}").status_code
        for n, v in enumerate(victims)
    ]
    assert "too many" in _login(client, analyst.email, "wrong").content.decode().lower()
    assert statuses[:10] == [200] * 10
    ips = set(AuditEvent.objects.filter(action__startswith="auth.login").values_list("ip", flat=True))
    assert ips == {"127.0.0.1"}  # the socket's peer, never the forged header


def _wait_in(page: Any) -> int | None:
    found = re.search(r"Try again in (\d+) seconds", page.content.decode())
    return int(found.group(1)) if found else None


def test_the_delay_doubles_after_the_free_failures_and_is_capped(settings: Any) -> None:
    settings.LOGIN_DELAY_FREE_FAILURES, settings.LOGIN_DELAY_BASE_SECONDS, settings.LOGIN_DELAY_MAX_SECONDS = 3, 2, 60
    assert [login_guard.delay_for(n) for n in range(1, 11)] == [0, 0, 0, 2, 4, 8, 16, 32, 60, 60]
    assert login_guard.delay_for(10_000) == 60


@pytest.mark.django_db
def test_a_strangers_failures_delay_strangers_not_the_holder(settings: Any, analyst: Any) -> None:
    """Issue 49: five wrong passwords used to lock any account for 15 minutes, for anyone who knew
    the address. Now a stranger's failures slow only attempts from unfamiliar addresses."""
    settings.LOGIN_DELAY_FREE_FAILURES, settings.LOGIN_DELAY_BASE_SECONDS, settings.LOGIN_DELAY_MAX_SECONDS = 2, 1, 2
    desk, attacker = {"REMOTE_ADDR": "192.0.2.10"}, {"REMOTE_ADDR": "203.0.113.5"}
    assert _login(Client(), analyst.email, TEST_PASSWORD, **desk).status_code == 302  # the holder's usual desk
    for _ in range(2):  # the free failures
        assert _wait_in(_login(Client(), analyst.email, "wrong", **attacker)) is None
    assert _login(Client(), analyst.email, "wrong", **attacker).status_code == 200  # third: 1 s delay
    refused = _login(Client(), analyst.email, TEST_PASSWORD, **attacker)  # unchecked, even the right one
    assert refused.status_code == 200 and _wait_in(refused) == 1
    throttled = AuditEvent.objects.get(action="auth.login_throttled")
    assert throttled.subject_id == str(analyst.pk)
    assert throttled.after == {"attempted": analyst.email, "reason": "delay"}
    # The holder at the usual desk is not slowed by any of it.
    assert _login(Client(), analyst.email, TEST_PASSWORD, **desk).status_code == 302
    # Strangers' delays keep doubling up to the cap, and end on their own.
    time.sleep(1.1)
    assert _login(Client(), analyst.email, "wrong", **attacker).status_code == 200
    assert _wait_in(_login(Client(), analyst.email, "wrong", **attacker)) == 2
    time.sleep(2.1)
    assert _login(Client(), analyst.email, TEST_PASSWORD, **attacker).status_code == 302


@pytest.mark.django_db
def test_repeated_failures_email_the_holder_once_per_window(settings: Any, analyst: Any) -> None:
    settings.LOGIN_DELAY_FREE_FAILURES, settings.LOGIN_FAILURE_NOTIFY_AFTER = 100, 5
    for n in range(4):
        _login(Client(), analyst.email, "wrong", REMOTE_ADDR=f"203.0.113.{n}")
    assert mail.outbox == []  # four failures: no notice yet
    for n in range(6):
        _login(Client(), analyst.email, "wrong", REMOTE_ADDR=f"198.51.100.{n}")
    assert [m.to for m in mail.outbox] == [[analyst.email]]  # the fifth sends it; the next five do not
    assert "5 times" in mail.outbox[0].body and "198.51.100.0" in mail.outbox[0].body
    for _ in range(6):
        _login(Client(), "nobody@example.test", "wrong")
    assert len(mail.outbox) == 1  # an unknown address is told nothing (and nobody is mailed)
    notified = AuditEvent.objects.get(action="auth.login_failures_notified")
    assert notified.subject_id == str(analyst.pk) and notified.after == {"failures": 5}


@pytest.mark.django_db
def test_password_reset_for_an_unknown_address_sends_nothing(client: Client, analyst: Any) -> None:
    unknown = client.post("/accounts/password/reset/", {"email": "nobody@example.test"})
    known = Client().post("/accounts/password/reset/", {"email": analyst.email})
    assert unknown.status_code == known.status_code == 302  # the same answer: no account enumeration
    assert [m.to for m in mail.outbox] == [[analyst.email]]


def _csrf_login(http: httpx.Client, email: str, password: str, forwarded: str) -> str:
    page = http.get("/accounts/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert token, page.text[:300]
    response = http.post(
        "/accounts/login/",
        data={"login": email, "password": password, "csrfmiddlewaretoken": token.group(1)},
        headers={"X-Forwarded-For": forwarded, "Referer": f"{http.base_url}accounts/login/"},
    )
    return response.text


def test_the_production_server_ignores_forged_forwarded_for(
    uvicorn_factory: Callable[..., Any], make_user: Any
) -> None:
    """The original probe, against uvicorn as the Procfile runs it: 25 wrong passwords with a new
    X-Forwarded-For each. Before, none was blocked and the audit stored the forged addresses."""
    users = [make_user("analyst") for _ in range(25)]
    server = uvicorn_factory("adk-xff", LOGIN_FAILED_PER_IP_PER_MINUTE="10")
    with httpx.Client(base_url=server.url, timeout=20) as http:
        pages = [_csrf_login(http, u.email, "wrong", f"203.0.113.{n}") for n, u in enumerate(users)]
    blocked = sum("too many" in p.lower() for p in pages)
    assert blocked == 15, f"{blocked} of 25 blocked"
    ips = set(AuditEvent.objects.filter(action__startswith="auth.login").values_list("ip", flat=True))
    assert ips == {"127.0.0.1"}
