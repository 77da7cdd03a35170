"""In real Chromium with the real worker: an analyst presses RUN and watches the run progress live;
a reviewer approves the brief with its linked, verified figures; the analyst finds it delivered."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import browser_login

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def test_run_watch_approve_and_find_the_delivered_brief(
    page: Any,
    live_server: Any,
    celery_worker: Any,
    smtp_inbox: Any,
    feeds: Any,
    watchlist: Any,
    analyst: Any,
    reviewer: Any,
) -> None:
    from briefs.models import Brief

    browser_login(page, live_server, analyst.email)
    page.goto(f"{live_server.url}/briefs/")
    page.click(f"text={watchlist.name}")
    page.click('[data-testid="run-button"]')
    # The run page refreshes itself (htmx polling) until the run waits at the gate.
    status = page.locator('[data-testid="run-status"]')
    status.filter(has_text="Awaiting review").wait_for(timeout=60_000)
    assert page.locator('[data-testid="steps"] tbody tr').count() >= 10
    assert page.locator('[data-testid="steps"]').inner_text().count("compute_metrics") == 5

    page.goto(f"{live_server.url}/")
    page.context.clear_cookies()
    browser_login(page, live_server, reviewer.email)
    brief = Brief.objects.get(watchlist=watchlist)
    page.goto(f"{live_server.url}/reviews/")
    page.click("text=Morning brief: India large caps")
    assert page.locator('[data-testid="verification"]').inner_text() == "verified"
    figure = page.locator('[data-testid="brief-rendered"] a.claim.verified').first
    claim_id = figure.get_attribute("data-claim")
    figure.click()
    assert page.url.endswith(f"#claim-{claim_id}")
    assert "verified" in page.locator(f"#claim-{claim_id}").inner_text()
    page.once("dialog", lambda dialog: dialog.accept())
    page.click('[data-testid="approve"]')

    page.context.clear_cookies()
    browser_login(page, live_server, analyst.email)
    page.goto(f"{live_server.url}/briefs/runs/{brief.run_id}/")
    page.locator('[data-testid="run-status"]').filter(has_text="Delivered").wait_for(timeout=60_000)
    page.goto(f"{live_server.url}/briefs/")
    page.click(f"text={brief.title}")
    assert "emailed to desk@example.test, pm@example.test" in page.locator('[data-testid="delivery"]').inner_text()
    assert page.locator('[data-testid="brief-body"] strong, [data-testid="brief-body"] a.claim').count() > 20
    assert len(smtp_inbox.messages) == 1
