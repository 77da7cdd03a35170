"""One real process of bench/research_scale.py — a web or worker process as far as BM25 is
concerned — on one of the scale databases (``DATABASE_URL``). Reads one JSON command per line on
stdin and answers with one JSON line on stdout, prefixed with ``@@``.

Run as ``python -m bench._scale_child <queries.json>``."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import django

django.setup()

from bench._common import median_p95  # noqa: E402
from bench._scale_corpus import BENCH_EMAIL, load  # noqa: E402
from research.retrieval.bm25 import LAST_PUBLISH, process_index  # noqa: E402

QUERIES: dict[str, list[str]] = json.loads(Path(sys.argv[1]).read_text()) if len(sys.argv) > 1 else {}


def smaps() -> dict[str, int]:
    """This process's memory from /proc/self/smaps_rollup, in kB (Rss, Pss, Private_*, Shared_*, ...)."""
    out = {}
    with open("/proc/self/smaps_rollup") as handle:
        for line in handle:
            parts = line.split()
            if len(parts) == 3 and parts[2] == "kB":
                out[parts[0].rstrip(":")] = int(parts[1])
    return out


def _owner() -> Any:
    from core.services import user_ensure

    return user_ensure(email=BENCH_EMAIL, roles=["analyst"], password=None)[0]


def _allowed() -> list[int]:
    from research.retrieval.search import allowed_document_ids

    return allowed_document_ids(user=_owner(), filters=None)


def map_index() -> dict[str, Any]:
    """Map the current version and run every query once (touching the pages a query touches)."""
    began = time.perf_counter()
    index = process_index.get()
    mapped = time.perf_counter() - began
    for texts in QUERIES.values():
        for query in texts:
            index.top(query, 10)
    stored = process_index.stored
    assert stored is not None
    return {"map_s": mapped, "version": process_index.version, "segments": len(stored.segments), "rows": len(index),
            "index_bytes": _index_bytes(stored)}  # fmt: skip


def _index_bytes(stored: Any) -> int:
    """Bytes on disk of everything the version maps."""
    from research.retrieval.bm25 import store_root

    root, manifest = store_root(), stored.manifest
    folders = [root / "segments" / name for name in manifest.segments] + [root / "versions" / str(manifest.version)]
    folders += [root / "vocab" / manifest.vocab] if manifest.vocab else []
    return sum(f.stat().st_size for folder in folders for f in folder.iterdir())


def latency(name: str) -> dict[str, Any]:
    """BM25 top-10 as search runs it: corpus-version check, then the index with the visibility
    mask; also the version check alone (a database round trip) and the CPU time of the whole."""
    from research.retrieval.bm25 import corpus_version

    allowed = _allowed()
    wall, cpu, check = [], [], []
    for query in QUERIES[name]:
        began, began_cpu = time.perf_counter(), time.process_time()
        process_index.get().top(query, 10, allowed)
        wall.append((time.perf_counter() - began) * 1000)
        cpu.append((time.process_time() - began_cpu) * 1000)
        began = time.perf_counter()
        corpus_version()
        check.append((time.perf_counter() - began) * 1000)
    median, p95 = median_p95(wall)
    return {"queries": len(wall), "p50_ms": median, "p95_ms": p95, "cpu_p95_ms": median_p95(cpu)[1],
            "check_p95_ms": median_p95(check)[1]}  # fmt: skip


def warm() -> dict[str, Any]:
    """Load the embedding model, as a long-running worker has."""
    from research.retrieval.embeddings import get_embedder

    get_embedder().embed(["warm up"])
    return {}


def watch(token: str, present: bool, timeout: float) -> dict[str, Any]:
    """Query ``token`` every 10 ms until it is found (or gone); when that happened."""
    deadline = time.monotonic() + timeout
    polls = 0
    while time.monotonic() < deadline:
        polls += 1
        if bool(process_index.get().top(token, 10)) == present:
            return {"seen_at": time.time(), "polls": polls, "version": process_index.version}
        time.sleep(0.01)
    return {"seen_at": None, "polls": polls}


def ingest(token: str) -> dict[str, Any]:
    """Upload and ingest a short note holding ``token``, as the worker's task would (no queue)."""
    import research.services as services
    from research.models import Document

    services._enqueue_ingest = lambda document_id: True  # no worker in this bench
    note = f"# Desk note {token}\n\nThe {token} facility was widened by 15 basis points.\n".encode()
    document = services.document_upload(user=_owner(), files=[services.UploadFile(name=f"{token}.md", data=note)])
    called = time.time()
    done = services.document_ingest(document_id=document.created[0].pk)
    assert done.status == Document.Status.DONE and done.ingested_at is not None
    return {"document_id": done.pk, "called_at": called, "ingested_at": done.ingested_at.timestamp(),
            "returned_at": time.time(), "publish": dict(LAST_PUBLISH)}  # fmt: skip


def delete(document_id: int) -> dict[str, Any]:
    from research.models import Document
    from research.services import document_delete

    called = time.time()
    document_delete(user=_owner(), document=Document.objects.get(pk=document_id))
    return {"called_at": called, "returned_at": time.time(), "publish": dict(LAST_PUBLISH)}


def own_copy() -> dict[str, Any]:
    """What one process holds when it builds its own in-memory copy (the design this replaces)."""
    from django.db import connection

    from research.retrieval.bm25 import _Builder, _params

    before = smaps()
    began = time.perf_counter()
    builder = _Builder()
    last = 0
    while True:  # keyset pages: the client never holds the whole result
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT id, document_id, text FROM research_chunk WHERE id > %s ORDER BY id LIMIT 50000", [last]
            )
            rows = cursor.fetchall()
        if not rows:
            break
        builder.add(rows)
        last = rows[-1][0]
    index = builder.index(_params())
    built = time.perf_counter() - began
    for query in QUERIES.get("rbi", []):
        index.top(query, 10)
    after = smaps()
    return {"build_s": built, "before": before, "after": after, "rows": len(index)}


def alternatives(n: int) -> dict[str, Any]:
    """bm25s's mapped index and a Postgres postings table on the same passages and queries."""
    from bench._scale_alternatives import bm25s_measure, postgres_measure

    return {
        "bm25s": bm25s_measure(n, QUERIES["rbi"], smaps),
        "postgres": postgres_measure(n, QUERIES["rbi"], _allowed()),
    }


COMMANDS: dict[str, Callable[..., Any]] = {
    "smaps": smaps, "map": map_index, "latency": latency, "watch": watch, "ingest": ingest, "delete": delete,
    "own_copy": own_copy, "load": load, "warm": warm, "alternatives": alternatives,
}  # fmt: skip


def main() -> None:
    from django.db import connection

    connection.ensure_connection()  # connected before any measurement, as a running process is
    for line in sys.stdin:
        command, *args = json.loads(line)
        if command == "quit":
            break
        print("@@" + json.dumps(COMMANDS[command](*args)), flush=True)


if __name__ == "__main__":
    main()
