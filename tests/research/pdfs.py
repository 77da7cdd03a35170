"""Real filings shipped for the tests (data/filings, see its SOURCES.md) and PDFs built at test time
with pypdf: a copy of a filing that truly needs a password, and small text PDFs with or without
their own page labels."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pypdf
from pypdf.generic import ContentStream, DictionaryObject, NameObject

FILINGS = Path(__file__).resolve().parents[2] / "data" / "filings"
EBAY_8K = FILINGS / "EBAY_2023Q1_8K.pdf"  # 3 pages, empty user password, no printed page numbers
APPLE_10Q = FILINGS / "APPLE_2023Q3_10Q.pdf"  # 29 pages, empty user password, footer numbers from PDF p. 4
ACTIVISION_10K = FILINGS / "ACTIVISIONBLIZZARD_2018_10K.pdf"  # 305 pages, offset numbers, exhibits restart
EBAY_Q1_RELEASE = FILINGS / "EBAY_2023Q1_EARNINGS.pdf"  # 15 pages, eBay's Q1 2023 earnings release
COSTCO_Q3_RELEASE = FILINGS / "COSTCO_2023Q3_EARNINGS.pdf"  # 4 pages, Costco's Q3 fiscal 2023 release


def with_password(source: Path, *, password: str) -> bytes:
    """``source`` re-encrypted so that it opens only with ``password`` (AES-256)."""
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(source.read_bytes()))
    writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _escape(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def text_pdf(pages: list[list[str]], page_labels: Sequence[tuple[int, int, dict[str, Any]]] = ()) -> bytes:
    """A letter-size PDF with one line of Helvetica text per entry of each page, top to bottom, and
    optionally its own /PageLabels: ``(first page index, last page index, set_page_label kwargs)``."""
    writer = pypdf.PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    for lines in pages:
        page = writer.add_blank_page(width=612, height=792)
        body = ["BT /F1 11 Tf 14 TL 72 740 Td", *(f"({_escape(line)}) Tj T*" for line in lines), "ET"]
        stream = ContentStream(None, None)
        stream.set_data("\n".join(body).encode("latin-1"))
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        page.replace_contents(stream)
    for first, last, options in page_labels:
        writer.set_page_label(first, last, **options)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
