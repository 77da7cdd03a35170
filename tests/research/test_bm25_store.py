"""The shared BM25 index on disk: mapped (not copied), identical to rank_bm25.BM25Okapi after
incremental adds, deletions and merges, and published whole or not at all."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from research.ingest.chunking import chunk_pages
from research.ingest.parsers import parse, parse_text
from research.retrieval import bm25_store, bm25_update
from research.retrieval.bm25_index import Bm25Params
from research.retrieval.bm25_store import HashVocab, open_version
from research.retrieval.bm25_update import Draft
from research.retrieval.embeddings import get_embedder
from research.retrieval.text import tokenize
from tests.research.conftest import MPC_AUG_2024, annual_report_excerpt
from tests.research.test_bm25 import QUERIES


@pytest.fixture(scope="module")
def rows() -> list[tuple[int, int, str]]:
    """(chunk id, document id, text) of real RBI passages; ids with gaps, three documents."""
    pages = parse("pdf", MPC_AUG_2024.read_bytes()) + parse_text(annual_report_excerpt())
    chunks = chunk_pages(pages, word_pieces=get_embedder().word_pieces, max_tokens=200, overlap=40)
    return [(10 + 3 * i, 1 + i % 3, c.text) for i, c in enumerate(chunks)]


def publish(root: Path, version: int, base: int | None, add: list[Any], remove: Iterable[int] = ()) -> Draft:
    draft = Draft(root, open_version(root, base) if base is not None else None)
    draft.remove(np.asarray(sorted(remove), dtype=np.int64))
    draft.add([add])
    draft.compact()
    assert draft.publish(version)
    return draft


def mapped(array: np.ndarray) -> bool:
    """The array is a view of a read-only file map (not a copy in this process)."""
    return isinstance(array.base, np.memmap) and array.base.mode == "r"


def assert_equals_reference(root: Path, version: int, rows: list[tuple[int, int, str]]) -> None:
    """Scores and top-10 of the mapped version equal BM25Okapi over ``rows`` (ascending chunk ids)."""
    stored = open_version(root, version)
    assert stored is not None
    index = stored.index(Bm25Params())
    assert index.ids.tolist() == [r[0] for r in rows]
    reference = BM25Okapi([tokenize(text) for _, _, text in rows])
    for query in QUERIES:
        want = reference.get_scores(tokenize(query))
        np.testing.assert_allclose(index.scores(query), want, rtol=1e-9, atol=1e-12, err_msg=query)
        terms = set(tokenize(query))
        order = np.argsort(-want, kind="stable")
        expected = [rows[i][0] for i in order if terms & set(tokenize(rows[i][2]))][:10]
        assert [cid for cid, _ in index.top(query, 10)] == expected, query
        # The exact-evidence list (research/retrieval/exact.py) asks how many live rows hold a term.
        for term in terms:
            assert index.document_frequency(term) == sum(term in set(tokenize(r[2])) for r in rows), term
    assert index.document_frequency("zanzibarcorridor") == 0


def test_a_mapped_version_ranks_exactly_like_rank_bm25_after_adds_and_deletions(
    tmp_path: Path, rows: list[tuple[int, int, str]]
) -> None:
    assert len(rows) > 80
    publish(tmp_path, 1, None, rows[:50])
    assert_equals_reference(tmp_path, 1, rows[:50])
    removed = {rows[3][0], rows[17][0], rows[60][0]}
    publish(tmp_path, 2, 1, rows[50:], remove={rows[3][0], rows[17][0]})
    publish(tmp_path, 3, 2, [], remove={rows[60][0]})
    assert_equals_reference(tmp_path, 3, [r for r in rows if r[0] not in removed])
    # Version 1 is untouched by what came after it: versions are immutable.
    assert_equals_reference(tmp_path, 1, rows[:50])
    stored = open_version(tmp_path, 3)
    assert stored is not None
    # Mapped from the files, not read into this process.
    assert all(mapped(s.post_rows) and mapped(s.post_tf) and mapped(s.lengths) for s in stored.segments)
    assert mapped(stored.df) and mapped(stored.vocab.hashes)
    assert [len(d) for d in stored.deads] == [2, 1]  # deleted rows are marked, segments not rewritten


def test_a_searcher_s_statistics_leave_out_the_documents_hidden_from_them(
    tmp_path: Path, rows: list[tuple[int, int, str]]
) -> None:
    """For someone who may not see document 1, the mapped index scores like BM25Okapi over the
    passages they can see, as if document 1 had never been indexed: its words change no score
    they are shown. Document 1 has rows in both segments, and deleted rows in both."""
    publish(tmp_path, 1, None, rows[:50])
    publish(tmp_path, 2, 1, rows[50:], remove={rows[3][0], rows[17][0]})
    publish(tmp_path, 3, 2, [], remove={rows[60][0]})
    stored = open_version(tmp_path, 3)
    assert stored is not None and [len(d) for d in stored.deads] == [2, 1]
    removed = {rows[3][0], rows[17][0], rows[60][0]}
    assert rows[3][1] == rows[60][1] == 1
    index = stored.index(Bm25Params())
    view = index.seen_without([1, 404])  # 404: no such document indexed
    seen = [r for r in rows if r[1] != 1 and r[0] not in removed]
    assert len(view) == len(seen) and view is index.seen_without([404, 1, 1])  # computed once
    reference = BM25Okapi([tokenize(text) for _, _, text in seen])
    for query in QUERIES:
        want = reference.get_scores(tokenize(query))
        terms = set(tokenize(query))
        expected = sorted(
            ((cid, want[i]) for i, (cid, _, text) in enumerate(seen) if terms & set(tokenize(text))),
            key=lambda hit: (-hit[1], hit[0]),
        )[:10]
        got = view.top(query, 10, allowed_doc_ids=[2, 3])
        assert [cid for cid, _ in got] == [cid for cid, _ in expected], query
        np.testing.assert_allclose([s for _, s in got], [s for _, s in expected], rtol=1e-9, err_msg=query)
        for term in terms:  # what the exact-evidence list reads
            assert view.document_frequency(term) == sum(term in set(tokenize(r[2])) for r in seen), term
    assert index.seen_without([]) is index and index.seen_without([404]) is index
    # The whole index scores the same passages otherwise: a leak would not go unseen here.
    assert index.top("inflation", 5, allowed_doc_ids=[2, 3]) != view.top("inflation", 5, allowed_doc_ids=[2, 3])


def test_merged_segments_rank_exactly_like_rank_bm25(
    tmp_path: Path, rows: list[tuple[int, int, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bm25_update, "MERGE_FACTOR", 2)
    removed: set[int] = set()
    for version, start in enumerate(range(0, len(rows), 7), start=1):
        gone = {rows[start - 5][0]} if start >= 7 else set()
        removed |= gone
        publish(tmp_path, version, version - 1 if version > 1 else None, rows[start : start + 7], remove=gone)
    stored = open_version(tmp_path, version)
    assert stored is not None
    # Without merging there would be one segment per publish.
    assert len(stored.segments) < version / 2
    assert_equals_reference(tmp_path, version, [r for r in rows if r[0] not in removed])


def test_filters_apply_before_ranking_on_the_mapped_index(tmp_path: Path, rows: list[tuple[int, int, str]]) -> None:
    publish(tmp_path, 1, None, rows[:40])
    publish(tmp_path, 2, 1, rows[40:])
    stored = open_version(tmp_path, 2)
    assert stored is not None
    index = stored.index(Bm25Params())
    only_two = index.top("inflation", 5, allowed_doc_ids=[2])
    docs = {cid: doc for cid, doc, _ in rows}
    assert len(only_two) == 5 and {docs[cid] for cid, _ in only_two} == {2}
    assert index.top("inflation", 5, allowed_doc_ids=[]) == []
    assert index.top("inflation", 5, allowed_doc_ids=[99]) == []


def test_a_crash_before_publishing_leaves_no_version_and_the_previous_one_intact(
    tmp_path: Path, rows: list[tuple[int, int, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    publish(tmp_path, 1, None, rows[:40])
    real_publish_dir = bm25_store.publish_dir

    def crash_on_version(stage: Path, target: Path) -> bool:
        if target.parent.name == "versions":
            raise SystemExit("killed between building and publishing")
        return real_publish_dir(stage, target)

    monkeypatch.setattr(bm25_store, "publish_dir", crash_on_version)
    with pytest.raises(SystemExit):
        publish(tmp_path, 2, 1, rows[40:])
    monkeypatch.undo()
    assert open_version(tmp_path, 2) is None
    assert not (tmp_path / "versions" / "2").exists()
    staged = [p.name for p in (tmp_path / "tmp").iterdir()]
    assert any(name.startswith("version-2-") for name in staged)  # fully written, never renamed
    assert_equals_reference(tmp_path, 1, rows[:40])
    # The next writer builds on version 1; the leftovers are removed once stale.
    publish(tmp_path, 3, 1, rows[40:])
    assert_equals_reference(tmp_path, 3, rows)
    old = time.time() - bm25_store.STAGING_MAX_AGE_SECONDS - 60
    for path in [*(tmp_path / "tmp").iterdir(), *(tmp_path / "segments").iterdir(), *(tmp_path / "vocab").iterdir()]:
        os.utime(path, (old, old))
    for version in (1, 3):
        os.utime(tmp_path / "versions" / str(version), (old, old))
    bm25_store.cleanup(tmp_path, keep={3})
    assert list((tmp_path / "tmp").iterdir()) == []
    assert bm25_store.published_versions(tmp_path) == [3]
    assert_equals_reference(tmp_path, 3, rows)  # nothing version 3 lists was removed


def test_vocabulary_lookup_survives_hash_collisions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bm25_store, "term_hash", lambda term: 7 if term in {"repo", "rate", "cut"} else len(term))
    vocab = HashVocab.empty().extended(["repo", "inflation", "rate"]).extended(["cut", "gdp"])
    assert [vocab.get(t) for t in ("repo", "inflation", "rate", "cut", "gdp", "hike")] == [0, 1, 2, 3, 4, None]
    assert vocab.term(3) == "cut" and len(vocab) == 5
    # The batch lookup agrees, colliding terms and terms past the last hash included.
    terms = ["cut", "hike", "gdp", "rate", "repo", "inflation", "zz", "policy repo rate", "", "rate"]
    assert vocab.get_many(terms) == [3, None, 4, 2, 0, 1, None, None, None, 2]
    assert HashVocab.empty().get_many(["repo"]) == [None] and vocab.get_many([]) == []


def test_batch_lookup_matches_one_at_a_time_over_a_real_vocabulary(rows: list[tuple[int, int, str]]) -> None:
    from research.retrieval.text import tokenize

    words = list(dict.fromkeys(t for _c, _d, text in rows for t in tokenize(text)))
    vocab = HashVocab.empty().extended(words[::2])
    assert vocab.get_many(words) == [vocab.get(w) for w in words]
    assert vocab.get_many(words)[:4] == [0, None, 1, None]


def test_opening_the_next_version_maps_only_its_new_segment_and_notices_a_removed_one(
    tmp_path: Path, rows: list[tuple[int, int, str]]
) -> None:
    publish(tmp_path, 1, None, rows[:20])
    publish(tmp_path, 2, 1, rows[20:40])
    first, second = open_version(tmp_path, 1), open_version(tmp_path, 2)
    assert first is not None and second is not None and len(second.segments) == 2
    older = next(s for s, name in zip(second.segments, second.manifest.segments, strict=True)
                 if name == first.manifest.segments[0])  # fmt: skip
    assert older is first.segments[0]  # the same map, not opened again
    assert_equals_reference(tmp_path, 2, rows[:40])
    # A segment cleaned up is noticed, not served from a map this process still holds.
    import shutil

    shutil.rmtree(tmp_path / "segments" / second.manifest.segments[-1])
    assert open_version(tmp_path, 2) is None
    # Only the segments of the version opened last stay mapped.
    assert open_version(tmp_path, 1) is not None
    assert set(bm25_store._OPENED) == {(tmp_path, name) for name in first.manifest.segments}
