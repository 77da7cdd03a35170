"""Real Chromium: create a three-ticker portfolio, see its charts render, edit a weight, see the numbers change."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.formatting import percent
from tests.conftest import ARTIFACTS, browser_login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_create_portfolio_see_charts_edit_weight(page: Any, live_server: Any, analyst: Any) -> None:
    browser_login(page, live_server, analyst.email)
    page.goto(f"{live_server.url}/portfolios/new/")
    page.fill("#id_name", "Three names")
    page.fill("#id_holdings", "RELIANCE 0.5\nINFY.NS 0.3\nhdfcbank 0.2")
    page.click("[data-testid=portfolio-form] button[type=submit]")
    page.wait_for_url(f"{live_server.url}/portfolios/*/")
    # uPlot draws into a canvas inside each chart container.
    for chart in ("growth-chart", "drawdown-chart"):
        page.wait_for_selector(f"[data-testid={chart}][data-rendered=true] canvas")
    assert "^NSEI" in page.inner_text("[data-testid=growth-chart]")  # benchmark series in the legend
    # The drawdown legend shows the latest drawdown as the portal prints a percent (Python's formatter).
    drawdowns = json.loads(page.eval_on_selector("#portfolio-data", "e => e.textContent"))["drawdown"]
    legend = page.inner_text("[data-testid=drawdown-chart] .u-legend .u-series:nth-child(2) .u-value")
    assert drawdowns[-1] < 0 and legend == percent(drawdowns[-1]), (legend, drawdowns[-1])
    assert page.locator("[data-testid=allocation] li").count() == 3
    assert "snapshot" in page.inner_text("[data-testid=source]")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "portfolio-charts.png"), full_page=True)
    before = page.inner_text("[data-testid=annual-return]")
    assert page.inner_text("tr[data-symbol='RELIANCE.NS'] [data-testid=weight]") == "50.00%"

    page.click("text=Edit")
    page.fill("#id_holdings", "RELIANCE.NS 0.2\nINFY.NS 0.3\nHDFCBANK.NS 0.5")
    page.click("[data-testid=portfolio-form] button[type=submit]")
    page.wait_for_selector("text=Portfolio saved.")
    page.wait_for_selector("[data-testid=growth-chart][data-rendered=true] canvas")
    assert page.inner_text("tr[data-symbol='RELIANCE.NS'] [data-testid=weight]") == "20.00%"
    assert page.inner_text("[data-testid=annual-return]") != before

    # A bad edit shows the message and keeps the saved weights.
    page.click("text=Edit")
    page.fill("#id_holdings", "RELIANCE.NS 0.7\nINFY.NS 0.7")
    page.click("[data-testid=portfolio-form] button[type=submit]")
    assert "add up to 1.4" in page.inner_text("[data-testid=error-holdings]")
    page.goto(page.url.replace("/edit/", "/"))
    assert page.inner_text("tr[data-symbol='RELIANCE.NS'] [data-testid=weight]") == "20.00%"


def test_ticker_page_range_selector_redraws_chart(page: Any, live_server: Any, analyst: Any) -> None:
    browser_login(page, live_server, analyst.email)
    page.goto(f"{live_server.url}/portfolios/tickers/INFY.NS/")
    page.wait_for_selector("[data-testid=price-chart][data-rendered=true] canvas")
    assert "1Y" in page.inner_text("#price-chart .ranges a.active")
    page.click("#price-chart .ranges a:text('1M')")
    page.wait_for_url("**/?range=1M")
    page.wait_for_selector("#price-chart .ranges a.active:text('1M')")
    page.wait_for_selector("[data-testid=price-chart][data-rendered=true] canvas")
    bars = int(page.inner_text("#price-chart p.muted").split()[3])
    assert 15 <= bars <= 25  # about a month of trading days
    assert "30 Sep 2025" in page.inner_text("[data-testid=source]")
