"""Ingestion embeds the next step of passages while the service is still writing the current one."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import pytest

from research.ingest.parsers import parse
from research.ingest.pipeline import EmbeddingAhead
from research.retrieval.embeddings import MiniLMOnnxEmbedder, get_embedder
from tests.research.conftest import MPC_AUG_2024


@pytest.fixture(scope="module")
def sentences() -> list[str]:
    paragraphs = [p.text for page in parse("pdf", MPC_AUG_2024.read_bytes()) for p in page.paragraphs]
    return [p for p in paragraphs if len(p) > 80][:20]


def embedded_so_far(reported: list[tuple[float, str]]) -> int:
    """Passages the background thread has embedded, from its last progress message."""
    return int(reported[-1][1].split()[1]) if reported else 0


def wait_for(condition: Any, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_the_next_steps_are_embedded_while_the_caller_writes_and_no_more(sentences: list[str], settings: Any) -> None:
    settings.RESEARCH_EMBED_PROGRESS_STEP = 4
    settings.RESEARCH_EMBED_AHEAD_STEPS = 2
    settings.RESEARCH_EMBED_CACHE_DIR = ""  # the model's own batches, two a step
    reported: list[tuple[float, str]] = []
    steps = EmbeddingAhead(sentences, progress=lambda fraction, message: reported.append((fraction, message)))
    batches = [next(steps)]
    # While this caller is still busy with a batch of step 0, steps 1 and 2 get embedded and no
    # more: memory stays bounded however slow the writes are.
    wait_for(lambda: embedded_so_far(reported) >= 12)
    time.sleep(0.5)
    assert embedded_so_far(reported) == 12
    batches += list(steps)
    # Each batch lies within one step, the steps come in order, and every passage comes once.
    step_of = [min(positions) // 4 for positions, _ in batches]
    assert step_of == sorted(step_of) and all(max(p) // 4 == s for (p, _), s in zip(batches, step_of, strict=True))
    assert sorted(p for positions, _ in batches for p in positions) == list(range(20))
    vectors = np.zeros((20, 384), dtype=np.float32)
    for positions, embedded in batches:
        vectors[positions] = embedded
    np.testing.assert_allclose(vectors, get_embedder().embed(sentences), atol=1e-5)
    assert reported[-1] == (1.0, "Embedded 20 of 20 passages")
    assert [f for f, _ in reported] == sorted(f for f, _ in reported) and reported[0][0] > 0.15
    assert len(reported) == 5  # a line a step, not a batch


def test_a_batch_is_handed_over_while_the_other_batch_of_its_step_is_still_embedded(
    sentences: list[str], settings: Any, monkeypatch: Any
) -> None:
    settings.RESEARCH_EMBED_PROGRESS_STEP = 8
    settings.RESEARCH_EMBED_CACHE_DIR = ""
    embedder = get_embedder()
    assert isinstance(embedder, MiniLMOnnxEmbedder)
    monkeypatch.setattr(embedder, "workers", 2)  # two model threads, a batch each
    real = embedder._embed_batch
    first_taken, finishing = threading.Event(), threading.Lock()
    held: list[bool] = []

    def embed_batch(encoded: Any) -> Any:
        vectors = real(encoded)
        with finishing:
            first = not held
            if first:
                held.append(True)  # the first batch to finish goes; the other waits for the caller
        if not first:
            held.append(first_taken.wait(timeout=30))
        return vectors

    monkeypatch.setattr(embedder, "_embed_batch", embed_batch)
    steps = EmbeddingAhead(sentences[:8])
    first_positions, _ = next(steps)
    first_taken.set()
    rest = list(steps)
    assert len(first_positions) == 4 and len(rest) == 1
    assert held == [True, True]  # the second batch had not finished when the first was taken


def test_an_error_in_the_embedding_thread_reaches_the_caller(sentences: list[str], settings: Any) -> None:
    settings.RESEARCH_EMBED_PROGRESS_STEP = 4
    steps = EmbeddingAhead([*sentences[:4], None, "and more"])  # type: ignore[list-item]
    taken: list[int] = []
    with pytest.raises(TypeError):
        for positions, _vectors in steps:
            taken += positions
    assert sorted(taken) == [0, 1, 2, 3]  # the first step came through whole


def test_stopping_early_stops_the_thread(sentences: list[str], settings: Any) -> None:
    settings.RESEARCH_EMBED_PROGRESS_STEP = 2
    steps = EmbeddingAhead(sentences)
    next(steps)
    steps.close()  # e.g. the database write failed and the transaction is rolling back
    assert not [t for t in threading.enumerate() if t.name == "embed-ahead"]


def test_the_last_step_is_kept_small_so_few_writes_follow_the_model(settings: Any) -> None:
    from research.ingest.pipeline import embedding_steps

    settings.RESEARCH_EMBED_PROGRESS_STEP = 32
    settings.RESEARCH_EMBED_LAST_STEP = 8
    assert embedding_steps(0) == []
    assert embedding_steps(5) == [(0, 5)]
    assert embedding_steps(8) == [(0, 8)]
    assert embedding_steps(20) == [(0, 12), (12, 20)]
    assert embedding_steps(40) == [(0, 32), (32, 40)]
    assert embedding_steps(56) == [(0, 32), (32, 48), (48, 56)]
    assert embedding_steps(191) == [(0, 32), (32, 64), (64, 96), (96, 128), (128, 160), (160, 183), (183, 191)]
    for count in range(0, 300):
        steps = embedding_steps(count)
        assert [s for s, _ in steps[1:]] == [e for _, e in steps[:-1]]  # contiguous, in order
        assert all(0 < e - s <= 32 for s, e in steps) and (not steps or steps[-1][1] == count)
        assert not steps or steps[-1][1] - steps[-1][0] <= 8


def test_the_last_step_is_announced_from_the_embedding_thread_before_it_is_embedded(
    sentences: list[str], settings: Any, monkeypatch: Any
) -> None:
    settings.RESEARCH_EMBED_PROGRESS_STEP = 8
    settings.RESEARCH_EMBED_LAST_STEP = 4
    settings.RESEARCH_EMBED_CACHE_DIR = ""
    embedder = get_embedder()
    real = embedder.embed_batches
    events: list[tuple[str, str]] = []

    def watched(texts: list[str], pieces: Any = None) -> Any:
        events.append(("embed", texts[0]))
        yield from real(texts, pieces)

    monkeypatch.setattr(embedder, "embed_batches", watched)

    def announced() -> None:
        events.append(("last step", threading.current_thread().name))

    list(EmbeddingAhead(sentences, on_last_step=announced))  # 20 texts: 0-8, 8-16, 16-20
    assert events == [
        ("embed", sentences[0]),
        ("embed", sentences[8]),
        ("last step", "embed-ahead"),
        ("embed", sentences[16]),
    ]
    events.clear()
    list(EmbeddingAhead(sentences[:4], on_last_step=announced))  # one step: nothing to announce
    assert events == [("embed", sentences[0])]
