"""BM25 over the library, one shared index per library version, mapped by every process.

Ranking: exactly ``rank_bm25.BM25Okapi`` (the reference; ``tests/research/test_bm25.py``), including
its negative-idf floor (ε × mean idf), which bm25s's variants do not reproduce. Scores are computed
at query time from raw term frequencies and the version's corpus statistics (``bm25_index``).

Sharing (issue 19): the index is files under ``RESEARCH_BM25_DIR`` — immutable segments of rows
and postings plus, per version, the document frequencies and deleted rows (``bm25_store``) —
memory-mapped read-only by every web and worker process, so the page cache holds one copy for
the whole machine. Whoever changes the chunks builds the next version, inside the transaction
that changes them (:func:`corpus_version_bump`): it locks the corpus-state row (one writer at a
time), takes a new version number from the sequence, builds the version from the previous one and
the chunk ids the service added or removed (``bm25_update``: only added chunks are tokenised; a
chunk count that disagrees reconciles by the full id difference), publishes it by renaming its
directory into place, and only then commits. A process reads the version number on every query
(one indexed row) and, when it changed, maps that version's files — milliseconds, no rebuilding.
When a committed version has no files (the first start after an upgrade, a machine that does not
share the directory, files removed), the first process that needs it builds them, under the lock.
Ingestion splits the bump in two (:func:`corpus_version_stage`, :func:`corpus_version_publish`):
it takes its chunk ids first, so the version is built from the texts while the model embeds the
last passages, and only published (renamed into place) once they are written.

Why this form — measured at 1M passages of the shipped RBI text, three real processes, 2 shared
cores (``make bench`` → ``research_scale``; the README has every figure and the 10k/100k rows):

- mapped segments: ~15 MB private per process, the index (108 MB) shared; top-10 p95 ≈ 10 ms CPU
  for FiQA questions, ≈ 22–27 ms for long in-domain sentences; adding a document ≈ 0.2–0.35 s
  inside the transaction, searchable in every process ≈ 0.3–0.5 s after; full build 44 s, once.
- each process building its own copy (what this replaced): ~330 MB private per process and a
  30–40-second build in every process.
- bm25s with ``mmap=True``: ~85–100 MB private per process (its vocabulary and score arrays),
  p95 ≈ 65–70 ms CPU, and a 51-second rebuild on every change (its matrix stores final scores);
  its idf differs from BM25Okapi's.
- a postings table in Postgres with a BM25 aggregate: nothing per process, but seconds per query
  (p95 ≈ 3.5–4 s at 1M: it aggregates every posting of every query term).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import DatabaseError, connection, transaction

from research.retrieval.bm25_index import Bm25Index, Bm25Params, _Builder, build_index
from research.retrieval.bm25_store import StoredVersion, cleanup, discard_version, open_version, published_versions
from research.retrieval.bm25_update import Draft

__all__ = [
    "Bm25Index",
    "Bm25Params",
    "ChunkChanges",
    "StagedVersion",
    "_Builder",
    "build_index",
    "corpus_index_rebuild",
    "corpus_version",
    "corpus_version_bump",
    "corpus_version_publish",
    "corpus_version_stage",
    "process_index",
    "store_root",
]

ROW_BATCH = 20_000
# The last publish in this process: seconds per phase, rows added and removed, how (the benchmark reads it).
LAST_PUBLISH: dict[str, float | int | str] = {}


def _params() -> Bm25Params:
    return Bm25Params(k1=settings.RESEARCH_BM25_K1, b=settings.RESEARCH_BM25_B, epsilon=settings.RESEARCH_BM25_EPSILON)


@cache
def _database_key(name: str) -> str:
    """Names this database's index directory: database name and oid, and the cluster's system
    identifier when the role may read it, so two databases (or a recreated one) never share files."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_database(), oid FROM pg_database WHERE datname = current_database()")
        database, oid = cursor.fetchone()
    system = "0"
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT system_identifier FROM pg_control_system()")
            system = str(cursor.fetchone()[0])
    except DatabaseError:
        pass  # a managed database may not grant it; name and oid still tell databases apart
    return f"{database}-{oid}-{system}"


def store_root() -> Path:
    """The directory of this database's index files."""
    return Path(settings.RESEARCH_BM25_DIR) / _database_key(str(connection.settings_dict["NAME"]))


def corpus_version() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT version FROM research_corpusstate WHERE id = 1")
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def _lock_corpus_state() -> int:
    """Lock the corpus-state row until the transaction ends and return the committed version.
    Every writer of the index holds this lock, so they build one version after another."""
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO research_corpusstate (id, version) VALUES (1, 0) ON CONFLICT (id) DO NOTHING")
        cursor.execute("SELECT version FROM research_corpusstate WHERE id = 1 FOR UPDATE")
        return int(cursor.fetchone()[0])


@dataclass(frozen=True)
class ChunkChanges:
    """The chunk ids a transaction inserted and deleted, as the service that made them knows; and,
    when it has them, the inserted chunks' ``(id, document id, text)``, which are then not read back."""

    added: Sequence[int] = ()
    removed: Sequence[int] = ()
    rows: Sequence[tuple[int, int, str]] | None = None


@dataclass
class StagedVersion:
    """The next corpus version, taken and built but not yet published (:func:`corpus_version_stage`)."""

    version: int
    draft: Draft
    # "changes" (from the service's changes alone); "full" or "reconciled" (count off): by the
    # difference of chunk ids, at the publish
    mode: str
    added: int = 0
    removed: int = 0
    merges: int = 0
    build_s: float = 0.0
    publish_s: float = 0.0


def corpus_index_rebuild() -> int:
    """Publish a new version of the index built from scratch from the database: one segment,
    no deleted rows (``manage.py bm25_rebuild``). Readers move to it on their next query."""
    return corpus_version_bump(None, from_scratch=True)


def corpus_version_bump(changes: ChunkChanges | None = None, *, from_scratch: bool = False) -> int:
    """Call inside the transaction that changes the searchable chunks, after the change: takes a
    new corpus version and publishes the BM25 index files for it before the transaction commits.

    With ``changes`` the index is updated from them alone, then checked against the number of
    chunks (a change that did not come through here — a bulk import, a cascade — is reconciled in
    full); without, by the full difference between the indexed and the stored chunk ids.
    Returns the new version."""
    with transaction.atomic():
        return corpus_version_publish(_stage(changes, from_scratch=from_scratch))


def corpus_version_stage(changes: ChunkChanges, *, unwritten: int = 0) -> StagedVersion:
    """The first half of :func:`corpus_version_bump`, for a writer that knows its chunks before it
    has written the last ``unwritten`` of them (ingestion allocates the chunk ids first): inside
    the transaction, lock the writers' row, take the new version and build its index from
    ``changes`` (with their ``rows``), writing its new segment, while the last chunks are still
    being embedded. The lock holds until the transaction ends; :func:`corpus_version_publish`
    finishes once every chunk of ``changes`` is written."""
    if not connection.in_atomic_block:
        raise RuntimeError("corpus_version_stage must run inside the transaction that writes the chunks")
    return _stage(changes, unwritten=unwritten)


def corpus_version_publish(staged: StagedVersion) -> int:
    """Publish the staged version, first brought to exactly the chunks this transaction sees when
    it was not built from changes, or the chunk count disagreed with it. Returns the version."""
    began = time.perf_counter()
    draft, mode = staged.draft, staged.mode
    if mode != "changes":
        added, removed = _reconcile(draft)
        staged.added, staged.removed = staged.added + added, staged.removed + removed
    built = time.perf_counter()
    staged.merges += draft.compact()  # only a reconciliation can have left anything to merge
    draft.publish(staged.version)
    staged.build_s += built - began
    staged.publish_s += time.perf_counter() - built
    LAST_PUBLISH.clear()
    LAST_PUBLISH.update(
        build_s=staged.build_s, publish_s=staged.publish_s, total_s=staged.build_s + staged.publish_s,
        added=staged.added, removed=staged.removed, merges=staged.merges, segments=len(draft.parts), mode=mode,
    )  # fmt: skip
    return staged.version


def _stage(changes: ChunkChanges | None, *, from_scratch: bool = False, unwritten: int = 0) -> StagedVersion:
    """Lock the writers' row, take the next version and build it (:func:`_build`)."""
    base = _lock_corpus_state()
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE research_corpusstate SET version = nextval('research_corpus_version_seq') WHERE id = 1 "
            "RETURNING version"
        )
        version = int(cursor.fetchone()[0])
    return _build(version, base, changes, from_scratch=from_scratch, unwritten=unwritten)


def _build(
    version: int, base: int, changes: ChunkChanges | None, *, from_scratch: bool = False, unwritten: int = 0
) -> StagedVersion:
    """Build ``version`` from the published ``base`` (or the newest published version, or nothing)
    and ``changes``, writing its new segment and vocabulary, and clean up old versions. The built
    draft is checked against the number of chunks, counting ``unwritten`` more: a change that did
    not come through here (a bulk import, a cascade) is then reconciled in full by the publish,
    as is a version with no usable base or no changes. Caller holds the lock."""
    began = time.perf_counter()
    root = store_root()
    previous = None if from_scratch else open_version(root, base)
    draft = Draft(root, None if from_scratch else previous or _newest_stored(root))
    staged = StagedVersion(version, draft, "changes" if previous is not None and changes is not None else "full")
    if staged.mode == "changes" and changes is not None:
        fresh = np.unique(np.asarray(changes.added, dtype=np.int64))
        # An added id that is somehow indexed already is replaced, not counted twice.
        draft.remove(np.union1d(np.asarray(changes.removed, dtype=np.int64), fresh))
        draft.add(_chunk_rows(fresh) if changes.rows is None else [sorted(changes.rows)])
        staged.added, staged.removed = len(fresh), len(changes.removed)
        if _chunk_count() + unwritten != draft.n:
            staged.mode = "reconciled"
    built = time.perf_counter()
    staged.merges = draft.compact()
    draft.write_files()
    cleanup(root, keep={base, version})
    staged.build_s, staged.publish_s = built - began, time.perf_counter() - built
    return staged


def _live_chunk_ids() -> np.ndarray:
    """Every chunk id this transaction sees, ascending: one binary array from the server (a COPY
    of the ids row by row costs Python a loop per row: 1.9 s against 0.2 s for a million)."""
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy("COPY (SELECT array_agg(id) FROM research_chunk) TO STDOUT (FORMAT BINARY)") as copy,
    ):
        data = b"".join(bytes(block) for block in copy)
    # File header (19 bytes), field count (int16), field length (int32), then the int8[] value:
    # ndim, has-nulls, element type, size, lower bound (5 × int32), each element (int32 length,
    # int64); file trailer (int16). No chunks: the aggregate is NULL (field length -1).
    if len(data) <= 19 + 6 + 2 or int.from_bytes(data[21:25], "big", signed=True) < 0:
        return np.zeros(0, dtype=np.int64)
    elements = np.frombuffer(data[19 + 6 + 20 : -2], dtype=np.dtype([("len", ">i4"), ("id", ">i8")]))
    return np.sort(elements["id"].astype(np.int64))


def _chunk_count() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM research_chunk")
        return int(cursor.fetchone()[0])


def _chunk_rows(chunk_ids: np.ndarray) -> Iterator[list[tuple[int, int, str]]]:
    for start in range(0, len(chunk_ids), ROW_BATCH):
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT id, document_id, text FROM research_chunk WHERE id = ANY(%s) ORDER BY id",
                [chunk_ids[start : start + ROW_BATCH].tolist()],
            )
            yield cursor.fetchall()


def _newest_stored(root: Path) -> StoredVersion | None:
    for version in reversed(published_versions(root)):
        stored = open_version(root, version)
        if stored is not None:
            return stored
    return None


def _reconcile(draft: Draft) -> tuple[int, int]:
    """Bring ``draft`` to exactly the chunks this transaction sees; (added, removed)."""
    live = _live_chunk_ids()
    indexed = draft.chunk_ids()
    removed = np.setdiff1d(indexed, live, assume_unique=True)
    added = np.setdiff1d(live, indexed, assume_unique=True)
    draft.remove(removed)
    draft.add(_chunk_rows(added))
    return len(added), len(removed)


class SharedIndex:
    """This process's map of the shared index at the version the database says is current."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.version = -1
        self.current: Bm25Index | None = None
        self.stored: StoredVersion | None = None

    def get(self) -> Bm25Index:
        version = corpus_version()
        current = self.current
        if current is not None and version == self.version:
            return current
        with self.lock:
            if self.current is None or version != self.version:
                self._map(version)
            assert self.current is not None
            return self.current

    def _map(self, version: int) -> None:
        stored = open_version(store_root(), version)
        if stored is None:
            version, stored = _build_missing()
        self.stored, self.current, self.version = stored, stored.index(_params()), version

    def reset(self) -> None:
        with self.lock:
            self.version, self.current, self.stored = -1, None, None


def _build_missing() -> tuple[int, StoredVersion]:
    """Publish the committed version's files when they are missing (first start after an
    upgrade, a machine without the shared directory, files removed), under the writers' lock."""
    with transaction.atomic():
        version = _lock_corpus_state()
        root = store_root()
        stored = open_version(root, version)
        if stored is None:
            discard_version(root, version)  # if there, it is unusable: another format, files missing
            corpus_version_publish(_build(version, version, None))
            stored = open_version(root, version)
        if stored is None:
            raise RuntimeError(f"BM25 index version {version} could not be published under {root}")
        return version, stored


process_index = SharedIndex()
