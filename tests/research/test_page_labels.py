"""Page labels that cannot mislead, on real SEC filings (data/filings) and on PDFs built here.

Every expected label below was read by hand from the PDF (pypdf's text of that page: the number
printed at its foot or head), never taken from the parser under test."""

from __future__ import annotations

import pytest

from research.ingest.parsers import Page, parse_pdf, strip_repeated_lines
from tests.research.pdfs import ACTIVISION_10K, APPLE_10Q, EBAY_8K, text_pdf


def _labels(pages: list[Page]) -> dict[int, str]:
    return {page.number: page.label for page in pages}


@pytest.fixture(scope="module")
def activision() -> dict[int, str]:
    return _labels(parse_pdf(ACTIVISION_10K.read_bytes()))


def test_printed_numbers_offset_from_the_pdf_pages(activision: dict[int, str]) -> None:
    # Activision Blizzard 10-K 2018: cover, cover continued and contents print no number; PDF p. 4
    # prints "2" at its foot, p. 84 "82" (Part III), p. 10 prints "8" in the middle of the page.
    assert {n: activision[n] for n in (1, 2, 3)} == {1: "1", 2: "2", 3: "3"}
    assert {n: activision[n] for n in (4, 5, 10, 84)} == {4: "2", 5: "3", 10: "8", 84: "82"}
    # The financial statements number their pages F-1… (the auditor's report on PDF p. 86) and the
    # exhibit index E-… (E-2 at the head of PDF p. 155, E-8 of p. 161).
    assert {n: activision[n] for n in (86, 87, 94, 155, 161)} == {
        86: "F-1",
        87: "F-2",
        94: "F-8",
        155: "E-2",
        161: "E-8",
    }


def test_an_exhibit_that_restarts_at_1_is_its_own_sequence(activision: dict[int, str]) -> None:
    # Exhibit 10.24 (an employment agreement) begins on PDF p. 256 and prints 1, 2, … 18 at the foot
    # of its pages (p. 266 is blank); Exhibit 10.28 prints 2, 3, 4 on PDF pp. 297-299.
    exhibit = {n: activision[n] for n in (256, 257, 264, 267, 273)}
    assert exhibit == {256: "1", 257: "2", 264: "9", 267: "12", 273: "18"}
    assert {n: activision[n] for n in (297, 298, 299)} == {297: "2", 298: "3", 299: "4"}
    # PDF p. 265 carries both printed 10 (mid-page) and 11: it is no single printed page, so it
    # keeps its PDF page; the exhibit after (10.26 on p. 274) prints no number.
    assert activision[265] == "265" and activision[274] == "274"
    # Page 255 prints "C-2" alone (no sequence around it): the PDF page, not a guess.
    assert activision[255] == "255"


def test_footer_numbers_after_the_cover_pages() -> None:
    # Apple 10-Q Q3 2023 (encrypted, empty user password): PDF pp. 1-3 (cover, contents) print no
    # number; the footer "Apple Inc. | Q3 2023 Form 10-Q | 1" starts on PDF p. 4 and ends with 23
    # on the signature page (p. 26); the certifications (pp. 27-29) print none.
    labels = _labels(parse_pdf(APPLE_10Q.read_bytes()))
    expected = {1: "1", 2: "2", 3: "3", 4: "1", 5: "2", 8: "5", 26: "23", 27: "27", 29: "29"}
    assert {n: labels[n] for n in expected} == expected


def test_a_filing_without_printed_numbers_keeps_its_pdf_pages() -> None:
    # eBay 8-K of 7 Feb 2023 (encrypted, empty user password): no page prints a number.
    pages = parse_pdf(EBAY_8K.read_bytes())
    assert [(p.number, p.label) for p in pages] == [(1, "1"), (2, "2"), (3, "3")]
    assert "Jamie Iannone, Chief Executive Officer of eBay Inc." in " ".join(x.text for x in pages[1].paragraphs)


def test_footnote_digits_never_become_page_numbers() -> None:
    # No page numbers; footnote marks numbered through the document sit at the foot of each page,
    # so "2" on p. 1, "3" on p. 2, "4" on p. 3 line up one ahead of the pages.
    bodies = [
        "Net revenues rose in the quarter.",
        "Operating margin narrowed slightly.",
        "Cash flow from operations improved.",
        "The board declared a dividend.",
        "Guidance for the year is unchanged.",
    ]
    marks = [["1", "2"], ["3"], ["4", "5"], ["6"], ["7", "8"]]
    data = text_pdf([[body, "See the notes below.", *mark] for body, mark in zip(bodies, marks, strict=True)])
    assert [(p.number, p.label) for p in parse_pdf(data)] == [(n, str(n)) for n in range(1, 6)]
    # Footnotes restarting at 1 on every page are no sequence either.
    restarting = text_pdf([[body, "1"] for body in bodies])
    assert [p.label for p in parse_pdf(restarting)] == ["1", "2", "3", "4", "5"]


def test_printed_numbers_found_by_sequence_not_by_position() -> None:
    # A running header above the number, a table cell "7" at the foot of one page, and a page whose
    # number sits mid-page: the sequence decides.
    pages = [
        Page(number=1, lines=["Quarterly report", "Cover page text."]),
        Page(number=2, lines=["Quarterly report", "1", "Revenue grew.", "Units 7"]),
        Page(number=3, lines=["Quarterly report", "2", "Costs fell.", "7"]),
        Page(number=4, lines=["Quarterly report", "Margins rose.", "Table follows.", "3", "Totals", "Notes", "End"]),
        Page(number=5, lines=["Quarterly report", "4", "Outlook held."]),
        Page(number=6, lines=["Quarterly report", "5", "Dividend kept."]),
    ]
    strip_repeated_lines(pages)
    assert [p.label for p in pages] == ["1", "1", "2", "3", "4", "5"]
    assert pages[3].lines == ["Margins rose.", "Table follows.", "Totals", "Notes", "End"]  # its "3" is taken out
    assert pages[2].lines == ["Costs fell.", "7"]  # a table cell stays


def test_the_pdfs_own_page_labels_win() -> None:
    # Front matter in roman numerals, then the body from 1, as /PageLabels; the body's printed
    # numbers (5, 6) would say otherwise, and the labels are the PDF's word.
    data = text_pdf(
        [["Contents", "ii"], ["Foreword by the chair.", "iii"], ["Results of the year.", "5"], ["Outlook.", "6"]],
        page_labels=[(0, 1, {"style": "/r", "start": 2}), (2, 3, {"style": "/D", "start": 1})],  # roman, decimal
    )
    pages = parse_pdf(data)
    assert [(p.number, p.label) for p in pages] == [(1, "ii"), (2, "iii"), (3, "1"), (4, "2")]
    text = [" ".join(x.text for x in p.paragraphs) for p in pages]
    assert text[:2] == ["Contents", "Foreword by the chair."]  # the printed "ii", "iii" are taken out
    assert text[2].endswith("5")  # a number that is not the label stays in the text


def test_page_labels_added_to_a_real_filing() -> None:
    import io

    import pypdf
    from pypdf.constants import PageLabelStyle

    writer = pypdf.PdfWriter(clone_from=io.BytesIO(EBAY_8K.read_bytes()))
    writer.set_page_label(0, 0, style=PageLabelStyle.LOWERCASE_ROMAN)
    writer.set_page_label(1, 2, style=PageLabelStyle.DECIMAL, prefix="A-", start=1)
    out = io.BytesIO()
    writer.write(out)
    assert [(p.number, p.label) for p in parse_pdf(out.getvalue())] == [(1, "i"), (2, "A-1"), (3, "A-2")]
