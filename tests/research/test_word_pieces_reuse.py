"""Ingestion hands the chunker's word pieces to the model instead of letting it tokenize each passage
again. That is only right if a passage's pieces are exactly what the model's own tokenizer makes of
the passage's text, and if the model then returns the very same vectors. Checked on every passage of
the shipped MPC minutes, filings and annual report, against the tokenizer run on the joined text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.test import override_settings

from research.ingest.chunking import ChunkDraft
from research.ingest.parsers import sniff
from research.ingest.pipeline import parse_and_chunk
from research.retrieval.embeddings import MiniLMOnnxEmbedder, get_embedder

pytestmark = pytest.mark.corpus  # reads every passage of the shipped corpus

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = [
    *sorted((ROOT / "data/rbi/mpc-minutes").glob("*.pdf")),
    *sorted((ROOT / "data/filings").glob("*.pdf")),
    ROOT / "data/rbi/annual-report-2023-24/rbi-annual-report-2023-24.txt",  # ₹, lakh crore, tables as text
]


@pytest.fixture(scope="module")
def shipped_drafts() -> list[ChunkDraft]:
    drafts = []
    for path in SHIPPED:
        data = path.read_bytes()
        drafts += parse_and_chunk(sniff(path.name, data), data, name=path.name)[1]
    return drafts


def test_every_shipped_passage_carries_the_word_pieces_its_text_tokenizes_to(shipped_drafts: list[ChunkDraft]) -> None:
    embedder = get_embedder()
    assert isinstance(embedder, MiniLMOnnxEmbedder)
    assert len(SHIPPED) >= 18 and len(shipped_drafts) > 3000
    read_by_model = embedder.encode_ids([d.text for d in shipped_drafts])  # [CLS] … [SEP], as the model reads it
    cls, sep = read_by_model[0][0], read_by_model[0][-1]
    # The model reads at most its window: a passage longer than that (3 of the shipped ones, whose
    # over-long "sentences" of figures split into parts that still do not fit) is cut in both.
    window = embedder.max_tokens - 2
    framed = [[cls, *d.pieces[:window], sep] for d in shipped_drafts]
    mismatched = [d.text[:80] for d, ids, f in zip(shipped_drafts, read_by_model, framed, strict=True) if ids != f]
    assert mismatched == []
    assert sum(len(d.pieces) > window for d in shipped_drafts) == 3
    assert all(d.token_count == len(d.pieces) for d in shipped_drafts)


def test_the_model_returns_the_same_vectors_from_the_pieces_as_from_the_text(
    shipped_drafts: list[ChunkDraft],
) -> None:
    embedder = get_embedder()
    # Short and long passages from every kind of file, and those longer than the model's window.
    sample = shipped_drafts[::97][:40] + [d for d in shipped_drafts if len(d.pieces) > embedder.max_tokens - 2]
    texts = [d.text for d in sample]
    from_text = embedder.embed(texts)
    from_pieces = embedder.embed(texts, [d.pieces for d in sample])
    assert from_pieces.shape == (len(sample), embedder.dim)
    np.testing.assert_array_equal(from_pieces, from_text)
    # The pieces are really read: another text's pieces give another vector.
    swapped = embedder.embed(texts[:2], [sample[1].pieces, sample[0].pieces])
    assert not np.allclose(swapped[0], from_text[0])
    np.testing.assert_array_equal(swapped[0], from_text[1])


def test_ingestion_hands_the_chunkers_pieces_to_the_model(db: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.services import user_ensure
    from research.services import UploadFile, document_ingest, document_upload

    embedder = get_embedder()
    assert isinstance(embedder, MiniLMOnnxEmbedder)
    real = embedder.embed_batches
    calls: list[tuple[list[str], Any]] = []

    def watched(texts: list[str], pieces: Any = None) -> Any:
        calls.append((list(texts), pieces))
        yield from real(texts, pieces)

    monkeypatch.setattr(embedder, "embed_batches", watched)
    owner, _ = user_ensure(email="pieces@example.test", roles=["analyst"], password=None)
    text = "\n\n".join(f"Paragraph {i}: the reverse repo window stayed open for {i} days." for i in range(30))
    with override_settings(RESEARCH_EMBED_CACHE_DIR="", RESEARCH_EMBED_SEED_DIR="", RESEARCH_FILINGS_EMBED_SEED_DIR=""):
        upload = document_upload(user=owner, files=[UploadFile(name="window.txt", data=text.encode())]).created[0]
        assert document_ingest(document_id=upload.pk).status == "done"
    assert calls and sum(len(texts) for texts, _ in calls) == upload.chunks.count()
    for texts, pieces in calls:
        assert pieces is not None
        assert [[*p] for p in pieces] == [ids[1:-1] for ids in embedder.encode_ids(texts)]
