"""Uploaded files in an S3 bucket (STORAGE_URL, config/storage.py) on a real S3-compatible server
started here (moto's standalone server, tests/s3server.py): upload, ingestion reading the file
back, download of the original, deletion (the object goes too), and the bucket unreachable (a
clear 503, nothing half-written in the database)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from config.storage import default_storage
from core.models import AuditEvent
from research.models import Chunk, Document
from research.services import document_ingest
from research.tasks import ingest_document
from tests.conftest import ARTIFACTS
from tests.s3server import S3Server

NOTE = b"# Bucket note\n\nThe desk expects the quokka index to close at 4,217 points by March.\n"


@pytest.fixture
def s3(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[S3Server]:
    # These tests ingest in this process; a worker another test left running (local storage, no
    # bucket) must not take the upload's message and fail the document first.
    monkeypatch.setattr("research.services._enqueue_ingest", lambda document_id: True)
    ARTIFACTS.mkdir(exist_ok=True)
    server = S3Server(ARTIFACTS / "moto-storage.log")
    # What STORAGE_URL=s3://… gives every process; 1 s timeouts, one try: the down case answers fast.
    default = default_storage(server.storage_url, settings.MEDIA_ROOT, timeout=1.0, attempts=1)
    settings.STORAGES = {**settings.STORAGES, "default": default}
    try:
        yield server
    finally:
        server.stop()


def _upload(api: APIClient, name: str, data: bytes) -> Any:
    return api.post("/api/v1/research/documents", {"files": [SimpleUploadedFile(name, data)]}, format="multipart")


def test_storage_url_spellings(tmp_path: Any) -> None:
    assert default_storage("", tmp_path)["OPTIONS"] == {"location": str(tmp_path)}
    assert default_storage("file:///srv/media", tmp_path) == {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": "/srv/media"},
    }
    s3 = default_storage("s3://AK%2F1:s%40c@docs-bucket/prod/files?region_name=eu-west-1", tmp_path)
    assert s3["BACKEND"] == "storages.backends.s3.S3Storage"
    options = {k: v for k, v in s3["OPTIONS"].items() if k != "client_config"}
    assert options == {
        "bucket_name": "docs-bucket",
        "location": "prod/files",
        "file_overwrite": False,
        "querystring_auth": True,
        "region_name": "eu-west-1",
        "access_key": "AK/1",
        "secret_key": "s@c",
    }
    with pytest.raises(ValueError, match="unknown option"):
        default_storage("s3://b?endpoint=http://x", tmp_path)
    with pytest.raises(ValueError, match="STORAGE_URL must be"):
        default_storage("ftp://host/x", tmp_path)


def test_upload_ingest_download_and_delete_go_through_the_bucket(
    transactional_db: Any, analyst: Any, s3: S3Server, settings: Any
) -> None:
    api = APIClient()
    api.force_login(analyst)
    response = _upload(api, "bucket-note.md", NOTE)
    assert response.status_code == 201, response.content[:300]
    document = Document.objects.get(pk=response.json()["created"][0]["id"])
    key = str(document.file.name)
    assert key.startswith("documents/") and key.endswith("bucket-note.md")
    assert s3.keys() == [key] and s3.read(key) == NOTE  # the object, byte for byte
    assert not (settings.MEDIA_ROOT / key).exists()  # and nothing on this machine's disk

    # The same name again (other bytes): a second object, the first one untouched.
    again = _upload(api, "bucket-note.md", NOTE + b"\nA second note.\n")
    second = Document.objects.get(pk=again.json()["created"][0]["id"])
    assert second.file.name != key and s3.read(key) == NOTE and len(s3.keys()) == 2

    document = document_ingest(document_id=document.pk)  # reads the file back from the bucket
    assert document.status == Document.Status.DONE, document.error
    assert any(
        "quokka index to close at 4,217" in text
        for text in Chunk.objects.filter(document=document).values_list("text", flat=True)
    )

    download = api.get(f"/research/documents/{document.pk}/file/")
    assert download.status_code == 200 and download.content == NOTE

    assert api.delete(f"/api/v1/research/documents/{document.pk}").status_code == 204
    assert not Document.objects.filter(pk=document.pk).exists()
    assert s3.keys() == [second.file.name]  # its object went with it; the other stays


def test_an_unreachable_bucket_is_a_clear_503_and_nothing_is_half_written(
    transactional_db: Any, analyst: Any, s3: S3Server
) -> None:
    api = APIClient()
    api.force_login(analyst)
    kept = Document.objects.get(pk=_upload(api, "kept.md", NOTE).json()["created"][0]["id"])
    s3.stop()
    documents, events = Document.objects.count(), AuditEvent.objects.count()

    started = time.monotonic()
    response = _upload(api, "lost.md", b"# Lost\n\nNever stored.\n")
    seconds = time.monotonic() - started
    assert response.status_code == 503, response.content[:300]
    assert response.json() == {
        "error": "storage_unavailable",
        "detail": "The file store is unavailable right now; nothing was saved. Try again in a minute.",
    }
    assert seconds < 5.0, seconds
    assert (Document.objects.count(), AuditEvent.objects.count()) == (documents, events)  # no row, no audit

    download = api.get(f"/research/documents/{kept.pk}/file/")
    assert download.status_code == 503
    assert download.content.decode() == (
        "The file store is unavailable right now, so the file cannot be read. Try again in a minute."
    )
    # The worker's read fails the same way: the document waits again (the sweep resends it), not failed.
    assert ingest_document.apply(args=[kept.pk], task_id="t-bucket-down").get() == "postponed"
    kept.refresh_from_db()
    assert (kept.status, kept.chunk_count) == (Document.Status.QUEUED, 0)
    assert kept.status_message.startswith("Waiting: The file store is unavailable")

    s3.start()  # back (moto keeps objects in memory: the restarted server has an empty bucket)
    s3.client().create_bucket(Bucket="alphadesk-test")
    assert _upload(api, "after.md", b"# After\n\nStored once the bucket is back.\n").status_code == 201
