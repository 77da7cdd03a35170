"""Passages reach the database in one binary COPY per step (research/ingest/store.py): every field
as the ORM would have stored it, and the vectors as the very float32s the model gave.

The peer is Django's ORM, writing the same passages with pgvector's own adapter."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from django.db import DataError, transaction
from pgvector import Vector

from research.ingest import store
from research.ingest.chunking import ChunkDraft
from research.models import Chunk
from research.services import UploadFile, document_ingest, document_upload
from tests.research.conftest import ingest

FIELDS = ("ordinal", "page_number", "page_label", "section", "text", "token_count")


def drafts() -> list[ChunkDraft]:
    return [
        ChunkDraft(1, "1", "", "Plain passage.", 3),
        ChunkDraft(2, "ii", "II.6.3", "₹ 5,000 crore — “quoted”, a tab\there, a backslash \\ and a\nnew line.", 41),
        ChunkDraft(0, "x" * 20, "s" * 120, "Ünïcödé 中文 العربية 🙂 " * 40, 2**31 - 1),  # the columns' limits
    ]


def vectors(rows: int) -> np.ndarray:
    values = np.random.default_rng(7).normal(scale=0.05, size=(rows, 384)).astype(np.float32)
    values[0, :4] = [-0.0, 1e-40, -60000.0, 60000.0]  # signed zero, a subnormal, near the halfvec index's limits
    return values


def test_the_binary_copy_stores_every_field_as_the_orm_would(db: Any, analyst: Any) -> None:
    document = ingest(analyst, "note.md", b"# Note\n\nA passage to hang the rows on.")
    given, embedded = drafts(), vectors(3)
    with transaction.atomic():
        store._write_step(document.pk, given, store._chunk_ids_ahead(len(given)), [100, 101, 102], embedded)
    Chunk.objects.bulk_create(
        Chunk(document=document, ordinal=200 + i, page_number=d.page_number, page_label=d.page_label,
              section=d.section, text=d.text, token_count=d.token_count, embedding=Vector(embedded[i]))
        for i, d in enumerate(given)
    )  # fmt: skip
    ours = list(Chunk.objects.filter(document=document, ordinal__gte=100, ordinal__lt=200).order_by("ordinal"))
    peers = list(Chunk.objects.filter(document=document, ordinal__gte=200).order_by("ordinal"))
    assert [c.ordinal for c in ours] == [100, 101, 102]
    for mine, peer in zip(ours, peers, strict=True):
        assert [getattr(mine, f) for f in FIELDS[1:]] == [getattr(peer, f) for f in FIELDS[1:]]
        assert np.array_equal(np.asarray(mine.embedding, np.float32), np.asarray(peer.embedding, np.float32))
        assert Chunk.objects.filter(pk=mine.pk, embedding=peer.embedding).exists()  # equal in the database too
    assert ours[1].text == given[1].text and "\t" in ours[1].text and "\\" in ours[1].text


def test_a_value_the_table_refuses_fails_the_step_and_stores_nothing(db: Any, analyst: Any) -> None:
    document = ingest(analyst, "note.md", b"# Note\n\nA passage to hang the rows on.")
    too_long = [ChunkDraft(1, "x" * 21, "", "A label longer than the column.", 7)]
    before = Chunk.objects.count()
    with pytest.raises(DataError, match="too long"), transaction.atomic():
        store._write_step(document.pk, too_long, store._chunk_ids_ahead(1), [100], vectors(1))
    assert Chunk.objects.count() == before


def test_an_ingested_document_stores_the_very_vectors_the_model_gave(db: Any, monkeypatch: Any) -> None:
    from core.services import user_ensure

    given: dict[int, np.ndarray] = {}
    embedding_ahead = store.pipeline.EmbeddingAhead

    def recording(*args: Any, **kwargs: Any) -> Any:
        for positions, vectors in embedding_ahead(*args, **kwargs):
            given.update({p: v.copy() for p, v in zip(positions, vectors, strict=True)})
            yield positions, vectors

    monkeypatch.setattr(store.pipeline, "EmbeddingAhead", recording)
    owner, _ = user_ensure(email="vectors@example.test", roles=["analyst"], password=None)
    text = "\n\n".join(f"Paragraph {i}: the repo rate stood at 6.{i} per cent in meeting {i}." for i in range(40))
    upload = document_upload(user=owner, files=[UploadFile(name="rates.txt", data=text.encode())]).created[0]
    document = document_ingest(document_id=upload.pk)
    assert document.status == "done", document.error
    assert sorted(given) == list(range(document.chunk_count)) and document.chunk_count >= 1
    for ordinal, vector in given.items():
        # pgvector's own adapter for the comparison: the row must hold exactly these float32s.
        assert Chunk.objects.filter(document=document, ordinal=ordinal, embedding=vector).exists(), ordinal
