"""Browser: a filing's citation names the printed page and the PDF page, and opens the PDF page.
Screenshots at 1440×900 and 390×844 under test-artifacts/filings/."""

from __future__ import annotations

from typing import Any

import pytest

from research.models import Document
from research.services import UploadFile, document_ingest, document_upload
from tests.conftest import ARTIFACTS, browser_login
from tests.research.pdfs import APPLE_10Q

pytestmark = [pytest.mark.browser]


def _no_horizontal_overflow(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_citation_opens_the_pdf_page_of_a_printed_page(page: Any, live_server: Any, analyst: Any) -> None:
    uploaded = document_upload(
        user=analyst, files=[UploadFile(name=APPLE_10Q.name, data=APPLE_10Q.read_bytes())], title="Apple 10-Q Q3 2023"
    )
    assert document_ingest(document_id=uploaded.created[0].pk).status == Document.Status.DONE
    out = ARTIFACTS / "filings"
    out.mkdir(parents=True, exist_ok=True)
    browser_login(page, live_server, analyst.email)
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{live_server.url}/research/?q=Total+net+sales+cost+of+sales+gross+margin")
    page.wait_for_selector("#search-results .passage")
    # By hand: the statements of operations are printed page 1, the 4th page of the PDF.
    citation = page.locator("#search-results .citation", has_text="p. 1 (PDF p. 4)").first
    assert citation.inner_text().startswith("Apple 10-Q Q3 2023, p. 1 (PDF p. 4)")
    page.screenshot(path=str(out / "search-1440.png"), full_page=True)
    citation.click()
    page.wait_for_selector(".chunk.target")
    assert "page=4" in page.url
    current = page.locator(".doc-page.current")
    assert current.get_attribute("data-page") == "4" and current.get_attribute("data-page-label") == "1"
    assert current.locator("h2").inner_text() == "Page 1 (PDF page 4)"
    assert "Total net sales" in current.inner_text()
    assert page.locator("#page-jump option:checked").inner_text() == "1 (PDF page 4)"
    page.screenshot(path=str(out / "viewer-1440.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    page.wait_for_selector(".chunk.target")
    assert _no_horizontal_overflow(page)
    page.screenshot(path=str(out / "viewer-390.png"), full_page=True)
    page.goto(f"{live_server.url}/research/?q=Total+net+sales+cost+of+sales+gross+margin")
    page.wait_for_selector("#search-results .passage")
    assert _no_horizontal_overflow(page)
    page.screenshot(path=str(out / "search-390.png"), full_page=True)
