"""Filing details proposed at upload, confirmed or corrected by the uploader — on the page (a
confirmation step after the upload) and in the API (the upload response carries the proposals;
PATCH on the document confirms or corrects them). Bad input names the field, writes nothing and
keeps what was saved. Expected values are read by hand from the Apple 10-Q's cover and signature page."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from core.models import AuditEvent
from research.models import Document
from research.packs.filings.cover import EARNINGS_RELEASE
from research.services import document_ingest
from tests.research.pdfs import APPLE_10Q, COSTCO_Q3_RELEASE, EBAY_8K

pytestmark = pytest.mark.django_db
D = dt.date
DETAILS = ("issuer", "doc_type", "fiscal_period", "period_start", "period_end", "doc_date")


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _upload_on_page(client: Client, on_commit: Any, *paths: Path) -> Any:
    """Upload ``paths`` from the library page (ingestion is not run)."""
    with on_commit(execute=False):
        return client.post(
            "/research/upload/",
            {"files": [SimpleUploadedFile(p.name, p.read_bytes()) for p in paths], "visibility": "team"},
        )


def _details(document: Document) -> tuple[Any, ...]:
    document.refresh_from_db()
    return tuple(getattr(document, name) for name in DETAILS)


APPLE = ("Apple Inc.", "10-Q", "Q3 FY2023", D(2023, 4, 2), D(2023, 7, 1), D(2023, 8, 3))


def test_the_upload_page_proposes_the_cover_details_and_the_user_corrects_them(
    analyst: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = _client(analyst)
    with django_capture_on_commit_callbacks(execute=False):
        uploaded = client.post(
            "/research/upload/",
            {"files": [SimpleUploadedFile(APPLE_10Q.name, APPLE_10Q.read_bytes())], "visibility": "team"},
        )
    document = Document.objects.get(owner=analyst, filename=APPLE_10Q.name)
    assert uploaded.status_code == 302 and uploaded["Location"] == f"/research/documents/details/?ids={document.pk}"
    assert _details(document) == APPLE  # in use at once, before anyone confirms
    page = client.get(uploaded["Location"]).content.decode()
    prefix = f"d{document.pk}-"
    assert f'name="{prefix}issuer" value="Apple Inc."' in page
    assert re.search(r'<option value="10-Q" selected>10-Q</option>', page)
    assert f'name="{prefix}fiscal_period" value="Q3 FY2023"' in page
    assert (
        f'name="{prefix}period_end" value="2023-07-01"' in page
        and f'name="{prefix}doc_date" value="2023-08-03"' in page
    )
    assert page.count("Read from the cover page") == 4 and "Read from the signature page" in page
    assert "Estimated from the period&#x27;s end" in page  # the start: the cover gives only the end
    # The analyst corrects the filing date (EDGAR's filing date is the day after the signature).
    form = {
        f"{prefix}{k}": v
        for k, v in zip(
            DETAILS, ("Apple Inc.", "10-Q", "Q3 FY2023", "2023-04-02", "2023-07-01", "2023-08-04"), strict=True
        )
    }
    form[f"{prefix}title"] = "Apple 10-Q Q3 FY2023"
    saved = client.post(uploaded["Location"], form)
    assert saved.status_code == 302 and saved["Location"] == "/research/"
    assert _details(document) == (*APPLE[:5], D(2023, 8, 4)) and document.title == "Apple 10-Q Q3 FY2023"
    event = AuditEvent.objects.get(action="document.details_update", subject_id=str(document.pk))
    assert event.before == {"doc_date": "2023-08-03", "title": "APPLE 2023Q3 10Q"}
    assert event.after == {"doc_date": "2023-08-04", "title": "Apple 10-Q Q3 FY2023"}


def test_bad_details_on_the_page_name_the_field_and_change_nothing(
    analyst: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = _client(analyst)
    _upload_on_page(client, django_capture_on_commit_callbacks, APPLE_10Q, COSTCO_Q3_RELEASE)
    apple = Document.objects.get(filename=APPLE_10Q.name)
    costco = Document.objects.get(filename=COSTCO_Q3_RELEASE.name)
    url = f"/research/documents/details/?ids={apple.pk},{costco.pk}"
    good = {f"d{costco.pk}-title": "Costco Q3", f"d{costco.pk}-issuer": "Costco"}
    bad = {
        f"d{apple.pk}-title": "Apple",
        f"d{apple.pk}-doc_date": "3 Aug 2023 or so",
        f"d{apple.pk}-period_start": "2023-07-01",
        f"d{apple.pk}-period_end": "2023-04-02",
    }
    response = client.post(url, {**good, **bad})
    body = response.content.decode()
    assert response.status_code == 400
    assert "Enter a date as YYYY-MM-DD (for example 2023-07-01)." in body
    assert "The period cannot end before it starts." in body
    assert 'value="3 Aug 2023 or so"' in body and 'value="Costco Q3"' in body  # what was typed is kept
    assert _details(apple) == APPLE and apple.title == "APPLE 2023Q3 10Q"
    assert _details(costco)[0] == "Costco Wholesale Corporation" and costco.title == "COSTCO 2023Q3 EARNINGS"
    assert not AuditEvent.objects.filter(action="document.details_update").exists()


def test_only_the_uploader_or_an_admin_changes_the_details(
    analyst: Any, make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=False):
        _client(analyst).post(
            "/research/upload/",
            {"files": [SimpleUploadedFile(EBAY_8K.name, EBAY_8K.read_bytes())], "visibility": "team"},
        )
    document = Document.objects.get(filename=EBAY_8K.name)
    other = _client(make_user("analyst"))
    page = other.get(f"/research/documents/details/?ids={document.pk}")
    assert page.status_code == 302 and page["Location"] == "/research/"
    api = other.patch(
        f"/api/v1/research/documents/{document.pk}", {"issuer": "Not eBay"}, content_type="application/json"
    )
    assert api.status_code == 403 and "owner" in api.json()["detail"]
    assert _details(document)[:2] == ("eBay Inc.", "8-K")


def test_the_api_upload_returns_the_proposals_and_patch_confirms_or_corrects_them(
    analyst: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = _client(analyst)
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(
            "/api/v1/research/documents",
            {"files": [SimpleUploadedFile(APPLE_10Q.name, APPLE_10Q.read_bytes())], "issuer": "Apple"},
        )
    assert response.status_code == 201
    created = response.json()["created"][0]
    assert created["proposed"]["issuer"] == "Apple Inc." and created["issuer"] == "Apple"  # what the client sent wins
    assert {k: created[k] for k in DETAILS[1:]} == {
        "doc_type": "10-Q",
        "fiscal_period": "Q3 FY2023",
        "period_start": "2023-04-02",
        "period_end": "2023-07-01",
        "doc_date": "2023-08-03",
    }
    assert created["proposed"]["sources"]["doc_date"] == "signature page"
    url = f"/api/v1/research/documents/{created['id']}"
    confirmed = client.patch(url, {"issuer": "Apple Inc."}, content_type="application/json")
    assert confirmed.status_code == 200 and confirmed.json()["issuer"] == "Apple Inc."
    unreadable = client.patch(url, {"doc_date": "03/08/2023"}, content_type="application/json")
    assert unreadable.status_code == 400 and "doc_date" in unreadable.json()
    backwards = client.patch(url, {"period_end": "2023-01-31"}, content_type="application/json")
    assert backwards.status_code == 400
    assert backwards.json() == {"period_end": ["The period cannot end before it starts."]}
    document = Document.objects.get(pk=created["id"])
    assert _details(document) == APPLE
    # Ingestion keeps the confirmed details (the 10-Q is not a series called "apple q q").
    document = document_ingest(document_id=document.pk)
    assert document.status == "done" and _details(document) == APPLE


def test_the_schema_documents_the_proposals_and_the_correction(analyst: Any) -> None:
    schema = _client(analyst).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    document = schema["paths"]["/api/v1/research/documents/{document_id}"]
    assert "patch" in document
    body = document["patch"]["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert {"issuer", "doc_type", "fiscal_period", "period_start", "period_end", "doc_date"} <= set(
        schema["components"]["schemas"][body]["properties"]
    )
    uploaded = schema["components"]["schemas"]["UploadedDocument"]["properties"]
    assert uploaded["proposed"]["allOf"][0]["$ref"].endswith("/ProposedDetails") or "$ref" in uploaded["proposed"]
    assert "sources" in schema["components"]["schemas"]["ProposedDetails"]["properties"]


def test_a_refusal_by_the_service_shows_on_the_page_and_writes_nothing(
    analyst: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = _client(analyst)
    _upload_on_page(client, django_capture_on_commit_callbacks, EBAY_8K, COSTCO_Q3_RELEASE)
    ebay, costco = (Document.objects.get(filename=n.name) for n in (EBAY_8K, COSTCO_Q3_RELEASE))
    form = {
        f"d{ebay.pk}-title": "eBay 8-K, 7 Feb 2023",  # valid, and first: must not be written either
        f"d{costco.pk}-title": "Costco",
        f"d{costco.pk}-doc_type": "x" * 61,  # a type typed past the 60 characters a type may have
    }
    response = client.post(f"/research/documents/details/?ids={ebay.pk},{costco.pk}", form)
    assert response.status_code == 400
    assert "At most 60 characters (this has 61)." in response.content.decode()
    ebay.refresh_from_db()
    costco.refresh_from_db()
    assert (ebay.title, costco.title, costco.doc_type) == ("EBAY 2023Q1 8K", "COSTCO 2023Q3 EARNINGS", EARNINGS_RELEASE)
    assert not AuditEvent.objects.filter(action="document.details_update").exists()


def test_documents_uploaded_before_covers_were_read_get_their_details_once_an_admin_asks(
    analyst: Any, admin_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    import io

    from django.core.management import CommandError, call_command

    from research.services import UploadFile, document_upload

    with django_capture_on_commit_callbacks(execute=False):
        result = document_upload(
            user=analyst, files=[UploadFile(name=n.name, data=n.read_bytes()) for n in (APPLE_10Q, EBAY_8K)]
        )
    apple, ebay = result.created
    # As such uploads were stored before: a type guessed from the file name, nothing else read.
    Document.objects.filter(pk=apple.pk).update(
        doc_type="apple_q_q", issuer="", fiscal_period="", period_start=None, period_end=None, doc_date=None
    )
    Document.objects.filter(pk=ebay.pk).update(issuer="eBay (typed by the analyst)", doc_type="ebay_q_k")
    with pytest.raises(CommandError, match="is not an admin account"):
        call_command("documents_fill_details", "--as", analyst.email)
    dry = io.StringIO()
    call_command("documents_fill_details", "--as", admin_user.email, "--dry-run", stdout=dry)
    assert "2 document(s) would be updated." in dry.getvalue() and _details(apple)[1] == "apple_q_q"
    out = io.StringIO()
    call_command("documents_fill_details", "--as", admin_user.email, stdout=out)
    assert _details(apple) == APPLE
    assert _details(ebay)[:2] == ("eBay (typed by the analyst)", "8-K")  # what was typed stays
    assert "APPLE_2023Q3_10Q.pdf: issuer: Apple Inc., doc_type: 10-Q" in out.getvalue()
    assert AuditEvent.objects.filter(action="document.details_update", actor=admin_user).count() == 2
    again = io.StringIO()
    call_command("documents_fill_details", "--as", admin_user.email, stdout=again)
    assert again.getvalue().strip() == "0 document(s) updated."
