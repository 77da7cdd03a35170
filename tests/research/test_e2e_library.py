"""Browser: upload a PDF, watch progress reach done on its details page, confirm them, search,
open a citation at its page."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import browser_login
from tests.research.conftest import MPC_AUG_2024

pytestmark = [pytest.mark.browser, pytest.mark.worker]


def test_upload_progress_search_and_open_citation(
    page: Any, live_server: Any, celery_worker: Any, analyst: Any
) -> None:
    browser_login(page, live_server, analyst.email)
    page.goto(f"{live_server.url}/research/")
    page.set_input_files('input[name="files"]', str(MPC_AUG_2024))
    page.fill('#library input[name="title"]', "MPC Minutes August 2024")
    page.fill('#library input[name="doc_type"]', "mpc_minutes")
    page.click('#library button[type="submit"]')
    assert "uploaded; ingestion has started" in page.locator("#messages").inner_text()

    # HTMX polls the status partial until the worker is done (progress bar, then "ready").
    status = page.locator(".doc-status").first
    status.wait_for()
    page.wait_for_selector('.doc-status[data-status="done"]', timeout=180_000)
    assert "ready" in page.locator(".doc-status").first.inner_text()
    # The upload lands on its details, read from the file; confirming returns to the library.
    assert "/research/documents/details/" in page.url
    assert page.input_value('input[name$="-title"]') == "MPC Minutes August 2024"
    page.click('[data-testid="confirm-details"]')
    page.wait_for_selector("#search")

    page.fill('#search input[name="q"]', "CPI inflation projected for 2024-25")
    page.click('#search button[type="submit"]')
    page.wait_for_selector("#search-results .passage")
    citations = page.locator("#search-results .citation").all_inner_texts()
    assert "MPC Minutes August 2024, p. 3" in citations[:3]
    assert page.locator("#search-results mark").count() > 0
    assert page.locator("#search-results .rank-badges").first.inner_text().count("#") >= 1

    page.locator("#search-results .citation", has_text="p. 3").first.click()
    page.wait_for_selector(".chunk.target")
    assert "/research/documents/" in page.url and "page=3" in page.url
    target = page.locator(".chunk.target")
    assert target.is_visible()
    assert page.locator(".doc-page.current").get_attribute("data-page-label") == "3"
    assert "4.5 per cent" in page.locator(".doc-page.current").inner_text()
