"""Browser: upload two filings from the library page, land on their details read from the covers,
correct one, see a bad date refused with what was typed kept, confirm, and find the details in the
library and on the document page. Screenshots at 1440×900 and 390×844 under
test-artifacts/filing-details/."""

from __future__ import annotations

from typing import Any

import pytest

from research.models import Document
from research.services import document_ingest
from tests.conftest import ARTIFACTS, browser_login
from tests.research.pdfs import APPLE_10Q, COSTCO_Q3_RELEASE

pytestmark = [pytest.mark.browser]


def _no_horizontal_overflow(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def _shoot(page: Any, name: str) -> None:
    out = ARTIFACTS / "filing-details"
    out.mkdir(parents=True, exist_ok=True)
    for width, height in ((1440, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        assert _no_horizontal_overflow(page), f"{name} overflows at {width}px"
        page.screenshot(path=str(out / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1440, "height": 900})


def test_upload_confirm_and_correct_filing_details(page: Any, live_server: Any, analyst: Any) -> None:
    browser_login(page, live_server, analyst.email)
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{live_server.url}/research/")
    page.set_input_files('#library input[name="files"]', [str(APPLE_10Q), str(COSTCO_Q3_RELEASE)])
    page.click('#library button[type="submit"]')
    page.wait_for_selector(".details-form")
    apple = Document.objects.get(filename=APPLE_10Q.name)
    costco = Document.objects.get(filename=COSTCO_Q3_RELEASE.name)
    a, c = f"#id_d{apple.pk}", f"#id_d{costco.pk}"
    # As read by hand from the covers.
    assert page.input_value(f"{a}-issuer") == "Apple Inc." and page.input_value(f"{a}-doc_type") == "10-Q"
    assert page.input_value(f"{a}-fiscal_period") == "Q3 FY2023" and page.input_value(f"{a}-period_end") == "2023-07-01"
    assert page.input_value(f"{c}-issuer") == "Costco Wholesale Corporation"
    assert page.locator(f"{c}-doc_type option:checked").inner_text() == "Earnings release"
    assert page.input_value(f"{c}-doc_date") == "2023-05-25"
    assert page.locator(f"{a}-doc_date-hint").inner_text() == "Read from the signature page"
    _shoot(page, "proposed")

    # A period that ends before it starts is refused; what was typed stays on the page.
    page.fill(f"{a}-period_start", "2023-07-01")
    page.fill(f"{a}-period_end", "2023-04-02")
    page.fill(f"{c}-title", "Costco Q3 FY2023 earnings release")
    page.click('[data-testid="confirm-details"]')
    page.wait_for_selector(".details-field.has-error")
    assert "The period cannot end before it starts." in page.locator(".details-field.has-error").inner_text()
    assert "Nothing was saved" in page.locator('[data-testid="details-invalid"]').inner_text()
    assert page.input_value(f"{c}-title") == "Costco Q3 FY2023 earnings release"
    costco.refresh_from_db()
    assert costco.title == "COSTCO 2023Q3 EARNINGS"  # nothing written
    _shoot(page, "refused")

    page.fill(f"{a}-period_start", "2023-04-02")
    page.fill(f"{a}-period_end", "2023-07-01")
    page.click('[data-testid="confirm-details"]')
    page.wait_for_selector("#library")
    assert "Details saved" in page.locator("#messages").inner_text()
    costco.refresh_from_db()
    assert costco.title == "Costco Q3 FY2023 earnings release"
    for document in (apple, costco):
        assert document_ingest(document_id=document.pk).status == Document.Status.DONE
    page.reload()
    row = page.locator(f'tr[data-document="{apple.pk}"]')
    assert "10-Q" in row.inner_text() and "Q3 FY2023" in row.inner_text() and "Apple Inc." in row.inner_text()
    _shoot(page, "library")
    page.goto(f"{live_server.url}/research/documents/{costco.pk}/")
    header = page.locator("main p.muted").first.inner_text()
    assert "Costco Wholesale Corporation" in header and "Earnings release" in header and "Q3 FY2023" in header
    page.click('[data-testid="edit-details"]')
    page.wait_for_selector(".details-form")
    assert page.input_value(f"{c}-title") == "Costco Q3 FY2023 earnings release"
    assert page.locator("h1").inner_text() == "Edit the details"  # not an upload's confirmation any more
    _shoot(page, "edit")
