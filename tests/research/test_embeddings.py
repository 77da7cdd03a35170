"""The ONNX embedder against its reference, sentence-transformers on torch, on real RBI text."""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from django.test import override_settings

from research.ingest.chunking import chunk_pages
from research.ingest.parsers import Page, parse
from research.retrieval.embeddings import MiniLMEmbedder, MiniLMOnnxEmbedder, onnx_model_path
from tests.research.conftest import ANNUAL_REPORT, MPC_AUG_2024


@pytest.fixture(scope="module")
def torch_embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture(scope="module")
def onnx_embedder() -> MiniLMOnnxEmbedder:
    return MiniLMOnnxEmbedder()


@pytest.fixture(scope="module")
def rbi_texts(torch_embedder: MiniLMEmbedder) -> list[str]:
    """Real chunks of the August 2024 minutes as ingestion makes them, a short query, and whole
    annual-report pages far longer than the model's 256-token window."""
    pages: list[Page] = parse("pdf", MPC_AUG_2024.read_bytes())
    chunks = chunk_pages(pages[:6], count_tokens=torch_embedder.count_tokens, max_tokens=200, overlap=40)
    long_pages = [p for p in ANNUAL_REPORT.read_text().split("\f")[46:80] if len(p) > 3000][:3]
    return ["repo rate decision", *[c.text for c in chunks[:24]], *long_pages]


def test_onnx_vectors_match_sentence_transformers(
    torch_embedder: MiniLMEmbedder, onnx_embedder: MiniLMOnnxEmbedder, rbi_texts: list[str]
) -> None:
    reference = torch_embedder.embed(rbi_texts)
    ours = onnx_embedder.embed(rbi_texts)
    assert ours.shape == reference.shape == (len(rbi_texts), 384)
    assert ours.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cosines = (ours * reference).sum(axis=1)
    assert cosines.min() >= 0.9999
    assert np.abs(ours - reference).max() < 1e-4
    # Batching and the length-sorted order inside a batch change nothing: one text at a time agrees.
    single = np.vstack([onnx_embedder.embed([t]) for t in rbi_texts[:5]])
    assert np.abs(single - ours[:5]).max() < 1e-5


def test_truncation_at_256_word_pieces_is_the_same(
    torch_embedder: MiniLMEmbedder, onnx_embedder: MiniLMOnnxEmbedder, rbi_texts: list[str]
) -> None:
    long_texts = [t for t in rbi_texts if torch_embedder.count_tokens([t])[0] > 400]
    assert len(long_texts) >= 2
    reference_ids = torch_embedder.model.tokenize(long_texts)["input_ids"].tolist()
    ours = onnx_embedder.encode_ids(long_texts)
    assert ours == reference_ids
    assert {len(ids) for ids in ours} == {256}  # [CLS] + 254 word pieces + [SEP]
    # Text past the window is not read: adding more changes neither embedder's vector.
    extended = [t + " Inflation surged to fifteen per cent and the repo rate was raised." for t in long_texts]
    assert np.abs(onnx_embedder.embed(extended) - onnx_embedder.embed(long_texts)).max() < 1e-6
    assert np.abs(torch_embedder.embed(extended) - onnx_embedder.embed(long_texts)).max() < 1e-4


def test_export_happens_once_under_concurrent_first_use(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="research.retrieval.embeddings")
    paths: list[str] = []
    with override_settings(VAR_DIR=tmp_path):
        threads = [threading.Thread(target=lambda: paths.append(onnx_model_path())) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        again = onnx_model_path()
    assert len(paths) == 2 and paths[0] == paths[1] == again
    assert sum(r.getMessage().startswith("Exporting") for r in caplog.records) == 1
    assert sorted(p.name for p in (tmp_path / "models").iterdir() if not p.name.endswith(".lock")) == [Path(again).name]


def test_falls_back_to_torch_without_onnxruntime(
    monkeypatch: pytest.MonkeyPatch, torch_embedder: MiniLMEmbedder
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # what a missing package looks like
    embedder = MiniLMOnnxEmbedder()
    text = "The MPC kept the policy repo rate unchanged at 6.50 per cent."
    np.testing.assert_array_equal(embedder.embed([text]), torch_embedder.embed([text]))


def test_query_embeddings_are_remembered_per_process(onnx_embedder: MiniLMOnnxEmbedder) -> None:
    from research.retrieval.search import query_vector

    query_vector.cache_clear()
    first = query_vector("policy repo rate unchanged")
    again = query_vector("policy repo rate unchanged")
    assert again is first and query_vector.cache_info().hits == 1
    assert not first.flags.writeable  # shared between callers, so nobody may change it in place
    other = query_vector("gross market borrowings")
    assert query_vector.cache_info().misses == 2
    np.testing.assert_allclose(first, onnx_embedder.embed(["policy repo rate unchanged"])[0], atol=1e-6)
    assert float(first @ other) < 0.9


@pytest.mark.parametrize(("spin", "expected"), [(False, "0"), (True, "1")])
def test_onnx_threads_spin_only_when_configured(spin: bool, expected: str) -> None:
    """Spinning threads take a core from the BM25 side of a search that runs beside the query's
    embedding (config/settings.py RESEARCH_ONNX_SPIN); the session must carry the setting."""
    with override_settings(RESEARCH_ONNX_SPIN=spin):
        embedder = MiniLMOnnxEmbedder()
        embedder.embed(["repo rate decision"])
    options = embedder._session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == expected
