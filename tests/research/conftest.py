"""Research fixtures: real documents from the shipped demo corpus (data/rbi), ingested through
the real services into the real Postgres+pgvector, once per test module."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "data" / "rbi"
MPC_AUG_2024 = CORPUS / "mpc-minutes" / "reserve_bank_of_india_06-08-2024.pdf"
ANNUAL_REPORT = CORPUS / "annual-report-2023-24" / "rbi-annual-report-2023-24.txt"


def annual_report_excerpt() -> bytes:
    """Printed pages 31–38 and 61–66: small enough to embed quickly, with facts on known pages
    (35: food and beverages inflation averaged 7.0 per cent; 63: gross market borrowings ₹14.1 lakh crore)."""
    pages = ANNUAL_REPORT.read_text().split("\f")
    return "\f".join(pages[46:54] + pages[76:82]).encode()


def blank_pdf(pages: int = 1) -> bytes:
    """A valid PDF with no text at all (what a scan without OCR looks like to us)."""
    import pypdf

    writer = pypdf.PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=595, height=842)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def encrypted_pdf() -> bytes:
    import pypdf

    writer = pypdf.PdfWriter(clone_from=io.BytesIO(MPC_AUG_2024.read_bytes()))
    writer.encrypt("secret-password")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@dataclass
class Corpus:
    owner: Any
    mpc: Any
    report: Any


def ingest(owner: Any, name: str, data: bytes, **meta: Any) -> Any:
    """Upload through the service; with an eager Celery (or after a worker ran) it is ingested."""
    from research.services import UploadFile, document_ingest, document_upload

    result = document_upload(user=owner, files=[UploadFile(name=name, data=data)], **meta)
    assert not result.rejected, result.rejected
    document = (result.created or result.duplicates)[0]
    document = document_ingest(document_id=document.pk)  # a no-op when the task already ran
    assert document.status == "done", document.error
    return document


@pytest.fixture(scope="module")
def corpus(django_db_setup: Any, django_db_blocker: Any) -> Iterator[Corpus]:
    """Committed once per module; tests using ``db`` see it and roll back only their own rows."""
    import datetime as dt

    from config.celery import app
    from core.services import user_ensure
    from research.models import Document

    with django_db_blocker.unblock():
        owner, _ = user_ensure(email="library-owner@example.test", roles=["analyst"], password=None)
        # No worker in these tests: Celery runs the real ingestion task in-process on commit.
        eager = app.conf.task_always_eager
        app.conf.task_always_eager = True
        try:
            mpc = ingest(
                owner,
                MPC_AUG_2024.name,
                MPC_AUG_2024.read_bytes(),
                title="RBI MPC Minutes, August 2024",
                issuer="Reserve Bank of India",
                doc_type="mpc_minutes",
                doc_date=dt.date(2024, 8, 22),
                tags=["rbi", "monetary-policy"],
            )
            report = ingest(
                owner,
                "rbi-annual-report-2023-24-excerpt.txt",
                annual_report_excerpt(),
                title="RBI Annual Report 2023-24",
                issuer="Reserve Bank of India",
                doc_type="annual_report",
                doc_date=dt.date(2024, 5, 30),
                tags=["rbi", "annual-report"],
            )
        finally:
            app.conf.task_always_eager = eager
        yield Corpus(owner=owner, mpc=mpc, report=report)
        for document in Document.objects.filter(owner=owner):
            document.file.delete(save=False)
        Document.objects.filter(owner=owner).delete()
        owner.delete()
