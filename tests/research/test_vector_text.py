"""Passages' vectors reach the database as short text that reads back as the very same float32s.

The peer is pgvector's own text form (Python's seventeen significant digits, which name every
float32 exactly): the database must find the two equal, value for value."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from django.db import connection
from pgvector import Vector

from research.ingest import store
from research.ingest.store import ExactVectorText
from research.models import Chunk
from research.services import UploadFile, document_ingest, document_upload


def pgvector_text(vector: np.ndarray) -> str:
    text = Vector._to_db(vector)
    assert text is not None
    return text


def stored_equal(ours: str, peer: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::vector = %s::vector", [ours, peer])
        return bool(cursor.fetchone()[0])


def test_every_float32_reads_back_exactly_including_the_extremes(db: Any) -> None:
    rng = np.random.default_rng(7)
    vectors = rng.normal(scale=0.05, size=(200, 384)).astype(np.float32)
    f32 = np.finfo(np.float32)
    extremes = [f32.smallest_subnormal, -f32.smallest_normal, f32.max, -f32.max, 0.0, -0.0, 1 / 3, -2 / 3]
    vectors[0, :8] = np.array(extremes, dtype=np.float32)
    for vector in vectors:
        text = ExactVectorText(vector).to_text()
        assert stored_equal(text, pgvector_text(vector)), text[:120]
        # Nine significant digits at most: shorter than pgvector's text, which is the point.
        assert max(len(x.lstrip("-").split("e")[0].replace(".", "").lstrip("0")) for x in text[1:-1].split(",")) <= 9
    assert len(ExactVectorText(vectors[1]).to_text()) < 0.75 * len(pgvector_text(vectors[1]))


def test_an_ingested_document_stores_the_very_vectors_the_model_gave(db: Any, monkeypatch: Any) -> None:
    from core.services import user_ensure

    given: dict[int, np.ndarray] = {}
    embedding_ahead = store.pipeline.EmbeddingAhead

    def recording(*args: Any, **kwargs: Any) -> Any:
        for start, vectors in embedding_ahead(*args, **kwargs):
            given.update({start + i: v.copy() for i, v in enumerate(vectors)})
            yield start, vectors

    monkeypatch.setattr(store.pipeline, "EmbeddingAhead", recording)
    owner, _ = user_ensure(email="vectors@example.test", roles=["analyst"], password=None)
    text = "\n\n".join(f"Paragraph {i}: the repo rate stood at 6.{i} per cent in meeting {i}." for i in range(40))
    upload = document_upload(user=owner, files=[UploadFile(name="rates.txt", data=text.encode())]).created[0]
    document = document_ingest(document_id=upload.pk)
    assert document.status == "done", document.error
    assert sorted(given) == list(range(document.chunk_count)) and document.chunk_count >= 1
    for ordinal, vector in given.items():
        # pgvector's own text for the comparison: the row must hold exactly these float32s.
        assert Chunk.objects.filter(document=document, ordinal=ordinal, embedding=vector).exists(), ordinal


@pytest.mark.parametrize("digits", [6, 8])
def test_fewer_digits_would_not_read_back_exactly(db: Any, digits: int) -> None:
    # Why nine: with fewer, real embedding values change on the way in.
    vector = np.random.default_rng(3).normal(scale=0.05, size=384).astype(np.float32)
    shorter = "[" + ",".join(f"%.{digits}g" % x for x in vector.tolist()) + "]"
    assert not stored_equal(shorter, pgvector_text(vector))
