"""Settings a firm expects (issue 49): the scheme believed only from trusted proxies, an absolute
session lifetime, and briefs mailed only inside the allowed domains. Reproductions written here."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory

from core.middleware import SESSION_STARTED_KEY, ClientIpMiddleware


def _scheme_seen(peer: str) -> str:
    request = RequestFactory().get("/", HTTP_X_FORWARDED_PROTO="https", REMOTE_ADDR=peer)

    def view(req: HttpRequest) -> HttpResponse:
        return HttpResponse("https" if req.is_secure() else "http")

    return ClientIpMiddleware(view)(request).content.decode()


def test_x_forwarded_proto_is_believed_only_from_a_trusted_proxy(settings: Any) -> None:
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.TRUSTED_PROXIES = ["10.0.0.1"]
    assert _scheme_seen("203.0.113.5") == "http"  # anyone else's claim of HTTPS
    assert _scheme_seen("10.0.0.1") == "https"  # the proxy's word


@pytest.mark.django_db
def test_a_session_ends_at_its_absolute_lifetime_however_active(analyst: Any, settings: Any) -> None:
    settings.SESSION_ABSOLUTE_SECONDS = 12 * 3600
    page = Client()
    page.force_login(analyst)
    assert page.get("/research/").status_code == 200
    session = page.session
    assert abs(session[SESSION_STARTED_KEY] - time.time()) < 60
    session[SESSION_STARTED_KEY] = int(time.time()) - 12 * 3600 + 30  # 30 s to go: still in
    session.save()
    assert page.get("/research/").status_code == 200
    session = page.session
    session[SESSION_STARTED_KEY] = int(time.time()) - 12 * 3600 - 1  # signed in 12 h and 1 s ago
    session.save()
    ended = page.get("/research/")
    assert ended.status_code == 302 and ended["Location"].startswith("/accounts/login/?next=/research/")
    assert page.get("/research/").status_code == 302  # signed out, not only redirected once

    api = Client()
    api.force_login(analyst)
    session = api.session
    session[SESSION_STARTED_KEY] = int(time.time()) - 13 * 3600
    session.save()
    answer = api.get("/api/v1/me")
    assert answer.status_code == 401 and answer.json() == {"detail": "Your session has ended; sign in again."}


@pytest.mark.django_db
def test_watchlist_recipients_outside_the_allowed_domains_are_refused(analyst: Any, settings: Any) -> None:
    from portfolios.services import recipient_allowed, watchlist_create

    settings.BRIEF_RECIPIENT_DOMAINS = ["alphadesk.example"]
    assert recipient_allowed("pm@alphadesk.example") is True
    assert recipient_allowed("desk@research.alphadesk.example") is True  # a subdomain
    assert recipient_allowed("pm@alphadesk.example.evil.test") is False
    assert recipient_allowed("pm@notalphadesk.example") is False
    with pytest.raises(ValidationError) as refused:
        watchlist_create(user=analyst, name="Leaky", tickers=["INFY.NS"], recipients=["pm@gmail.test"])
    assert refused.value.message_dict == {
        "recipients": ["'pm@gmail.test' is outside the domains briefs may go to: alphadesk.example."]
    }
    kept = watchlist_create(user=analyst, name="Inside", tickers=["INFY.NS"], recipients=["PM@alphadesk.example"])
    assert kept.recipients == ["pm@alphadesk.example"]
    settings.BRIEF_RECIPIENT_DOMAINS = []
    assert recipient_allowed("pm@gmail.test") is True  # empty: anywhere (the default)
