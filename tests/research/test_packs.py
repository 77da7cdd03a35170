"""Which corpus pack reads a document is told by the document itself: its first pages' text and the
type and issuer read from it at upload, never its file name alone. Checked on the shipped minutes,
annual report and filings (their text only, no metadata), on notes written here, and through the
real ingest."""

from __future__ import annotations

import lzma
from pathlib import Path
from typing import Any

import pytest

from research.ingest.pages import parse_pages
from research.ingest.parsers import parse_pdf
from research.packs import registry
from tests.research.conftest import MPC_AUG_2024, ingest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "data" / "rbi" / "pages").glob("*.pages.json.xz"))
FILINGS = sorted((ROOT / "data" / "filings").glob("*.pdf"))


def _first_pages(pages: list[Any], n: int = 3) -> str:
    return "\n".join(p.text for page in pages[:n] for p in page.paragraphs)


def test_every_shipped_minutes_and_report_is_read_by_the_central_bank_pack_from_its_text() -> None:
    assert len(PAGES) >= 40
    packs = {path.name: registry.recognise(_first_pages(parse_pages(path.read_bytes()))) for path in PAGES}
    assert set(packs.values()) == {"central_bank"}, {k: v for k, v in packs.items() if v != "central_bank"}


def test_every_shipped_filing_is_read_by_the_filings_pack_from_its_cover_text() -> None:
    assert len(FILINGS) >= 10
    packs = {path.name: registry.recognise(_first_pages(parse_pdf(path.read_bytes()))) for path in FILINGS}
    assert set(packs.values()) == {"filings"}, packs


@pytest.mark.parametrize(
    ("text", "doc_type", "issuer", "pack"),
    [
        # Another central bank's minutes, in its own words (written here, not taken from a corpus).
        (
            "Minutes of the Monetary Policy Meeting. The Policy Board decided by a 7-2 majority vote to keep "
            "the short-term policy interest rate at minus 0.1 percent. Inflation is expected to rise.",
            "",
            "",
            "central_bank",
        ),
        # An analyst's note that mentions a rate and inflation once is no central bank's minutes.
        ("My notes on INFY: margins held up; inflation is a risk to wage costs. Target price 1,900.", "", "", ""),
        ("Team offsite agenda. Board games on Friday.", "", "", ""),
        # A filing told by its form type read at upload, whatever its text.
        ("Quarterly figures attached.", "10-Q", "", "filings"),
        # A type read from a file name is not a filing's form: nothing claims the text.
        ("Quarterly figures attached.", "quarterly_figures", "", ""),
    ],
)
def test_the_pack_is_told_from_the_text_and_the_read_metadata(text: str, doc_type: str, issuer: str, pack: str) -> None:
    assert registry.recognise(text, doc_type=doc_type, issuer=issuer) == pack


def test_registry_keeps_the_packs_metrics_in_order_and_the_fiscal_calendar() -> None:
    keys = [m.key for m in registry.METRICS]
    # "reverse repo" must be tried before "repo": the more specific name first.
    assert keys.index("reverse_repo") < keys.index("repo")
    assert registry.POLICY_RATE == "repo"
    assert registry.FISCAL_YEAR_START_MONTH == 4
    assert registry.pack_named("filings") is not None and registry.pack_named("nope") is None


@pytest.mark.django_db
def test_ingest_stores_the_pack_read_from_the_document_not_from_its_file_name(analyst: Any) -> None:
    minutes = ingest(analyst, "my-notes.pdf", MPC_AUG_2024.read_bytes())
    note = ingest(
        analyst,
        "reserve_bank_of_india_06-08-2024_minutes.md",
        b"# Lunch order\n\nTwo coffees and a sandwich for the desk on Friday.\n",
    )
    minutes.refresh_from_db()
    note.refresh_from_db()
    assert (minutes.pack, note.pack) == ("central_bank", "")


def test_the_pages_fixture_is_compressed_json() -> None:
    # The shipped pages are what the first test reads: a guard that they are the real files.
    assert lzma.decompress(PAGES[0].read_bytes())[:1] in (b"{", b"[")
