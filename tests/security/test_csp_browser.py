"""Real Chromium under the Content-Security-Policy: the pages still work (charts draw, the
confirm dialog and token selection run from static/js/app.js, Swagger UI starts) and the browser
reports no policy violation."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import ARTIFACTS, browser_login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _watch_violations(page: Any) -> list[str]:
    seen: list[str] = []
    page.on("console", lambda m: seen.append(m.text) if "Content Security Policy" in m.text else None)
    return seen


def test_pages_work_under_the_policy(page: Any, live_server: Any, admin_user: Any) -> None:
    violations = _watch_violations(page)
    browser_login(page, live_server, admin_user.email)
    page.goto(f"{live_server.url}/portfolios/tickers/INFY.NS/")
    page.wait_for_selector("[data-testid=price-chart][data-rendered=true] canvas")

    page.goto(f"{live_server.url}/settings/")
    page.fill("#id_name", "csp check")
    page.click("#tokens button[type=submit]")
    page.click("[data-testid=new-token]")  # data-select-on-click selects the whole token
    selected = page.evaluate(
        "() => window.getSelection().toString() || document.activeElement.value.substring("
        "document.activeElement.selectionStart, document.activeElement.selectionEnd)"
    )
    assert selected.startswith("adk_")
    dialogs: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.click("tr[data-token] button.danger")
    assert dialogs and dialogs[0].startswith("Revoke csp check?")
    assert page.locator("tr[data-token] .pill.ok").count() == 1  # dismissed: still active

    page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".swagger-ui .info .title")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "csp-swagger.png"))
    assert violations == []


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
def test_settings_page_with_token_expiry_at_both_sizes(
    browser: Any, live_server: Any, analyst: Any, width: int, height: int
) -> None:
    """The one page whose look changed (the token table's Expires column and the expiry note)."""
    from core.services import api_token_create

    api_token_create(user=analyst, name="Excel add-in")
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        browser_login(page, live_server, analyst.email)
        page.goto(f"{live_server.url}/settings/")
        assert page.locator("#tokens th", has_text="Expires").count() == 1
        assert "Tokens expire after 90 days" in page.inner_text("#tokens")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"settings-tokens-{width}x{height}.png"), full_page=True)
    finally:
        context.close()
