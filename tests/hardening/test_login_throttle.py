"""Finding 3: login throttling trusted X-Forwarded-For from anyone, and one client could lock out
every user behind a shared IP. Finding 7 (part): throttled logins were not audited; a password
reset for an unknown address sent mail.

Now X-Forwarded-For counts only from TRUSTED_PROXIES, the lockout is per account with a
cool-down, refused logins are audited, and an unknown address gets no mail."""

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
    settings.ACCOUNT_RATE_LIMITS = {"login_failed": "10/m/ip,100/m/key"}
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


@pytest.mark.django_db
def test_lockout_is_per_account_with_a_cool_down_and_audited(settings: Any, analyst: Any, make_user: Any) -> None:
    settings.ACCOUNT_RATE_LIMITS = {"login_failed": "30/m/ip,3/3s/key"}
    neighbour = make_user("analyst")
    attacker, colleague = Client(), Client()
    for _ in range(3):
        assert _login(attacker, analyst.email, "wrong").status_code == 200
    locked = _login(attacker, analyst.email, TEST_PASSWORD)  # even the right password is refused
    assert locked.status_code == 200 and "too many" in locked.content.decode().lower()
    # Someone else behind the same address logs in at once.
    assert _login(colleague, neighbour.email, TEST_PASSWORD).status_code == 302
    throttled = AuditEvent.objects.get(action="auth.login_throttled")
    assert throttled.subject_id == str(analyst.pk) and throttled.after == {"attempted": analyst.email}
    time.sleep(3.2)  # the cool-down
    assert _login(Client(), analyst.email, TEST_PASSWORD).status_code == 302


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
    server = uvicorn_factory("adk-xff", LOGIN_FAILED_PER_IP_PER_MINUTE="10", LOGIN_LOCKOUT_ATTEMPTS="50")
    with httpx.Client(base_url=server.url, timeout=20) as http:
        pages = [_csrf_login(http, u.email, "wrong", f"203.0.113.{n}") for n, u in enumerate(users)]
    blocked = sum("too many" in p.lower() for p in pages)
    assert blocked == 15, f"{blocked} of 25 blocked"
    ips = set(AuditEvent.objects.filter(action__startswith="auth.login").values_list("ip", flat=True))
    assert ips == {"127.0.0.1"}
