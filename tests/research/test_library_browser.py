"""Browser: the document library on a phone (390×844) never scrolls sideways — neither the page nor
the table — and each document's title, status and delete action are on screen; on a desktop
(1440×900) it stays a table. Documents in every state, one with a long title and a long file name,
and the empty library. Screenshots under test-artifacts/library/."""

from __future__ import annotations

from typing import Any

import pytest

from research.models import Document
from research.services import UploadFile, document_ingest, document_upload
from tests.conftest import ARTIFACTS, browser_login

pytestmark = [pytest.mark.browser]

OUT = ARTIFACTS / "library"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
LONG_TITLE = (
    "Minutes of the Monetary Policy Committee Meeting held on 5th to 7th February 2025 under Section 45ZL "
    "of the Reserve Bank of India Act, 1934"
)
LONG_FILE = "rbi_monetary_policy_committee_minutes_february_2025_meeting_resolution_final.txt"

# Widths of what scrolls sideways: the page, and the table (which may scroll inside itself).
OVERFLOW = """() => {
  const doc = document.documentElement, table = document.querySelector("#documents");
  const boxes = table ? [table, table.closest(".table-wrap")] : [];
  const sideways = boxes.map(b => b.scrollWidth - b.clientWidth);
  return {page: doc.scrollWidth - window.innerWidth, table: Math.max(0, ...sideways)};
}"""


def _upload(owner: Any, name: str, title: str, text: str) -> Document:
    result = document_upload(user=owner, files=[UploadFile(name=name, data=text.encode())], title=title)
    return result.created[0]


def _library(owner: Any) -> list[Document]:
    """Ready, waiting and failed documents; the first has the long title and file name."""
    ready = _upload(owner, LONG_FILE, LONG_TITLE, "The committee kept the policy repo rate at 6.50 per cent.")
    assert document_ingest(document_id=ready.pk).status == Document.Status.DONE
    short = _upload(owner, "note.md", "Desk note", "# Desk note\n\nInflation eased to 4.3 per cent in March.")
    assert document_ingest(document_id=short.pk).status == Document.Status.DONE
    waiting = _upload(owner, "queue.txt", "Annual report 2023-24", "Waiting for the worker.")
    failed = _upload(owner, "broken.txt", "Scanned circular", "No text layer.")
    Document.objects.filter(pk=failed.pk).update(
        status=Document.Status.FAILED, progress=100, error="The file has no extractable text (a scanned image?)."
    )
    return [ready, short, waiting, failed]


def _on_screen(page: Any, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]


def test_the_library_fits_a_phone_without_sideways_scrolling(page: Any, live_server: Any, analyst: Any) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    browser_login(page, live_server, analyst.email)
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server.url}/research/#library")
    assert page.locator("#library-list .empty").inner_text().startswith("The document library is empty")
    page.locator("#library").screenshot(path=str(OUT / "library-empty-1440.png"))
    page.set_viewport_size(PHONE)
    page.reload()
    assert page.evaluate(OVERFLOW) == {"page": 0, "table": 0}
    page.screenshot(path=str(OUT / "library-empty-390.png"), full_page=True)

    docs = _library(analyst)
    page.reload()
    page.wait_for_selector("#documents")
    page.locator("#library").screenshot(path=str(OUT / "library-390.png"))
    page.screenshot(path=str(OUT / "library-page-390.png"), full_page=True)
    assert page.evaluate(OVERFLOW) == {"page": 0, "table": 0}
    for doc in docs:
        row = f'#documents tr[data-document="{doc.pk}"]'
        assert _on_screen(page, f"{row} .doc-title"), doc.title
        assert _on_screen(page, f"{row} .doc-status"), doc.title
        assert _on_screen(page, f'{row} [data-testid="delete"]'), doc.title
    assert page.locator(f'tr[data-document="{docs[0].pk}"] .doc-title').inner_text().startswith(LONG_TITLE[:40])
    assert page.locator(f'tr[data-document="{docs[3].pk}"] .doc-status').inner_text().startswith("failed")

    page.set_viewport_size(DESKTOP)
    page.reload()
    page.wait_for_selector("#documents")
    assert page.evaluate(OVERFLOW) == {"page": 0, "table": 0}
    headers = page.locator("#documents thead th").all_inner_texts()
    assert headers[:7] == ["Title", "Type", "Issuer", "Date", "Status", "Pages", "Passages"]
    page.locator("#library").screenshot(path=str(OUT / "library-1440.png"))
    page.goto(f"{live_server.url}/research/?lib-status=processing#library")
    page.wait_for_selector("#library-list .empty")
    page.locator("#library").screenshot(path=str(OUT / "library-no-match-1440.png"))
