"""First browser flows in real Chromium against the live server."""

from typing import Any

import pytest

from tests.conftest import browser_login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_analyst_logs_in_and_sees_the_dashboard(page: Any, live_server: Any, analyst: Any) -> None:
    browser_login(page, live_server, analyst.email)
    assert page.locator("h1").inner_text().startswith("Good to see you")
    nav = page.locator("nav.mainnav a").all_inner_texts()
    assert nav == ["Research", "Briefs", "Portfolios", "Evaluation"]
    # htmx is served locally and loaded
    assert page.evaluate("typeof window.htmx") == "object"


def test_anonymous_user_is_redirected_to_login(page: Any, live_server: Any) -> None:
    page.goto(f"{live_server.url}/portfolios/")
    assert page.url.startswith(f"{live_server.url}/accounts/login/?next=/portfolios/")
    assert page.locator("h1").inner_text() == "Log in to AlphaDesk"


def test_wrong_password_shows_a_message(page: Any, live_server: Any, analyst: Any) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_login", analyst.email)
    page.fill("#id_password", "nope-nope-nope")
    page.click("button[type=submit]")
    assert "not correct" in page.locator(".flash-error").inner_text()


def test_analyst_cannot_open_the_admin(page: Any, live_server: Any, analyst: Any) -> None:
    browser_login(page, live_server, analyst.email)
    assert page.locator('[data-nav="admin"]').count() == 0
    page.goto(f"{live_server.url}/admin/")
    assert "/admin/login/" in page.url
    assert "not authorized" in page.content()


def test_reviewer_sees_the_reviews_nav(page: Any, live_server: Any, reviewer: Any) -> None:
    browser_login(page, live_server, reviewer.email)
    page.click('nav.mainnav a[data-nav="reviews"]')
    assert page.url == f"{live_server.url}/reviews/"
    assert page.locator("h1").inner_text() == "Reviewer inbox"
    assert page.locator('nav.mainnav a[data-nav="portfolios"]').count() == 0


def test_logout_from_the_header(page: Any, live_server: Any, analyst: Any) -> None:
    browser_login(page, live_server, analyst.email)
    page.click("[data-testid=usermenu] summary")  # Settings and Log out sit in the user menu
    page.click("text=Log out")
    page.goto(f"{live_server.url}/")
    assert "/accounts/login/" in page.url
