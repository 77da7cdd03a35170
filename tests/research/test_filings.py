"""SEC filings as analysts upload them: PDFs encrypted with an empty user password (permissions
only) are accepted by the upload page, the API and the ingest pipeline; a PDF that truly needs a
password is refused with a message naming it, and nothing already saved is lost. Citations show
the printed page and, when it differs, the PDF page; the viewer opens the PDF page."""

from __future__ import annotations

import io
import re
from typing import Any

import pypdf
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from pypdf import PasswordType

from research.ingest.parsers import ParseError, check_pdf_opens, parse
from research.models import Chunk, Document
from research.services import UploadFile, document_ingest, document_upload
from tests.research.pdfs import APPLE_10Q, EBAY_8K, with_password

pytestmark = pytest.mark.django_db


def _refusal(name: str) -> str:
    return f"{name}: the PDF is encrypted and needs a password to open; upload a version without a password."


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_shipped_filings_are_encrypted_with_an_empty_user_password() -> None:
    # The premise, checked with pypdf rather than the code under test.
    for path in (EBAY_8K, APPLE_10Q):
        reader = pypdf.PdfReader(path)
        assert reader.is_encrypted
        assert reader.decrypt("") != PasswordType.NOT_DECRYPTED


def test_empty_password_filings_ingest_from_the_page_and_the_api(analyst: Any) -> None:
    client = _client(analyst)
    page = client.post(
        "/research/upload/", {"files": [SimpleUploadedFile(EBAY_8K.name, EBAY_8K.read_bytes())], "visibility": "team"}
    )
    assert page.status_code == 302, page.content.decode()[:500]
    api = client.post(
        "/api/v1/research/documents", {"files": [SimpleUploadedFile(APPLE_10Q.name, APPLE_10Q.read_bytes())]}
    )
    assert api.status_code == 201 and api.json()["rejected"] == []
    for path, pages in ((EBAY_8K, 3), (APPLE_10Q, 29)):
        document = document_ingest(document_id=Document.objects.get(owner=analyst, filename=path.name).pk)
        assert document.status == Document.Status.DONE, document.error
        assert document.page_count == pages and document.chunk_count > 0
    text = " ".join(Chunk.objects.filter(document__filename=EBAY_8K.name).values_list("text", flat=True))
    assert "Jamie Iannone, Chief Executive Officer of eBay Inc." in text


def test_a_pdf_that_needs_a_password_is_refused_naming_it() -> None:
    locked = with_password(APPLE_10Q, password="open-sesame")
    assert pypdf.PdfReader(io.BytesIO(locked)).decrypt("") == PasswordType.NOT_DECRYPTED
    with pytest.raises(ParseError) as at_the_door:
        check_pdf_opens("locked-10q.pdf", locked)
    assert str(at_the_door.value) == _refusal("locked-10q.pdf")
    with pytest.raises(ParseError) as in_the_pipeline:
        parse("pdf", locked, name="locked-10q.pdf")
    assert str(in_the_pipeline.value) == _refusal("locked-10q.pdf")


def test_a_locked_pdf_is_refused_and_nothing_saved_is_lost(analyst: Any) -> None:
    saved = document_upload(user=analyst, files=[UploadFile(name=EBAY_8K.name, data=EBAY_8K.read_bytes())])
    saved_doc = document_ingest(document_id=saved.created[0].pk)
    passages = list(Chunk.objects.filter(document=saved_doc).order_by("ordinal").values_list("text", flat=True))
    locked = with_password(APPLE_10Q, password="open-sesame")
    client = _client(analyst)
    # The API takes the good file of the batch and says why the other was refused.
    api = client.post(
        "/api/v1/research/documents",
        {
            "files": [
                SimpleUploadedFile("locked-10q.pdf", locked),
                SimpleUploadedFile(APPLE_10Q.name, APPLE_10Q.read_bytes()),
            ]
        },
    )
    assert api.status_code == 201
    body = api.json()
    assert [d["filename"] for d in body["created"]] == [APPLE_10Q.name]
    assert body["rejected"] == [{"filename": "locked-10q.pdf", "reason": _refusal("locked-10q.pdf")}]
    # The page alone with the locked file: 400 and the message, nothing stored.
    page = client.post(
        "/research/upload/", {"files": [SimpleUploadedFile("locked-10q.pdf", locked)], "visibility": "team"}
    )
    assert page.status_code == 400
    assert _refusal("locked-10q.pdf") in page.content.decode()
    assert sorted(Document.objects.filter(owner=analyst).values_list("filename", flat=True)) == sorted(
        [EBAY_8K.name, APPLE_10Q.name]
    )
    saved_doc.refresh_from_db()
    assert saved_doc.status == Document.Status.DONE
    assert list(Chunk.objects.filter(document=saved_doc).order_by("ordinal").values_list("text", flat=True)) == passages


@pytest.fixture
def apple(analyst: Any) -> Document:
    result = document_upload(
        user=analyst, files=[UploadFile(name=APPLE_10Q.name, data=APPLE_10Q.read_bytes())], title="Apple 10-Q Q3 2023"
    )
    document = document_ingest(document_id=result.created[0].pk)
    assert document.status == Document.Status.DONE, document.error
    return document


def test_citation_shows_the_printed_page_and_the_pdf_page(apple: Document) -> None:
    # By hand: PDF p. 4 is printed page 1 (the statements of operations), PDF p. 1 (the cover)
    # prints no number, PDF p. 26 (the signature) is printed 23.
    statements = Chunk.objects.filter(document=apple, text__contains="Total net sales").order_by("ordinal").first()
    assert statements is not None and (statements.page_number, statements.page_label) == (4, "1")
    assert statements.citation == "Apple 10-Q Q3 2023, p. 1 (PDF p. 4)"
    cover = Chunk.objects.filter(document=apple, page_number=1).first()
    assert cover is not None and cover.citation == "Apple 10-Q Q3 2023, p. 1"
    signature = Chunk.objects.filter(document=apple, page_number=26).first()
    assert signature is not None and signature.citation == "Apple 10-Q Q3 2023, p. 23 (PDF p. 26)"


def test_search_and_the_viewer_open_the_pdf_page(apple: Document, analyst: Any) -> None:
    client = _client(analyst)
    response = client.post(
        "/api/v1/research/search",
        {
            "query": "Total net sales Products Services cost of sales",
            "top_k": 10,
            "filters": {"document_ids": [apple.pk]},
        },
        content_type="application/json",
    )
    assert response.status_code == 200, response.content[:300]
    passage = next(p for p in response.json()["passages"] if p["page_number"] == 4)
    assert passage["page"] == "1" and passage["citation"] == "Apple 10-Q Q3 2023, p. 1 (PDF p. 4)"
    assert re.search(r"[?&]page=4&", passage["url"])
    viewer = client.get(passage["url"])
    html = viewer.content.decode()
    assert viewer.status_code == 200
    assert re.search(r'data-page="4" data-page-label="1"', html)
    assert re.search(r"<h2>Page 1 <span class=\"muted\">\(PDF page 4\)</span></h2>", html)
    assert "Total net sales" in html
