"""Every page of the navigation, as analyst, reviewer and admin, at 390×844 and 1440×900 in real
Chromium, checked by tests/e2e/page_checks.py; screenshots land in test-artifacts/pages/."""

from __future__ import annotations

from typing import Any

import pytest

from tests.briefs.conftest import feeds  # noqa: F401  (the local RSS server the brief run reads)
from tests.conftest import browser_login
from tests.e2e.page_checks import SHOTS, VIEWPORTS, Listener, check_page, settle
from tests.e2e.portal_seed import pages_for, seed_portal

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.timeout(900)]


@pytest.mark.parametrize("role", ["analyst", "reviewer", "admin"])
def test_every_nav_page_at_two_widths(
    role: str,
    browser: Any,
    live_server: Any,
    analyst: Any,
    reviewer: Any,
    admin_user: Any,
    feeds: Any,  # noqa: F811
) -> None:
    portal = seed_portal(analyst)
    user = {"analyst": analyst, "reviewer": reviewer, "admin": admin_user}[role]
    failures: dict[str, list[str]] = {}
    for size, viewport in VIEWPORTS.items():
        # bypass_csp: the test injects axe-core; no page of the product loads it.
        context = browser.new_context(viewport=viewport, bypass_csp=True)
        context.set_default_timeout(20_000)
        page = context.new_page()
        listener = Listener()
        listener.attach(page)
        browser_login(page, live_server, user.email)
        settle(page)  # the home page it lands on finishes loading its panels
        for slug, path in pages_for(role, portal):
            problems = check_page(page, listener, f"{live_server.url}{path}", SHOTS / f"{role}-{size}-{slug}.png")
            if problems:
                failures[f"{size} {path}"] = problems
        context.close()
    assert not failures, "\n".join(f"{where}: {'; '.join(p)}" for where, p in failures.items())
