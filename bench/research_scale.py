"""BM25 at 10k, 100k and 1M passages with one shared index: memory per process, top-10 latency,
build and update time, and how long until a newly ingested document is searchable in every process.

Corpus: N distinct windows of 8–24 consecutive words of the shipped RBI documents (data/rbi, read
by the product's parser), 1,000 per document, in a database of its own in the bench's embedded
Postgres (bench/_scale_corpus.py; BM25 inputs only — no embeddings, no HNSW index). Loaded and
indexed once, then kept under var/bench (the build figures are from that run).

Every figure comes from real processes (``python -m bench._scale_child``), each a fresh Django
process on the scale database, as a web or worker process would be. Memory: /proc/self/smaps_rollup
of three processes before and after each maps the index and runs every query once, read after all
three have done so; private = Private_Clean + Private_Dirty (what no other process shares), shared =
Shared_Clean + Shared_Dirty. Latency: BM25 top-10 as search runs it (corpus-version check, visibility
mask of the owner's documents), one process, queries one after another: 200 held-out RBI sentences
and 200 FiQA questions (when ../shared/data is present). Freshness: the three processes query a new
term every 10 ms while a fourth process uploads and ingests a note holding it (parse, chunk, embed,
store, publish the index version, commit) and then deletes it; the time is from the moment the
ingesting transaction stamps ``ingested_at`` (before the index is published and committed) — or
from the delete call — to the moment the last of the three sees the change.
``BENCH_SCALE_SIZES`` (default 10000,100000,1000000) picks the corpora."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench._scale_corpus import database_name, scale_queries

ROOT = Path(__file__).resolve().parents[1]
SIZES = [int(s) for s in os.environ.get("BENCH_SCALE_SIZES", "10000,100000,1000000").split(",")]
READERS = 3
MB = 1024  # smaps reports kB


class Child:
    """A ``bench._scale_child`` process on one scale database."""

    def __init__(self, database_url: str, queries: Path) -> None:
        from django.conf import settings

        env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": settings.REDIS_URL, "PYTHONWARNINGS": "ignore"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bench._scale_child", str(queries)],
            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip

    def send(self, *command: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()

    def receive(self) -> Any:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("@@"):
                return json.loads(line[2:])
        raise RuntimeError(f"bench child exited with {self.proc.wait()}")

    def call(self, *command: Any) -> Any:
        self.send(*command)
        return self.receive()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.send("quit")
            self.proc.wait(timeout=60)


@contextmanager
def children(database_url: str, queries: Path, count: int) -> Iterator[list[Child]]:
    started = [Child(database_url, queries) for _ in range(count)]
    try:
        yield started
    finally:
        for child in started:
            child.close()


def _queries() -> Path:
    from django.conf import settings

    from bench.research_speed import _fiqa_questions

    path = settings.VAR_DIR / "research_scale" / "queries.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"rbi": scale_queries(), "fiqa": _fiqa_questions()}))
    return path


def _mb(kb: float) -> str:
    return f"{kb / MB:,.1f} MB"


def _memory_rows(n: int, readers: list[Child]) -> list[dict[str, Any]]:
    """Each process maps the index and runs every query; smaps once all of them have."""
    before = [r.call("smaps") for r in readers]
    for reader in readers:
        reader.send("map")
    maps = [r.receive() for r in readers]
    after = [r.call("smaps") for r in readers]

    def delta(i: int, *keys: str) -> int:
        return sum(after[i][k] - before[i][k] for k in keys)

    private = [delta(i, "Private_Clean", "Private_Dirty") for i in range(len(readers))]
    shared = [delta(i, "Shared_Clean", "Shared_Dirty") for i in range(len(readers))]
    return [
        {"n": n, "what": "index files on disk (segments, vocabulary, version)", "value": _mb(maps[0]["index_bytes"] / 1024)},
        {"n": n, "what": f"map the current version in a fresh process ({maps[0]['segments']} segment(s)), slowest of {len(readers)}",
         "value": f"{max(m['map_s'] for m in maps) * 1000:.1f} ms"},
        {"n": n, "what": f"memory per process after mapping + all queries: extra PRIVATE (max of {len(readers)} processes)",
         "value": _mb(max(private))},
        {"n": n, "what": "  extra SHARED (the mapping's pages, one copy in the page cache for all)", "value": _mb(max(shared))},
        {"n": n, "what": "  extra RSS / extra PSS (RSS split among the processes sharing it)",
         "value": f"{_mb(max(delta(i, 'Rss') for i in range(len(readers))))} / {_mb(max(delta(i, 'Pss') for i in range(len(readers))))}"},
    ]  # fmt: skip


def _latency_rows(n: int, reader: Child, names: list[str]) -> list[dict[str, Any]]:
    labels = {"rbi": "held-out RBI sentences", "fiqa": "FiQA questions"}
    return [
        {
            "n": n,
            "what": f"BM25 top-10 (version check + visibility mask), {labels[name]}",
            **reader.call("latency", name),
        }
        for name in names
    ]


def _freshness_rows(n: int, readers: list[Child], writer: Child) -> list[dict[str, Any]]:
    token = f"fresh{int(time.time())}"
    writer.call("smaps")  # started and connected before the clock runs
    for reader in readers:
        reader.send("watch", token, True, 120)
    added = writer.call("ingest", token)
    seen = [r.receive()["seen_at"] for r in readers]
    for reader in readers:
        reader.send("watch", token, False, 120)
    removed = writer.call("delete", added["document_id"])
    gone = [r.receive()["seen_at"] for r in readers]
    if None in seen or None in gone:
        raise RuntimeError(f"a process never saw the change: {seen} {gone}")
    add, drop = added["publish"], removed["publish"]
    return [
        {"n": n, "what": f"add a document ({add['added']} passages): index update inside the ingest transaction "
         f"(id diff {add['diff_s'] * 1000:.0f} ms, tokenise {add['add_s'] * 1000:.0f} ms, write {add['publish_s'] * 1000:.0f} ms)",
         "value": f"{add['total_s'] * 1000:.0f} ms"},
        {"n": n, "what": f"  → searchable in every one of {len(readers)} other processes, after ingested_at",
         "value": f"{max(seen) - added['ingested_at']:.2f} s"},
        {"n": n, "what": "  (whole document_ingest call of that note, incl. parse and embed)",
         "value": f"{added['returned_at'] - added['called_at']:.2f} s"},
        {"n": n, "what": f"delete it: index update {drop['total_s'] * 1000:.0f} ms; gone from every process after the call",
         "value": f"{max(gone) - removed['called_at']:.2f} s"},
    ]  # fmt: skip


def _build_rows(n: int, build: dict[str, Any]) -> list[dict[str, Any]]:
    phases = build["phases"]
    return [
        {"n": n, "what": f"full build from Postgres (ids {phases['diff_s']:.1f} s, read + tokenise {phases['add_s']:.1f} s, "
         f"write {phases['publish_s']:.1f} s), measured {build['built']}", "value": f"{build['build_s']:.1f} s"},
    ]  # fmt: skip


def _own_copy_row(n: int, database_url: str, queries: Path) -> dict[str, Any]:
    with children(database_url, queries, 1) as (child,):
        own = child.call("own_copy")
    private = sum(own["after"][k] - own["before"][k] for k in ("Private_Clean", "Private_Dirty"))
    return {"n": n, "what": f"for comparison: a process building its own in-memory copy ({own['build_s']:.1f} s), extra PRIVATE",
            "value": _mb(private)}  # fmt: skip


def _size_rows(n: int, queries: Path, names: list[str]) -> list[dict[str, Any]]:
    from config.embedded import postgres_url

    url = postgres_url(database=database_name(n))
    with children(url, queries, 1) as (loader,):
        rows = _build_rows(n, loader.call("load", n))
    with children(url, queries, READERS + 1) as processes:
        readers, writer = processes[:READERS], processes[READERS]
        rows += _memory_rows(n, readers)
        rows += _latency_rows(n, readers[0], names)
        rows += _freshness_rows(n, readers, writer)
    rows.append(_own_copy_row(n, url, queries))
    print("\n".join(f"{r['n']:>9,} | {r['what']} | {r.get('value', r.get('p95_ms'))}" for r in rows), flush=True)
    return rows


def run() -> list[dict[str, Any]]:
    queries = _queries()
    names = [name for name, texts in json.loads(queries.read_text()).items() if texts]
    rows: list[dict[str, Any]] = []
    for n in SIZES:
        rows += _size_rows(n, queries, names)
    return rows
