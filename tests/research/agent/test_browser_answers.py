"""Browser: a composed answer as the analyst sees it — the horizon comparison's table, the
"figures traced to source" and "answers the question" checks, a saved portfolio's table and the
link to its page. Real Chromium, live server, real Celery worker; screenshots at 1440×900 and 390×844."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import ARTIFACTS, browser_login

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.timeout(240)]


def _ask(page: Any, question: str) -> Any:
    page.fill('input[name="question"]', question)
    page.click('.chat-form button[type="submit"]')
    page.wait_for_selector('[data-testid="turn"][data-status="done"]:last-of-type', timeout=90_000)
    return page.locator('[data-testid="turn"]').last


def test_a_comparison_and_a_portfolio_read_as_tables_with_their_checks(
    page: Any, live_server: Any, celery_worker: Any, analyst: Any
) -> None:
    from portfolios.services import portfolio_create

    portfolio, _ = portfolio_create(user=analyst, name="Core India", holdings=[("INFY.NS", 0.6), ("TCS.NS", 0.4)])
    browser_login(page, live_server, analyst.email)
    page.goto(f"{live_server.url}/research/chat/")
    page.fill('input[name="question"]', "How has INFY performed over the last year compared with TCS?")
    page.click('.chat-form button[type="submit"]')
    page.wait_for_url("**/research/chat/*/")
    page.wait_for_selector('[data-testid="turn"][data-status="done"]', timeout=90_000)
    turn = page.locator('[data-testid="turn"]').last
    table = turn.locator("table.answer-table")
    assert table.locator("th").all_inner_texts() == ["Ticker", "Start close", "End close", "Return"]
    assert table.locator("tbody tr").count() == 3  # INFY, TCS and the NIFTY 50 benchmark
    assert table.locator("a.fig.verified").count() == 9
    assert turn.locator('[data-testid="figures-traced"]').inner_text() == "✔ Figures traced to source"
    assert "did better" in turn.locator('[data-testid="answer"]').inner_text()

    second = _ask(page, "How has my Core India portfolio performed?")
    assert "| Holding" not in second.inner_text()  # drawn as a table, not as pipes
    link = second.locator("a.answer-link")
    assert link.get_attribute("href") == f"/portfolios/{portfolio.pk}/"
    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in ((1440, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(ARTIFACTS / f"chat-composed-answers-{width}.png"), full_page=True)
        # The table scrolls sideways on a phone: each heading and ticker keeps its words whole. The
        # first column had been squeezed to one letter a line ("T i c k e r").
        column = page.locator("table.answer-table").first.locator("th").first.bounding_box()  # "Ticker"
        assert column is not None and column["width"] > 60, (width, column)  # "Ticker" alone is ~45 px
    link.click()
    page.wait_for_url(f"**/portfolios/{portfolio.pk}/")
