"""A filing's company, form, fiscal period and filing date, read from its cover page.

Expected values were read by hand from each PDF's cover (page 1: "FORM 10-Q … For the quarterly
period ended July 1, 2023 … Apple Inc. (Exact name of Registrant …)"), its signature page
("Date: August 3, 2023", checked with pypdf) and, for earnings releases, the dateline and title
("Costco Wholesale Corporation Reports Third Quarter … Fiscal 2023 … May 25, 2023"). A period's
start is stated as estimated: the cover gives only its end (and, for Costco, "(twelve weeks)").
All 20 filings of the team's shared set (absent from the checkout and CI) are checked the same way
by the filings benchmark (bench/_filings_covers.py, ``make bench``).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from research.ingest.parsers import pdf_texts
from research.ingest.proposals import propose
from research.packs.filings.cover import EARNINGS_RELEASE, detect_filing, proper_case, structured_name
from tests.research.pdfs import ACTIVISION_10K, APPLE_10Q, COSTCO_Q3_RELEASE, EBAY_8K, EBAY_Q1_RELEASE

D = dt.date
ROOT = Path(__file__).resolve().parents[2]
MPC_MINUTES = ROOT / "data" / "rbi" / "mpc-minutes"

# file: (company, form, period start, period end, fiscal period, filed or issued)
SHIPPED = {
    APPLE_10Q: ("Apple Inc.", "10-Q", D(2023, 4, 2), D(2023, 7, 1), "Q3 FY2023", D(2023, 8, 3)),
    EBAY_8K: ("eBay Inc.", "8-K", None, None, "", D(2023, 2, 7)),
    ACTIVISION_10K: ("Activision Blizzard, Inc.", "10-K", D(2018, 1, 1), D(2018, 12, 31), "FY2018", D(2019, 2, 28)),
    EBAY_Q1_RELEASE: ("eBay Inc.", EARNINGS_RELEASE, D(2023, 1, 1), D(2023, 3, 31), "Q1 FY2023", D(2023, 4, 26)),
    COSTCO_Q3_RELEASE: (
        "Costco Wholesale Corporation",
        EARNINGS_RELEASE,
        D(2023, 2, 13),  # twelve weeks ending 7 May 2023
        D(2023, 5, 7),
        "Q3 FY2023",
        D(2023, 5, 25),
    ),
}


def _detected(path: Path, name: str | None = None) -> tuple[object, ...]:
    meta = detect_filing(pdf_texts(path.read_bytes()), name if name is not None else path.name)
    return (meta.issuer, meta.form_type, meta.period_start, meta.period_end, meta.fiscal_period, meta.filed)


@pytest.mark.parametrize("path", list(SHIPPED), ids=lambda p: p.stem)
def test_the_cover_of_each_shipped_filing_gives_company_form_period_and_date(path: Path) -> None:
    assert _detected(path) == SHIPPED[path]


def test_the_cover_is_read_without_a_structured_file_name() -> None:
    # The same answers for "scan.pdf": the file name is a fallback, not the source.
    assert _detected(APPLE_10Q, "scan.pdf") == SHIPPED[APPLE_10Q]
    assert _detected(COSTCO_Q3_RELEASE, "release (1).pdf") == SHIPPED[COSTCO_Q3_RELEASE]


def test_the_proposal_says_where_each_field_was_read() -> None:
    proposal = propose("pdf", APPLE_10Q.read_bytes(), APPLE_10Q.name)
    assert proposal.as_dict() == {
        "issuer": "Apple Inc.",
        "doc_type": "10-Q",
        "fiscal_period": "Q3 FY2023",
        "period_start": "2023-04-02",
        "period_end": "2023-07-01",
        "doc_date": "2023-08-03",
        "sources": {
            "issuer": "cover page",
            "doc_type": "cover page",
            "fiscal_period": "cover page",  # the footer "Apple Inc. | Q3 2023 Form 10-Q | 1"
            "period_start": "estimated from the period's end",
            "period_end": "cover page",
            "doc_date": "signature page",
        },
    }


def test_a_document_that_is_not_a_filing_proposes_nothing() -> None:
    minutes = sorted(MPC_MINUTES.glob("*.pdf"))[0]
    proposal = propose("pdf", minutes.read_bytes(), minutes.name)
    assert proposal.as_dict() == {
        "issuer": None,
        "doc_type": None,
        "fiscal_period": None,
        "period_start": None,
        "period_end": None,
        "doc_date": None,
        "sources": {},
    }
    assert propose("markdown", b"# Our note\n\nCredit growth is 14 per cent.", "note.md").as_dict()["sources"] == {}


def test_a_clearly_structured_file_name_fills_only_what_the_text_does_not_say() -> None:
    assert structured_name("APPLE_2023Q3_10Q.pdf") == {"company": "Apple", "year": 2023, "quarter": 3, "form": "10-Q"}
    assert structured_name("COSTCO_2023Q1_EARNINGS.pdf") == {
        "company": "Costco",
        "year": 2023,
        "quarter": 1,
        "form": EARNINGS_RELEASE,
    }
    assert structured_name("ACTIVISIONBLIZZARD_2018_10K.pdf")["quarter"] == 0  # type: ignore[index]
    for unstructured in ("reserve_bank_of_india_06-08-2024.pdf", "minutes.pdf", "Q3 note.md", "10K.pdf"):
        assert structured_name(unstructured) is None
    plain = propose("text", b"Management notes on the quarter.\n", "ACME_2023Q3_10Q.txt")
    assert (plain.issuer, plain.doc_type, plain.fiscal_period) == ("Acme", "10-Q", "Q3 FY2023")
    assert plain.sources == {"issuer": "file name", "doc_type": "file name", "fiscal_period": "file name"}


def test_a_name_in_capitals_is_written_as_the_document_writes_it() -> None:
    assert proper_case("ADOBE INC.", "… the Board of Adobe Inc. approved …") == "Adobe Inc."
    assert proper_case("THE AES CORPORATION", "no other mention") == "The AES Corporation"
    assert proper_case("eBay Inc.", "") == "eBay Inc."


def test_an_html_filing_cover_of_another_company_is_read_the_same_way() -> None:
    """A made-up registrant in EDGAR's HTML layout: nothing in the reader knows a company."""
    cover = b"""<html><body>
    <p>UNITED STATES</p><p>SECURITIES AND EXCHANGE COMMISSION</p><p>Washington, D.C. 20549</p>
    <p><b>FORM 10-K</b></p>
    <p>&#9746; ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934</p>
    <p>For the fiscal year ended September&nbsp;30, 2024</p>
    <table><tr><td>NORTHWIND TRADERS HOLDINGS, INC.</td></tr>
    <tr><td>(Exact name of registrant as specified in its charter)</td></tr></table>
    <p>Northwind Traders Holdings, Inc. sells tea.</p>
    <h2>SIGNATURES</h2>
    <p>Pursuant to the requirements of Section 13 or 15(d) of the Securities Exchange Act of 1934, the
    registrant has duly caused this report to be signed on its behalf by the undersigned.</p>
    <p>Date: November 14, 2024</p>
    </body></html>"""
    proposal = propose("html", cover, "10k.html")
    assert proposal.as_dict() == {
        "issuer": "Northwind Traders Holdings, Inc.",
        "doc_type": "10-K",
        "fiscal_period": "FY2024",
        "period_start": "2023-10-01",
        "period_end": "2024-09-30",
        "doc_date": "2024-11-14",
        "sources": {
            "issuer": "cover page",
            "doc_type": "cover page",
            "fiscal_period": "cover page",
            "period_start": "estimated from the period's end",
            "period_end": "cover page",
            "doc_date": "signature page",
        },
    }
