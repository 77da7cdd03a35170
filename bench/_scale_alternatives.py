"""The forms of a shared BM25 index that bench/research_scale.py measures against the chosen one
(mapped segments), run inside a ``bench._scale_child`` process on the same passages and queries:

- bm25s with its memory-mapped index (``BM25.load(mmap=True)``): the index holds precomputed
  scores, so any change to the library means building it again; its idf differs from BM25Okapi's.
- a postings table in Postgres (term, chunk, document, tf, length; a covering index on the term)
  with a BM25 scoring query: nothing per process, every query aggregates the postings of its terms.

Both are built once from the scale database and kept (bm25s files under var/bench, the table in
the scale database), with the build time recorded when it ran.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench._common import median_p95


def _record(path: Path, build: Callable[[], None]) -> dict[str, Any]:
    """Run ``build`` once (timed) unless ``path`` records that it ran; the record."""
    if not path.exists():
        began = time.perf_counter()
        build()
        path.write_text(json.dumps({"build_s": time.perf_counter() - began, "built": time.strftime("%Y-%m-%d")}))
    return json.loads(path.read_text())


def _timed(queries: list[str], search: Callable[[str], Any]) -> dict[str, float]:
    wall, cpu = [], []
    for query in queries:
        began, began_cpu = time.perf_counter(), time.process_time()
        search(query)
        wall.append((time.perf_counter() - began) * 1000)
        cpu.append((time.process_time() - began_cpu) * 1000)
    median, p95 = median_p95(wall)
    return {"p50_ms": median, "p95_ms": p95, "cpu_p95_ms": median_p95(cpu)[1]}


def _passages() -> list[str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT text FROM research_chunk ORDER BY id")
        return [row[0] for row in cursor.fetchall()]


def bm25s_measure(n: int, queries: list[str], smaps: Callable[[], dict[str, int]]) -> dict[str, Any]:
    """Build time, extra memory of this process after loading mapped and querying, latency."""
    import bm25s
    from django.conf import settings

    from research.retrieval.text import tokenize

    folder = settings.VAR_DIR / "research_scale" / f"bm25s-{n}"

    def build() -> None:
        retriever = bm25s.BM25(k1=settings.RESEARCH_BM25_K1, b=settings.RESEARCH_BM25_B)
        retriever.index([tokenize(text) for text in _passages()], show_progress=False)
        retriever.save(str(folder), show_progress=False)

    record = _record(folder.with_suffix(".json"), build)
    before = smaps()
    retriever = bm25s.BM25.load(str(folder), mmap=True, show_progress=False)

    def search(query: str) -> Any:
        tokens = [t for t in tokenize(query) if t in retriever.vocab_dict]
        return retriever.retrieve([tokens], k=10, show_progress=False) if tokens else None

    latency = _timed(queries, search)
    after = smaps()
    private = sum(after[k] - before[k] for k in ("Private_Clean", "Private_Dirty"))
    return {**record, **latency, "private_kb": private}


POSTINGS_TABLE = "bench_bm25_posting"


def _fill_postings(stored: Any) -> None:
    """The mapped version's postings as rows of an unlogged table, with a covering index."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {POSTINGS_TABLE}")
        cursor.execute(
            f"CREATE UNLOGGED TABLE {POSTINGS_TABLE} (term_id int4, chunk_id int8, doc_id int8, tf int4, len int4)"
        )
        for segment in stored.segments:
            terms = np.repeat(np.asarray(segment.terms), np.diff(segment.term_ptr))
            rows = np.asarray(segment.post_rows)
            columns = (terms, segment.chunk_ids[rows], segment.doc_ids[rows], segment.post_tf, segment.lengths[rows])
            with cursor.cursor.copy(f"COPY {POSTINGS_TABLE} FROM STDIN") as copy:
                for start in range(0, len(rows), 200_000):
                    block = np.column_stack([np.asarray(c[start : start + 200_000]) for c in columns])
                    copy.write("".join("\t".join(map(str, line)) + "\n" for line in block.tolist()))
        cursor.execute(f"CREATE INDEX ON {POSTINGS_TABLE} (term_id) INCLUDE (chunk_id, doc_id, tf, len)")
        cursor.execute(f"VACUUM ANALYZE {POSTINGS_TABLE}")


def postgres_measure(n: int, queries: list[str], allowed: list[int]) -> dict[str, Any]:
    """Build time and latency of BM25 as a SQL aggregate over a postings table (same scores)."""
    from django.conf import settings
    from django.db import connection

    from research.retrieval.bm25 import process_index

    index = process_index.get()
    assert process_index.stored is not None
    path = settings.VAR_DIR / "research_scale" / f"postgres-{n}.json"
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s)", [POSTINGS_TABLE])
        if cursor.fetchone()[0] is None:
            path.unlink(missing_ok=True)  # the database was made again since
    record = _record(path, lambda: _fill_postings(process_index.stored))
    k1, b = settings.RESEARCH_BM25_K1, settings.RESEARCH_BM25_B
    # The table name is a constant of this module; every value is a query parameter.
    sql = (
        "SELECT p.chunk_id, sum(q.w * p.tf * %s / (p.tf + %s * (%s + %s * p.len / %s))) AS score "  # noqa: S608  # nosec B608
        f"FROM {POSTINGS_TABLE} p JOIN unnest(%s::int4[], %s::float8[]) AS q(term_id, w) USING (term_id) "
        "WHERE p.doc_id = ANY(%s) GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT 10"
    )

    def search(query: str) -> Any:
        terms = index.query(query)
        with connection.cursor() as cursor:
            params = [k1 + 1, k1, 1 - b, b, index.avgdl, terms.terms.tolist(), terms.weights.tolist(), allowed]
            cursor.execute(sql, params)
            return cursor.fetchall()

    return {**record, **_timed(queries, search), "same_top10": _same_top10(index, queries[:20], search, allowed)}


def _same_top10(index: Any, queries: list[str], search: Callable[[str], Any], allowed: list[int]) -> bool:
    """The SQL ranking is the mapped index's ranking (a check that the comparison is fair)."""
    return all([row[0] for row in search(q)] == [cid for cid, _ in index.top(q, 10, allowed)] for q in queries)
