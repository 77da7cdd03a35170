"""Statement rows are stored beside the chunks in the ingest transaction, linked to the passage that
holds them, found by the statement vocabulary (capex ↔ payments for PP&E, revenue ↔ total net
sales, diluted EPS), scoped to what the user may see, and deleted with the document."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from research.ingest.statement_rows import joined
from research.models import Chunk, Document, StatementRow
from research.selectors import statement_rows_find
from research.services import UploadFile, document_delete, document_ingest, document_upload
from tests.research.pdfs import APPLE_10Q

pytestmark = pytest.mark.django_db


def _ingest(user: Any, path: Any, visibility: str = "team") -> Document:
    upload = UploadFile(name=path.name, data=path.read_bytes())
    created = document_upload(user=user, files=[upload], visibility=visibility)
    return document_ingest(document_id=created.created[0].pk)


def test_rows_are_stored_with_their_passage_and_found_through_synonyms(analyst: Any) -> None:
    document = _ingest(analyst, APPLE_10Q)
    assert document.status == Document.Status.DONE, document.error
    assert StatementRow.objects.filter(document=document).count() > 100
    capex = statement_rows_find(user=analyst, label="capital expenditure", document_ids=[document.pk])
    assert capex[0].label == "Payments for acquisition of property, plant and equipment"
    assert capex[0].statement == "cash_flow" and (capex[0].page_number, capex[0].page_label) == (8, "5")
    # The passage linked to the row holds its line verbatim: what the verifier checks a cell against.
    assert capex[0].chunk_id is not None
    chunk = Chunk.objects.get(pk=capex[0].chunk_id)
    assert "Payments for acquisition of property, plant and equipment (8,796) (7,419)" in " ".join(chunk.text.split())
    assert capex[0].citation.endswith("p. 5 (PDF p. 8)")
    # Every row points at passages of this document that hold its line (rows are built while the
    # model embeds, by passage ordinal, and pointed at the stored chunk ids afterwards).
    texts = {c.pk: " ".join(c.text.split()) for c in Chunk.objects.filter(document=document)}
    linked = list(StatementRow.objects.filter(document=document, chunk__isnull=False))
    assert len(linked) > 100
    for row in linked:
        holder = texts[row.chunk_id or 0]  # chunk ids start at 1: 0 is in no document
        if row.chunk_next_id is None:
            assert row.line in holder, row.line
        else:
            assert row.line not in holder
            assert row.line in joined(holder, texts[row.chunk_next_id]), row.line
    revenue = statement_rows_find(
        user=analyst, label="revenue", document_ids=[document.pk], statement="income_statement"
    )
    assert revenue[0].label == "Total net sales" and revenue[0].cells[0]["text"] == "81,797"
    eps = statement_rows_find(user=analyst, label="diluted EPS", period_end=dt.date(2023, 7, 1), months=9)
    assert eps[0].label == "Earnings per share: Diluted" and eps[0].cells[2]["text"] == "4.67"


def test_rows_are_scoped_to_the_user_and_deleted_with_the_document(analyst: Any, make_user: Any) -> None:
    document = _ingest(analyst, APPLE_10Q, visibility="private")
    other = make_user("analyst", email="other-analyst@example.test")
    assert statement_rows_find(user=other, label="total assets") == []
    assert statement_rows_find(user=analyst, label="total assets")[0].cells[0]["text"] == "335,038"
    document_delete(user=analyst, document=document)
    assert not StatementRow.objects.filter(document_id=document.pk).exists()
