"""Ingestion in a real Celery worker process; its result is searchable here at once."""

from __future__ import annotations

import time
from typing import Any

import pytest

from research.models import Document
from research.retrieval.bm25 import process_index
from research.selectors import passage_search
from research.services import UploadFile, document_upload
from tests.research.conftest import blank_pdf

pytestmark = [pytest.mark.worker]

NOTE = (
    b"# Zanzibar desk note\n\nThe Zanzibar corridor liquidity facility was widened by 15 basis points.\n\n"
    b"## Outlook\n\nDesk expects the corridor to stay wide through the quarter."
)


def wait_finished(ids: list[int], timeout: float = 180) -> dict[int, Document]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        docs = {d.pk: d for d in Document.objects.filter(pk__in=ids)}
        if all(d.is_finished for d in docs.values()):
            return docs
        time.sleep(0.3)
    raise AssertionError(f"not finished: {[(d.pk, d.status, d.progress) for d in Document.objects.filter(pk__in=ids)]}")


def test_worker_ingests_and_this_process_sees_it_immediately(celery_worker: Any, make_user: Any) -> None:
    user = make_user("analyst")
    # Warm this process's BM25 cache before the worker changes the corpus.
    assert passage_search(user=user, query="zanzibar corridor", mode="bm25") == []
    warmed_version = process_index.version

    result = document_upload(
        user=user,
        files=[UploadFile(name="zanzibar.md", data=NOTE), UploadFile(name="scan.pdf", data=blank_pdf())],
        doc_type="desk_note",
    )
    note, scan = result.created
    docs = wait_finished([note.pk, scan.pk])

    assert docs[note.pk].status == "done" and docs[note.pk].progress == 100
    assert docs[scan.pk].status == "failed" and "no text could be extracted" in docs[scan.pk].error
    hits = passage_search(user=user, query="zanzibar corridor", mode="bm25")
    assert hits and hits[0].chunk.document_id == note.pk
    assert process_index.version != warmed_version  # refreshed from the shared corpus version
    hybrid = passage_search(user=user, query="How much was the liquidity facility widened?", top_k=2)
    assert hybrid[0].chunk.document_id == note.pk
    assert hybrid[0].chunk.section == "Zanzibar desk note – Outlook"  # one chunk spanning both headings
