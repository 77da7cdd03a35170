"""Ingestion throughput against the embedding model alone — the last rows of bench/research_speed.py.

Documents: the shipped MPC minutes PDFs and 40 pages of the annual report. Each is ingested
through ``document_ingest`` (parse, chunk, embed while the previous step is written, store, publish
the BM25 version, commit), and right before or right after it — alternately — the embedding model
alone embeds exactly the passages that ``document_ingest`` stored, in the pipeline's own steps and
batch size. Interleaving document by document, over ``BENCH_INGEST_ROUNDS`` rounds (default 4),
makes the load of a shared machine fall on both alike; the ratio is model time / ingestion time.

The machine's busy core-seconds (``/proc/stat``) are read around each part too. Ingestion cannot
take less wall time than its busy core-seconds spread over every core, so model time × cores ÷
ingestion's busy core-seconds is the highest ratio any overlap could reach for the work measured:
the ceiling row. The ratio of each round is reported as well, because one round varies by several
hundredths on a shared host.

Each round deletes the bench's documents first, and vacuums: without it, the bench's own churn
brings an autovacuum into whichever round it meets. Between the timed rounds that vacuum leaves the
HNSW index alone (``INDEX_CLEANUP OFF``; autovacuum's default, ``AUTO``, skips it too while the
dead rows sit on under 2 % of the table's pages), so each round appends to the index as a growing
library's ingestion does. A vacuum that cleans the
index frees the deleted passages' slots, and pgvector fills freed slots first, walking the index
pages from the first free one for every insert (src/hnswinsert.c, WriteNewElementPages): the round
after one costs the database about 0.5 CPU-seconds more (0.47 → 1.0 a round here). So the first
round follows a vacuum that cleaned the index, untimed in the ratio and reported on its own row;
the last cleans it again.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = int(os.environ.get("BENCH_INGEST_ROUNDS", "4"))
PROC_STAT = Path("/proc/stat")
# The embedding cache and the shipped seeds off (for override_settings): the model itself runs.
MODEL_RUNS = {"RESEARCH_EMBED_CACHE_DIR": "", "RESEARCH_EMBED_SEED_DIR": "", "RESEARCH_FILINGS_EMBED_SEED_DIR": ""}


def busy_core_seconds(stat: str | None = None) -> float:
    """Core-seconds the machine has spent busy since boot (user, nice, system, irq and softirq time
    of the first line of ``/proc/stat``, or of ``stat``); NaN where there is no such file."""
    if stat is None:
        try:
            stat = PROC_STAT.read_text()
        except OSError:
            return math.nan
    ticks = [int(value) for value in stat.split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq = ticks[:7]
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def overlap_ceiling(model_seconds: float, ingest_busy_core_seconds: float, cores: int) -> float:
    """The highest ingestion / model ratio the measured work allows: ingestion's wall time is at
    least its busy core-seconds spread evenly over ``cores``."""
    return model_seconds * cores / ingest_busy_core_seconds


def ingest_files() -> list[Any]:
    """The shipped MPC minutes PDFs and 40 pages of the annual report, as uploads."""
    from research.services import UploadFile

    pdfs = sorted((ROOT / "data/rbi/mpc-minutes").glob("*.pdf"))
    report = (ROOT / "data/rbi/annual-report-2023-24/rbi-annual-report-2023-24.txt").read_text().split("\f")
    files = [UploadFile(name=p.name, data=p.read_bytes()) for p in pdfs]
    files.append(UploadFile(name="ar-excerpt.txt", data="\f".join(report[40:80]).encode()))
    return files


def _model_seconds(model: Any, texts: list[str]) -> float:
    """Seconds for ``model`` to embed ``texts`` in the pipeline's own steps."""
    from research.ingest.pipeline import embedding_steps

    began = time.perf_counter()
    for start, end in embedding_steps(len(texts)):
        model.embed(texts[start:end])
    return time.perf_counter() - began


@dataclass
class Round:
    """One round's seconds and the machine's busy core-seconds (NaN off Linux), by part: "ingest"
    and "model" (alone); and each document's stored passages."""

    seconds: dict[str, float] = field(default_factory=lambda: {"ingest": 0.0, "model": 0.0})
    busy: dict[str, float] = field(default_factory=lambda: {"ingest": 0.0, "model": 0.0})
    stored: list[list[str]] = field(default_factory=list)

    def timed(self, part: str, run: Callable[[], object]) -> None:
        busy, began = busy_core_seconds(), time.perf_counter()
        run()
        self.seconds[part] += time.perf_counter() - began
        self.busy[part] += busy_core_seconds() - busy


def _one_round(owner: Any, files: list[Any], embedder: Any, parity: int, *, index_cleanup: bool = False) -> Round:
    """One round over ``files``, after deleting the bench's documents (see
    :func:`_delete_bench_documents` for ``index_cleanup``); its documents stay for the next round
    (or the caller) to delete."""
    from research.ingest.pipeline import parse_and_chunk
    from research.models import Chunk, Document
    from research.services import document_ingest, document_upload

    def ingest(document_id: int) -> None:
        assert document_ingest(document_id=document_id).status == Document.Status.DONE

    _delete_bench_documents(owner, index_cleanup=index_cleanup)
    # Upload with no worker running (the queued tasks find the documents done) and ingest here.
    created = document_upload(user=owner, files=files, doc_type="ingest-bench").created
    measured = Round()
    for i, document in enumerate(created):
        with document.file.open("rb") as handle:  # the passages document_ingest will store
            texts = [d.text for d in parse_and_chunk(document.kind, handle.read())[1]]
        for part in ("model", "ingest") if (i + parity) % 2 else ("ingest", "model"):
            if part == "ingest":
                measured.timed(part, partial(ingest, document.pk))
            else:
                measured.timed(part, partial(_model_seconds, embedder, texts))
        stored = list(Chunk.objects.filter(document=document).order_by("ordinal").values_list("text", flat=True))
        assert stored == texts
        measured.stored.append(stored)
    return measured


def _delete_bench_documents(owner: Any, *, index_cleanup: bool = True) -> None:
    """Through the service, as an analyst would: the shared BM25 index is updated with the
    deletion here, untimed (a bulk delete left it to the next timed ingestion to reconcile in
    full), and the files go too.

    Then the passages table is vacuumed, untimed: otherwise the bench's own churn brings an
    autovacuum due every few dozen rounds, and its pass over the HNSW index (4–5 CPU-seconds)
    lands on whichever half of a round it meets (single rounds of an A/B ranged 0.84–0.99 with
    one in them). With ``index_cleanup`` the indexes are vacuumed too (10–13 s), which frees the
    deleted passages' slots in the HNSW index for the next inserts to fill (module docstring)."""
    from django.db import connection

    from research.models import Document
    from research.services import document_delete

    for document in Document.objects.filter(owner=owner, doc_type="ingest-bench"):
        document_delete(user=owner, document=document)
    with connection.cursor() as cursor:
        cleanup = "ON" if index_cleanup else "OFF"
        cursor.execute(f"VACUUM (ANALYZE, INDEX_CLEANUP {cleanup}) research_chunk")


def ingestion_rows(owner: Any) -> list[dict[str, Any]]:
    """The rows, with the embedding cache and the shipped seeds off: the MPC minutes' vectors ship
    in the demo corpus's seed, and with it on the pipeline would embed nothing at all."""
    from django.test import override_settings

    with override_settings(**MODEL_RUNS):
        return _rows(owner)


def _rows(owner: Any) -> list[dict[str, Any]]:
    from research.retrieval.embeddings import MiniLMEmbedder, get_embedder

    embedder = get_embedder()
    embedder.embed(["warm up the model before timing"])
    files = ingest_files()
    try:
        after_cleanup = _one_round(owner, files, embedder, 0, index_cleanup=True)
        rounds = [_one_round(owner, files, embedder, parity) for parity in range(ROUNDS)]
    finally:
        _delete_bench_documents(owner)
    ingest_s, model_s = (sum(r.seconds[part] for r in rounds) for part in ("ingest", "model"))
    chunks = sum(len(texts) for r in rounds for texts in r.stored)
    by_round = sorted(r.seconds["model"] / r.seconds["ingest"] for r in rounds)
    torch_embedder = MiniLMEmbedder()
    torch_embedder.embed(["warm up the model before timing"])
    texts = [t for document in rounds[-1].stored for t in document]
    torch_s = _model_seconds(torch_embedder, texts)
    name, per_round = type(embedder).__name__, chunks // ROUNDS
    rows = [
        {
            "what": f"ingestion end to end ({name}): {len(files)} files, {per_round} chunks, × {ROUNDS} rounds",
            "n": chunks,
            "value": f"{chunks / ingest_s:.1f} chunks/s ({ingest_s:.1f} s)",
        },
        {
            "what": "embedding model alone on the very passages stored, same steps and batch size, interleaved",
            "n": chunks,
            "value": f"{chunks / model_s:.1f} chunks/s ({model_s:.1f} s)",
        },
        {
            "what": "ingestion throughput / model throughput (target ≥ 0.95)",
            "n": "",
            "value": round(model_s / ingest_s, 3),
        },
        {
            "what": "the same ratio, lowest and highest round",
            "n": ROUNDS,
            "value": f"{by_round[0]:.3f} – {by_round[-1]:.3f}",
        },
        {
            "what": "the same ratio in the round before them, right after a vacuum that cleaned the HNSW index "
            "(its inserts fill the slots freed)",
            "n": 1,
            "value": round(after_cleanup.seconds["model"] / after_cleanup.seconds["ingest"], 3),
        },
    ]
    rows += _ceiling_rows(rounds, ingest_s, model_s)
    rows.append(
        {
            "what": "for comparison: torch (sentence-transformers) alone on one round's passages",
            "n": len(texts),
            "value": f"{len(texts) / torch_s:.1f} chunks/s ({torch_s:.1f} s)",
        }
    )
    return rows  # fmt: skip


def _ceiling_rows(rounds: list[Round], ingest_s: float, model_s: float) -> list[dict[str, Any]]:
    """How busy the cores were in each part, and the ratio's ceiling for that work (Linux only)."""
    ingest_cs, model_cs = (sum(r.busy[part] for r in rounds) for part in ("ingest", "model"))
    if math.isnan(ingest_cs + model_cs):
        return []
    cores = os.cpu_count() or 1
    return [
        {"what": f"busy core-seconds of the machine ({cores} cores): ingestion / model alone", "n": "",
         "value": f"{ingest_cs:.1f} / {model_cs:.1f} (+{100 * (ingest_cs / model_cs - 1):.1f} %); the cores "
                  f"busy {100 * ingest_cs / (ingest_s * cores):.1f} % / {100 * model_cs / (model_s * cores):.1f} % "
                  "of the time"},
        {"what": "ceiling of ingestion / model for that work, at perfect overlap (model s × cores ÷ ingestion's "
                 "busy core-seconds)", "n": "", "value": round(overlap_ceiling(model_s, ingest_cs, cores), 3)},
    ]  # fmt: skip
