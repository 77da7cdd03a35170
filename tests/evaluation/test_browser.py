"""Browser: start a run from the page, watch its progress, open a case's trace from the dashboard;
screenshots of every evaluation page at 1440×900 and 390×844. Real Chromium, live server, real
Celery worker (the run executes there)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import ARTIFACTS, browser_login

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.timeout(240)]
VIEWPORTS = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}


def _shoot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for label, size in VIEWPORTS.items():
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        page.screenshot(path=str(ARTIFACTS / f"evaluation-{name}-{label}.png"), full_page=True)
    page.set_viewport_size(VIEWPORTS["desktop"])


def test_start_a_run_watch_progress_and_open_a_case_trace(
    page: Any, live_server: Any, celery_worker: Any, analyst: Any
) -> None:
    browser_login(page, live_server, analyst.email)
    page.set_viewport_size(VIEWPORTS["desktop"])
    page.goto(f"{live_server.url}/evaluation/")
    _shoot(page, "empty")
    page.select_option('[data-testid="suite"]', "research")
    page.select_option('[data-testid="tag"]', "portfolio")
    page.click('[data-testid="run-button"]')
    page.wait_for_url("**/evaluation/runs/*/")
    # The progress panel polls the run until the worker has finished it, then the page reloads.
    progress = page.locator('[data-testid="progress"]')
    assert progress.get_attribute("data-status") in {"queued", "running", "done"}
    page.wait_for_selector('[data-testid="progress"][data-status="done"]', timeout=120_000)
    page.wait_for_selector('[data-testid="cases"]')
    # Two tool cases and the golden set's three portfolio cases (each asked by a user owning the portfolio).
    assert "5 of 5 cases passed" in progress.inner_text()
    _shoot(page, "run")

    page.goto(f"{live_server.url}/evaluation/")
    board = page.locator('[data-testid="board"]')
    assert "Numeric claims verified" in board.inner_text()
    assert board.locator('tr[data-metric="numeric_claims_verified"] .pill.ok').count() == 1
    page.wait_for_selector("#trend-answer_correctness .uplot")  # the trend chart drew
    _shoot(page, "dashboard")

    page.locator('[data-testid="runs"] a').first.click()
    page.locator('[data-testid="case-link"]').first.click()
    page.wait_for_url("**/evaluation/cases/*/")
    trace = page.locator('[data-testid="trace"]')
    nodes = trace.locator("tr[data-node]").evaluate_all("els => els.map(e => e.dataset.node)")
    assert nodes[:3] == ["memory_resolver", "planner", "portfolio_analyzer"] and "final_answer" in nodes
    assert "%" in page.locator('[data-testid="answer"]').first.inner_text()
    _shoot(page, "case")


def test_filters_and_diff_pages(page: Any, live_server: Any, analyst: Any, transactional_db: Any) -> None:
    from evaluation.runner import execute
    from evaluation.services import eval_run_start

    first = eval_run_start(user=analyst, suite="calculator", tags=["percent"], trigger="command")
    execute(first.pk)
    second = eval_run_start(user=analyst, suite="calculator", tags=["percent", "million"], trigger="command")
    execute(second.pk)
    first.refresh_from_db()
    second.refresh_from_db()
    browser_login(page, live_server, analyst.email)
    page.goto(f"{live_server.url}/evaluation/runs/{second.pk}/")
    page.select_option('select[name="outcome"]', "fail")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=cases] tbody tr')].every(r => r.dataset.outcome === 'fail')"
    )
    assert page.locator('[data-testid="cases"] tbody tr').count() >= 1
    _shoot(page, "run-filtered")
    page.goto(f"{live_server.url}/evaluation/diff/?base={first.pk}&head={second.pk}")
    changed = page.locator('[data-testid="changed"] tbody tr')
    assert changed.count() == second.total - first.total  # the million-scale cases are new ("absent" before)
    _shoot(page, "diff")
    page.goto(f"{live_server.url}/evaluation/?suite=calculator")
    assert page.locator('[data-testid="runs"] tbody tr').count() == 2
