"""Ingestion does its writes ahead of the model's last step: the embedding starts before the
service's own preparations, the chunk ids are taken first, and the next BM25 version is built
(staged) while the last step is embedded, then published once its passages are written."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

import research.ingest.store as store
from research.ingest.pipeline import EmbeddingAhead
from research.models import Chunk, Document
from research.retrieval import bm25
from research.retrieval.text import tokenize
from research.services import _set_progress
from tests.research.conftest import ingest

# Eleven pages, one passage each (a passage never crosses a page): at two passages a step with a
# last step of one, that is steps 0-2, 2-4, 4-6, 6-8, 8-10 and 10-11. Each page's words differ, or
# the parser would strip them as a running header.
DESKS = ["Mumbai", "Delhi", "Chennai", "Kolkata", "Pune", "Jaipur", "Lucknow", "Indore", "Nagpur", "Surat", "Patna"]
WOMBAT = b"# Wombat desk note\n\nThe wombat corridor was narrowed."
NOTE = "\f".join(
    f"The numbat facility of the {desk} desk was rolled over at the corridor rate." for desk in DESKS
).encode()


@pytest.fixture
def small_steps(settings: Any) -> None:
    settings.RESEARCH_EMBED_PROGRESS_STEP = 2
    settings.RESEARCH_EMBED_LAST_STEP = 1
    settings.RESEARCH_EMBED_CACHE_DIR = ""


def test_the_model_starts_before_the_caller_asks_for_a_step() -> None:
    reported: list[str] = []
    steps = EmbeddingAhead(
        ["the repo rate was kept at 6.5 per cent"], progress=lambda f, message: reported.append(message)
    )
    try:
        deadline = time.monotonic() + 60
        while not reported and time.monotonic() < deadline:  # the caller prepares; nothing asked yet
            time.sleep(0.01)
        assert reported == ["Embedded 1 of 1 passages"]
    finally:
        steps.close()
    assert not [t for t in threading.enumerate() if t.name == "embed-ahead"]


def test_the_bm25_version_is_built_before_the_last_step_is_written_and_published_after(
    db: Any, analyst: Any, small_steps: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest(analyst, "wombat.md", WOMBAT)  # a published version to build on
    events: list[tuple[str, int]] = []
    write_step, stage, publish = store._write_step, store.corpus_version_stage, store.corpus_version_publish

    def writing(document_id: int, drafts: Any, ids: Any, ordinals: Any, vectors: Any) -> None:
        events.extend(("write", ordinal) for ordinal in ordinals)
        write_step(document_id, drafts, ids, ordinals, vectors)

    def staging(changes: bm25.ChunkChanges, *, unwritten: int) -> Any:
        # The passages written so far are in the database; the last one is not.
        events.append(("stage", unwritten))
        assert Chunk.objects.filter(id__in=changes.added).count() == len(changes.added) - unwritten
        return stage(changes, unwritten=unwritten)

    def publishing(staged: Any) -> int:
        events.append(("publish", Chunk.objects.filter(document__title__icontains="numbat").count()))
        return publish(staged)

    monkeypatch.setattr(store, "_write_step", writing)
    monkeypatch.setattr(store, "corpus_version_stage", staging)
    monkeypatch.setattr(store, "corpus_version_publish", publishing)
    document = ingest(analyst, "numbat.txt", NOTE)
    assert document.chunk_count == 11
    # Every passage of the steps before the last is written (a step's two batches in whichever
    # order the model finished them), then the version staged, the last passage written, published.
    staged_at = events.index(("stage", 1))
    assert sorted(events[:staged_at]) == [("write", ordinal) for ordinal in range(10)]
    assert [ordinal // 2 for _, ordinal in events[:staged_at]] == [ordinal // 2 for ordinal in range(10)]
    assert events[staged_at:] == [("stage", 1), ("write", 10), ("publish", 11)]
    # Built from the texts it was given, the version is the one the database would have given.
    assert bm25.LAST_PUBLISH["mode"] == "changes" and bm25.LAST_PUBLISH["added"] == 11
    assert_index_matches_the_database()


def test_a_change_made_behind_the_services_back_is_still_found_when_the_version_is_staged(
    db: Any, analyst: Any, small_steps: None
) -> None:
    other = ingest(analyst, "wombat.md", WOMBAT)
    Chunk.objects.filter(document=other).delete()  # e.g. a bulk delete from a shell: no new version
    ingest(analyst, "numbat.txt", NOTE)  # counted one step before its last passage is written
    assert bm25.LAST_PUBLISH["mode"] == "reconciled"
    assert_index_matches_the_database()


def assert_index_matches_the_database() -> None:
    index = bm25.process_index.get()
    stored = list(Chunk.objects.order_by("id").values_list("id", "text"))
    assert index.ids.tolist() == [chunk_id for chunk_id, _ in stored]
    reference = BM25Okapi([tokenize(text) for _, text in stored])
    for query in ("numbat facility Pune", "corridor rate", "wombat"):
        np.testing.assert_allclose(index.scores(query), reference.get_scores(tokenize(query)), rtol=1e-9, atol=1e-12)


def test_a_progress_line_does_not_land_on_a_finished_document(db: Any, analyst: Any) -> None:
    document = ingest(analyst, "numbat.txt", NOTE)
    before = (document.progress, document.status_message)
    _set_progress(document.pk, 40, "Embedded 4 of 11 passages")  # a redelivered task's late line
    after = Document.objects.get(pk=document.pk)
    assert (after.status, after.progress, after.status_message) == ("done", *before)
    _set_progress(document.pk, 2, "Reading the file", status=Document.Status.PROCESSING)  # a new run
    assert Document.objects.get(pk=document.pk).status_message == "Reading the file"
