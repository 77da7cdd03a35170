"""Upload, bad input at every entry point (page, API, service), duplicates, delete, audit."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings

from core.models import AuditEvent
from research.models import Chunk, Document
from research.services import UploadFile, document_delete, document_ingest, document_upload
from tests.research.conftest import MPC_AUG_2024, blank_pdf, encrypted_pdf

pytestmark = pytest.mark.django_db

SCRIPT_HTML = b"""<!doctype html><html><head><script>document.title='pwned-head'</script></head><body>
<h1>Liquidity note</h1><p>System liquidity was in surplus of 1.2 lakh crore.</p>
<script>alert('pwned-body')</script>
<p><img src=x onerror="alert('pwned-attr')">Overnight rates stayed near the repo rate.</p>
<p>&lt;script&gt;alert('pwned-text')&lt;/script&gt; is how the memo quoted it.</p></body></html>"""

BAD_FILES = [
    ("empty.txt", b"", "empty"),
    ("zero.pdf", b"", "empty"),
    ("fake.pdf", b"Quarterly notes, plain text pretending to be a PDF", "not a PDF"),
    ("corrupt.pdf", b"%PDF-1.7\n" + b"\x8f\x00 broken object " * 100, "damaged"),
    ("locked.pdf", None, "encrypted"),
]


def _bad_bytes(data: bytes | None) -> bytes:
    return encrypted_pdf() if data is None else data


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize(("name", "data", "message"), BAD_FILES)
def test_page_upload_rejects_bad_files_with_a_message(
    analyst: Any, name: str, data: bytes | None, message: str
) -> None:
    client = _client(analyst)
    before = Document.objects.count()
    response = client.post(
        "/research/upload/", {"files": [SimpleUploadedFile(name, _bad_bytes(data))], "visibility": "team"}
    )
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Document.objects.count() == before


@pytest.mark.parametrize(("name", "data", "message"), BAD_FILES)
def test_api_upload_rejects_bad_files_with_a_message(analyst: Any, name: str, data: bytes | None, message: str) -> None:
    response = _client(analyst).post(
        "/api/v1/research/documents", {"files": [SimpleUploadedFile(name, _bad_bytes(data))]}
    )
    assert response.status_code == 400
    body = response.json()
    assert body["created"] == [] and message in body["rejected"][0]["reason"]


@override_settings(RESEARCH_MAX_UPLOAD_BYTES=100_000)
def test_file_over_the_cap_is_rejected_and_the_others_are_kept(analyst: Any) -> None:
    response = _client(analyst).post(
        "/api/v1/research/documents",
        {
            "files": [
                SimpleUploadedFile("big.pdf", MPC_AUG_2024.read_bytes()),
                SimpleUploadedFile("ok.md", b"# Note\n\nRates held."),
            ]
        },
    )
    assert response.status_code == 201
    body = response.json()
    assert [d["filename"] for d in body["created"]] == ["ok.md"]
    assert body["rejected"][0]["filename"] == "big.pdf" and "the limit is 100 KB" in body["rejected"][0]["reason"]
    assert "big.pdf: the file is 584 KB" in body["rejected"][0]["reason"]
    assert Document.objects.filter(owner=analyst).count() == 1


def test_api_requires_files_and_research_role(analyst: Any, make_user: Any) -> None:
    assert _client(analyst).post("/api/v1/research/documents", {}).status_code == 400
    outsider = make_user()
    assert (
        _client(outsider)
        .post("/api/v1/research/documents", {"files": [SimpleUploadedFile("a.txt", b"hi")]})
        .status_code
        == 403
    )
    assert _client(outsider).get("/research/").status_code == 403


def test_reupload_is_a_no_op_that_says_so(analyst: Any) -> None:
    files = [UploadFile(name="note.md", data=b"# Note\n\nThe repo rate was held at 6.50 per cent.")]
    first = document_upload(user=analyst, files=files)
    second = document_upload(user=analyst, files=files)
    assert len(first.created) == 1 and second.created == [] and second.duplicates == first.created
    response = _client(analyst).post(
        "/research/upload/",
        {"files": [SimpleUploadedFile("again.md", files[0].data)], "visibility": "team"},
        follow=True,
    )
    assert "already in the library" in response.content.decode()
    assert Document.objects.filter(owner=analyst).count() == 1
    assert AuditEvent.objects.filter(action="document.upload", subject_id=str(first.created[0].pk)).count() == 1


def test_html_with_scripts_is_ingested_as_text_and_never_rendered(analyst: Any) -> None:
    result = document_upload(
        user=analyst, files=[UploadFile(name="memo.html", data=SCRIPT_HTML)], title="Liquidity memo"
    )
    document = document_ingest(document_id=result.created[0].pk)
    assert document.status == "done", document.error
    text = " ".join(Chunk.objects.filter(document=document).values_list("text", flat=True))
    assert "pwned-head" not in text and "pwned-body" not in text and "pwned-attr" not in text
    assert "surplus of 1.2 lakh crore" in text
    assert "<script>alert('pwned-text')</script>" in text  # quoted text stays text...
    client = _client(analyst)
    page = client.get(f"/research/documents/{document.pk}/").content.decode()
    assert "<script>alert(" not in page and "&lt;script&gt;alert(" in page  # ...and is escaped
    download = client.get(f"/research/documents/{document.pk}/file/")
    assert download["Content-Disposition"].startswith("attachment")
    assert download["Content-Type"] == "application/octet-stream"
    assert download.content == SCRIPT_HTML  # the original bytes, as a download


def test_a_failing_file_is_marked_failed_and_the_others_continue(analyst: Any) -> None:
    result = document_upload(
        user=analyst,
        files=[
            UploadFile(name="scan.pdf", data=blank_pdf(2)),
            UploadFile(name="note.txt", data=b"Liquidity was in surplus."),
        ],
    )
    assert len(result.created) == 2
    failed = document_ingest(document_id=result.created[0].pk)
    done = document_ingest(document_id=result.created[1].pk)
    assert failed.status == "failed" and "no text could be extracted" in failed.error
    assert done.status == "done" and done.chunk_count == 1
    page = _client(analyst).get("/research/").content.decode()
    assert "no text could be extracted" in page


def test_ingest_is_idempotent(analyst: Any) -> None:
    document = document_upload(user=analyst, files=[UploadFile(name="n.txt", data=b"One. Two. Three.")]).created[0]
    first = document_ingest(document_id=document.pk)
    ids = list(Chunk.objects.filter(document=document).values_list("id", flat=True))
    second = document_ingest(document_id=document.pk)
    assert first.status == second.status == "done"
    assert list(Chunk.objects.filter(document=document).values_list("id", flat=True)) == ids


def test_delete_removes_chunks_and_is_audited_owner_only(analyst: Any, make_user: Any) -> None:
    document = document_upload(
        user=analyst, files=[UploadFile(name="n.txt", data=b"Rates held. Growth was firm.")]
    ).created[0]
    document_ingest(document_id=document.pk)
    assert Chunk.objects.filter(document=document).exists()
    other = make_user("analyst")
    assert _client(other).delete(f"/api/v1/research/documents/{document.pk}").status_code == 403
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        document_delete(user=other, document=document)
    assert _client(analyst).delete(f"/api/v1/research/documents/{document.pk}").status_code == 204
    assert not Document.objects.filter(pk=document.pk).exists()
    assert not Chunk.objects.filter(document_id=document.pk).exists()
    event = AuditEvent.objects.get(action="document.delete", subject_id=str(document.pk))
    assert event.actor_id == analyst.pk and event.before == {
        "title": "n",
        "filename": "n.txt",
        "sha256": document.content_hash,
        "chunks": 1,
        "status": "done",
        "is_reference": False,
    }


def test_private_document_is_404_for_others(analyst: Any, make_user: Any) -> None:
    document = document_upload(
        user=analyst, files=[UploadFile(name="p.txt", data=b"Private view.")], visibility="private"
    ).created[0]
    other = make_user("analyst")
    assert _client(other).get(f"/research/documents/{document.pk}/").status_code == 404
    assert _client(other).get(f"/api/v1/research/documents/{document.pk}").status_code == 404
    assert _client(analyst).get(f"/api/v1/research/documents/{document.pk}").json()["visibility"] == "private"
    listed = _client(other).get("/api/v1/research/documents").json()
    assert document.pk not in [d["id"] for d in listed]
