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
        self.proc = subprocess.Popen(  # noqa: S603  (this interpreter, a module of this repository)
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


def _row(n: int, what: str, value: str) -> dict[str, Any]:
    return {"passages": f"{n:,}", "what": what, "value": value}


def _memory_rows(n: int, readers: list[Child]) -> list[dict[str, Any]]:
    """Each process maps the index and runs every query; smaps once all of them have."""
    before = [r.call("smaps") for r in readers]
    for reader in readers:
        reader.send("map")
    maps = [r.receive() for r in readers]
    after = [r.call("smaps") for r in readers]

    def most(*keys: str) -> int:
        return max(sum(a[k] - b[k] for k in keys) for a, b in zip(after, before, strict=True))

    count = len(readers)
    return [
        _row(n, "index files on disk (segments, vocabulary, version)", _mb(maps[0]["index_bytes"] / 1024)),
        _row(n, f"map the current version in a fresh process ({maps[0]['segments']} segment(s)), slowest of {count}",
             f"{max(m['map_s'] for m in maps) * 1000:.1f} ms"),
        _row(n, f"memory per process after mapping + every query: extra PRIVATE, most of {count} processes",
             _mb(most("Private_Clean", "Private_Dirty"))),
        _row(n, "  extra SHARED (the mapped index: one copy in the page cache for all)",
             _mb(most("Shared_Clean", "Shared_Dirty"))),
        _row(n, "  extra RSS / extra PSS (PSS splits shared pages among the processes)",
             f"{_mb(most('Rss'))} / {_mb(most('Pss'))}"),
    ]  # fmt: skip


def _latency_rows(n: int, reader: Child, names: list[str]) -> list[dict[str, Any]]:
    labels = {"rbi": "200 held-out RBI sentences", "fiqa": "200 FiQA questions"}
    rows = []
    for name in names:
        result = reader.call("latency", name)
        what = (
            f"BM25 top-10 (version check + visibility mask), {labels[name]}: p50 / p95 wall; "
            "p95 CPU; p95 of the version check alone (a database round trip)"
        )
        value = (
            f"{result['p50_ms']:.1f} / {result['p95_ms']:.1f} ms; {result['cpu_p95_ms']:.1f} ms; "
            f"{result['check_p95_ms']:.1f} ms"
        )
        rows.append({**_row(n, what, value), "p95_ms": result["p95_ms"]})
    return rows


def _freshness_rows(n: int, readers: list[Child], writer: Child) -> list[dict[str, Any]]:
    token = f"fresh{int(time.time())}"
    writer.call("warm")  # a worker has its model loaded before a document arrives
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
    how = f"build {add['build_s'] * 1000:.0f} + write {add['publish_s'] * 1000:.0f} ms, {add['mode']}"
    return [
        _row(n, f"add a document ({add['added']} passage): index update in the ingest transaction ({how})",
             f"{add['total_s'] * 1000:.0f} ms"),
        _row(n, f"  → searchable in every one of {len(readers)} other processes, after ingested_at",
             f"{max(seen) - added['ingested_at']:.2f} s"),
        _row(n, "  (the whole document_ingest call for that note: parse, chunk, embed, store, publish)",
             f"{added['returned_at'] - added['called_at']:.2f} s"),
        _row(n, f"delete it (index update {drop['total_s'] * 1000:.0f} ms): gone from every process, after the call",
             f"{max(gone) - removed['called_at']:.2f} s"),
    ]  # fmt: skip


def _build_rows(n: int, build: dict[str, Any]) -> list[dict[str, Any]]:
    p = build["phases"]
    what = (
        f"full build from Postgres, measured {build['built']} "
        f"(read ids + rows, tokenise {p['build_s']:.1f} s, merge + write {p['publish_s']:.1f} s)"
    )
    return [_row(n, what, f"{build['build_s']:.1f} s")]


def _own_copy_row(n: int, database_url: str, queries: Path) -> dict[str, Any]:
    with children(database_url, queries, 1) as (child,):
        own = child.call("own_copy")
    private = sum(own["after"][k] - own["before"][k] for k in ("Private_Clean", "Private_Dirty"))
    what = f"for comparison: one process building its own in-memory copy ({own['build_s']:.1f} s): extra PRIVATE"
    return _row(n, what, _mb(private))


def _alternative_rows(n: int, database_url: str, queries: Path) -> list[dict[str, Any]]:
    with children(database_url, queries, 1) as (child,):
        found = child.call("alternatives", n)
    bm, pg = found["bm25s"], found["postgres"]
    same = "same top 10 as the mapped index" if pg["same_top10"] else "top 10 DIFFERS from the mapped index"
    return [
        _row(n, f"instead: bm25s, mapped (BM25Okapi's idf not reproduced): build, needed again on every change "
             f"(measured {bm['built']})", f"{bm['build_s']:.1f} s"),
        _row(n, "  bm25s: extra PRIVATE per process; top-10 p50 / p95 wall, p95 CPU (held-out RBI sentences)",
             f"{_mb(bm['private_kb'])}; {bm['p50_ms']:.1f} / {bm['p95_ms']:.1f} ms, {bm['cpu_p95_ms']:.1f} ms"),
        _row(n, f"instead: a postings table in Postgres + a BM25 SQL aggregate: build (measured {pg['built']})",
             f"{pg['build_s']:.1f} s"),
        _row(n, f"  Postgres: top-10 p50 / p95 wall, p95 CPU of this process (first 50 held-out RBI sentences; {same})",
             f"{pg['p50_ms']:.1f} / {pg['p95_ms']:.1f} ms, {pg['cpu_p95_ms']:.1f} ms"),
    ]  # fmt: skip


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
    rows += _alternative_rows(n, url, queries)
    print("\n".join(f"{r['passages']:>9} | {r['what']} | {r['value']}" for r in rows), flush=True)
    return rows


def run() -> list[dict[str, Any]]:
    queries = _queries()
    names = [name for name, texts in json.loads(queries.read_text()).items() if texts]
    rows: list[dict[str, Any]] = []
    for n in SIZES:
        rows += _size_rows(n, queries, names)
    return rows
