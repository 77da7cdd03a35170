"""Issue 49, finding 6: ingestion failures that misled. A PDF whose pages all carry the same line
ended empty (the repeated-line stripper removed everything) and was reported as needing OCR; a
Markdown file of one heading failed the same way; the REST status_message said only "Failed"."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.base import ContentFile
from rest_framework.test import APIClient

from research.ingest.parsed import ParseError
from research.ingest.parsers import NO_TEXT, parse
from tests.research.pdfs import text_pdf


def _texts(pages: Any) -> list[str]:
    return [paragraph.text for page in pages for paragraph in page.paragraphs]


def test_a_pdf_whose_pages_all_carry_one_line_keeps_it() -> None:
    pdf = text_pdf([["Quarterly note: repo rate unchanged"]] * 4)
    pages = parse("pdf", pdf, name="note.pdf")
    assert _texts(pages) == ["Quarterly note: repo rate unchanged"] * 4


def test_running_headers_are_still_stripped_when_there_is_other_text() -> None:
    bodies = ["Revenue grew.", "Margins held.", "Debt fell.", "Cash rose."]
    pdf = text_pdf([["ACME Ltd annual report", body] for body in bodies])
    assert _texts(parse("pdf", pdf, name="report.pdf")) == bodies


def test_a_markdown_file_of_one_heading_is_its_text() -> None:
    assert _texts(parse("md", b"# Outlook for FY25\n", name="outlook.md")) == ["Outlook for FY25"]


def test_an_empty_text_says_what_happened_and_what_to_do() -> None:
    with pytest.raises(ParseError) as caught:
        parse("pdf", text_pdf([[""], [""]]), name="scan.pdf")
    assert str(caught.value) == NO_TEXT
    assert "scanned PDF" in NO_TEXT and "Run OCR" in NO_TEXT and "upload it again" in NO_TEXT


@pytest.mark.django_db
def test_the_rest_status_message_carries_the_reason(analyst: Any) -> None:
    from core.services import api_token_create
    from research.models import Document
    from research.services import document_ingest

    document = Document.objects.create(
        owner=analyst,
        title="Scan",
        kind="pdf",
        filename="scan.pdf",
        file=ContentFile(text_pdf([[""], [""]]), name="scan.pdf"),
        size_bytes=10,
        content_hash="e" * 64,
    )
    document_ingest(document_id=document.pk)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token_create(user=analyst, name='t')[1]}")
    body = api.get(f"/api/v1/research/documents/{document.pk}").json()
    assert body["status"] == "failed"
    assert body["status_message"] == f"Failed: {NO_TEXT}"[:200]
    assert body["status_message"].startswith("Failed: no text could be extracted: the file is empty of text")
