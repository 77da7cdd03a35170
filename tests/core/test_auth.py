"""Login, logout, session rotation, idle timeout, closed signup, password reset, login audit."""

import re
from typing import Any

import pytest
from django.conf import settings
from django.core import mail

from core.models import AuditEvent
from tests.conftest import TEST_PASSWORD


def _login(client: Any, email: str, password: str = TEST_PASSWORD) -> Any:
    return client.post("/accounts/login/", {"login": email, "password": password})


def test_login_rotates_the_session_and_logout_ends_it(client: Any, analyst: Any) -> None:
    client.get("/accounts/login/")
    session = client.session
    session["probe"] = 1
    session.save()
    anonymous_key = session.session_key

    response = _login(client, analyst.email)
    assert response.status_code == 302 and response["Location"] == "/"
    authenticated_key = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert authenticated_key != anonymous_key  # rotated: no session fixation
    assert client.get("/").status_code == 200

    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert client.get("/").status_code == 302  # logged out

    actions = list(AuditEvent.objects.filter(actor=analyst).values_list("action", flat=True))
    assert "auth.login" in actions and "auth.logout" in actions


def test_failed_login_is_refused_and_audited(client: Any, analyst: Any) -> None:
    response = _login(client, analyst.email, "not-the-password")
    assert response.status_code == 200
    assert "not correct" in response.content.decode()
    event = AuditEvent.objects.get(action="auth.login_failed")
    assert event.after == {"attempted": analyst.email}
    assert event.subject_id == str(analyst.pk)
    assert "not-the-password" not in str(event.content())


def test_idle_timeout_is_the_configured_session_age(client: Any, analyst: Any) -> None:
    _login(client, analyst.email)
    assert client.session.get_expiry_age() == settings.SESSION_COOKIE_AGE
    assert settings.SESSION_SAVE_EVERY_REQUEST  # each request pushes the expiry: idle, not absolute


@pytest.mark.django_db
def test_public_signup_is_closed(client: Any) -> None:
    response = client.post(
        "/accounts/signup/", {"email": "new@example.test", "password1": "x" * 20, "password2": "x" * 20}
    )
    assert "Sign Up Closed" in response.content.decode()
    from django.contrib.auth import get_user_model

    assert not get_user_model().objects.filter(email="new@example.test").exists()


@pytest.mark.django_db
def test_password_reset_by_email(client: Any, analyst: Any) -> None:
    response = client.post("/accounts/password/reset/", {"email": analyst.email})
    assert response.status_code == 302
    assert len(mail.outbox) == 1 and mail.outbox[0].to == [analyst.email]
    found = re.search(r"http://testserver(/accounts/password/reset/key/\S+)", str(mail.outbox[0].body))
    assert found, mail.outbox[0].body
    link = found.group(1)
    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200
    new_password = "an-entirely-new-secret-91"
    done = client.post(
        form_page.redirect_chain[-1][0] if form_page.redirect_chain else link,
        {"password1": new_password, "password2": new_password},
    )
    assert done.status_code == 302
    assert client.login(username=analyst.email, password=new_password)
