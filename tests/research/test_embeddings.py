"""The ONNX embedder against its reference, sentence-transformers on torch, on real RBI text."""

from __future__ import annotations

import logging
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from django.test import override_settings

from research.ingest.chunking import chunk_pages
from research.ingest.parsers import Page, parse
from research.retrieval.embeddings import MiniLMEmbedder, MiniLMOnnxEmbedder, onnx_model_path
from tests.research.conftest import ANNUAL_REPORT, MPC_AUG_2024

pytestmark = pytest.mark.slow  # runs the reference model on torch beside the ONNX one


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
    chunks = chunk_pages(pages[:6], word_pieces=torch_embedder.word_pieces, max_tokens=200, overlap=40)
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
    long_texts = [t for t in rbi_texts if len(torch_embedder.word_pieces([t])[0]) > 400]
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


def _record_batches(
    embedder: MiniLMOnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[int, int, float, float]]:
    """(thread, texts, start, end) of every model run ``embedder`` makes from now on."""
    runs: list[tuple[int, int, float, float]] = []
    inner = embedder._embed_batch

    def recorded(encoded: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        began = time.perf_counter()
        vectors = inner(encoded)
        runs.append((threading.get_ident(), len(encoded[0]), began, time.perf_counter()))
        return vectors

    monkeypatch.setattr(embedder, "_embed_batch", recorded)
    return runs


def test_a_bulk_embedding_runs_one_batch_per_core_side_by_side(
    onnx_embedder: MiniLMOnnxEmbedder, rbi_texts: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ingestion's steps (32 texts) run as one single-threaded batch per core, at the same time,
    each batch texts of similar length; the vectors come back in the order of the texts."""
    texts = rbi_texts[:26]
    alone = np.vstack([onnx_embedder.embed([t]) for t in texts])
    monkeypatch.setattr(onnx_embedder, "workers", 2)
    batches = onnx_embedder.batches(texts)
    by_length = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    assert [len(b) for b in batches] == [13, 13] and batches[0] + batches[1] == by_length
    runs = _record_batches(onnx_embedder, monkeypatch)
    together = onnx_embedder.embed(texts)
    assert np.abs(together - alone).max() < 1e-5
    assert sorted(n for _t, n, _s, _e in runs) == [13, 13]
    threads = {thread for thread, *_ in runs}
    assert len(threads) == 2 and threading.get_ident() not in threads
    (_, _, start_a, end_a), (_, _, start_b, end_b) = runs
    assert max(start_a, start_b) < min(end_a, end_b)  # the two runs overlapped in time
    assert onnx_embedder._session.get_session_options().intra_op_num_threads == 1


def test_batch_by_batch_every_text_comes_once_with_its_own_vector(
    onnx_embedder: MiniLMOnnxEmbedder,
    torch_embedder: MiniLMEmbedder,
    rbi_texts: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What ingestion reads: each batch's positions and vectors as the batch is done. Put back in
    place they are embed()'s vectors, which match the reference model's."""
    monkeypatch.setattr(onnx_embedder, "workers", 2)
    texts = rbi_texts[:26]
    batches = list(onnx_embedder.embed_batches(texts))
    assert sorted(len(picks) for picks, _ in batches) == [13, 13]
    assert sorted(p for picks, _ in batches for p in picks) == list(range(26))
    placed = np.zeros((26, 384), dtype=np.float32)
    for picks, vectors in batches:
        assert vectors.shape == (len(picks), 384)
        placed[picks] = vectors
    assert np.abs(placed - onnx_embedder.embed(texts)).max() < 1e-6
    assert ((placed * torch_embedder.embed(texts)).sum(axis=1)).min() >= 0.9999
    assert list(onnx_embedder.embed_batches([])) == [] and onnx_embedder.embed([]).shape == (0, 384)
    ((torch_picks, torch_vectors),) = torch_embedder.embed_batches(texts[:3])  # one batch: the whole call
    assert torch_picks == [0, 1, 2] and np.abs(torch_vectors - torch_embedder.embed(texts[:3])).max() < 1e-6


def test_batches_hold_at_most_the_batch_size_and_one_worker_keeps_the_order(
    rbi_texts: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = MiniLMOnnxEmbedder(batch_size=4)
    embedder.workers = 2
    texts = rbi_texts[:11]
    batches = embedder.batches(texts)
    assert [len(b) for b in batches] == [4, 4, 3]
    assert [i for b in batches for i in b] == sorted(range(11), key=lambda i: len(texts[i]))
    assert [len(b) for b in embedder.batches(texts[:3])] == [2, 1]  # both workers get a share
    # One worker, one batch: run in the calling thread, and still returned in the texts' order.
    embedder.workers = 1
    mixed = [rbi_texts[5], rbi_texts[0], rbi_texts[-1]]
    alone = np.vstack([embedder.embed([t]) for t in mixed])
    runs = _record_batches(embedder, monkeypatch)
    assert np.abs(embedder.embed(mixed) - alone).max() < 1e-5
    assert [(thread, n) for thread, n, _s, _e in runs] == [(threading.get_ident(), 3)]
