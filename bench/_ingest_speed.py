"""Ingestion throughput against the embedding model alone — the last rows of bench/research_speed.py.

Documents: the shipped MPC minutes PDFs and 40 pages of the annual report. Each is ingested
through ``document_ingest`` (parse, chunk, embed while the previous step is written, store, publish
the BM25 version, commit), and right before or right after it — alternately — the embedding model
alone embeds exactly the passages that ``document_ingest`` stored, in the pipeline's own steps and
batch size. Interleaving document by document, over ``BENCH_INGEST_ROUNDS`` rounds (default 2),
makes the load of a shared machine fall on both alike; the ratio is model time / ingestion time.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = int(os.environ.get("BENCH_INGEST_ROUNDS", "2"))


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


def _one_round(owner: Any, files: list[Any], embedder: Any, parity: int) -> tuple[float, float, list[list[str]]]:
    """(seconds ingesting, seconds of the model alone, each document's stored passages)."""
    from research.ingest.pipeline import parse_and_chunk
    from research.models import Chunk, Document
    from research.services import document_ingest, document_upload

    _delete_bench_documents(owner)
    # Upload with no worker running (the queued tasks find the documents done) and ingest here.
    created = document_upload(user=owner, files=files, doc_type="ingest-bench").created
    ingest_s = model_s = 0.0
    stored = []
    for i, document in enumerate(created):
        with document.file.open("rb") as handle:  # the passages document_ingest will store
            texts = [d.text for d in parse_and_chunk(document.kind, handle.read())[1]]
        for part in ("model", "ingest") if (i + parity) % 2 else ("ingest", "model"):
            began = time.perf_counter()
            if part == "ingest":
                assert document_ingest(document_id=document.pk).status == Document.Status.DONE
                ingest_s += time.perf_counter() - began
            else:
                model_s += _model_seconds(embedder, texts)
        stored.append(list(Chunk.objects.filter(document=document).order_by("ordinal").values_list("text", flat=True)))
        assert stored[-1] == texts
    _delete_bench_documents(owner)
    return ingest_s, model_s, stored


def _delete_bench_documents(owner: Any) -> None:
    """Through the service, as an analyst would: the shared BM25 index is updated with the
    deletion here, untimed (a bulk delete left it to the next timed ingestion to reconcile in
    full), and the files go too.

    Then the passages table is vacuumed, index included, untimed (10–13 s): otherwise the
    bench's own churn brings an autovacuum due every few dozen rounds, and its pass over the HNSW
    index (4–5 CPU-seconds) lands on whichever half of a round it meets (single rounds of an A/B
    ranged 0.84–0.99 with one in them)."""
    from django.db import connection

    from research.models import Document
    from research.services import document_delete

    for document in Document.objects.filter(owner=owner, doc_type="ingest-bench"):
        document_delete(user=owner, document=document)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE, INDEX_CLEANUP ON) research_chunk")


def ingestion_rows(owner: Any) -> list[dict[str, Any]]:
    """The rows, with the embedding cache and the shipped seeds off: the MPC minutes' vectors ship
    in the demo corpus's seed, and with it on the pipeline would embed nothing at all."""
    from django.test import override_settings

    no_cache = {"RESEARCH_EMBED_CACHE_DIR": "", "RESEARCH_EMBED_SEED_DIR": "", "RESEARCH_FILINGS_EMBED_SEED_DIR": ""}
    with override_settings(**no_cache):
        return _rows(owner)


def _rows(owner: Any) -> list[dict[str, Any]]:
    from research.retrieval.embeddings import MiniLMEmbedder, get_embedder

    embedder = get_embedder()
    embedder.embed(["warm up the model before timing"])
    files = ingest_files()
    ingest_s = model_s = 0.0
    chunks = 0
    for parity in range(ROUNDS):
        i_s, m_s, stored = _one_round(owner, files, embedder, parity)
        ingest_s, model_s, chunks = ingest_s + i_s, model_s + m_s, chunks + sum(len(t) for t in stored)
    torch_embedder = MiniLMEmbedder()
    torch_embedder.embed(["warm up the model before timing"])
    texts = [t for document in stored for t in document]
    torch_s = _model_seconds(torch_embedder, texts)
    name, per_round = type(embedder).__name__, chunks // ROUNDS
    return [
        {"what": f"ingestion end to end ({name}): {len(files)} files, {per_round} chunks, × {ROUNDS} rounds",
         "n": chunks, "value": f"{chunks / ingest_s:.1f} chunks/s ({ingest_s:.1f} s)"},
        {"what": "embedding model alone on the very passages stored, same steps and batch size, interleaved",
         "n": chunks, "value": f"{chunks / model_s:.1f} chunks/s ({model_s:.1f} s)"},
        {"what": "ingestion throughput / model throughput (target ≥ 0.95)", "n": "",
         "value": round(model_s / ingest_s, 3)},
        {"what": "for comparison: torch (sentence-transformers) alone on one round's passages",
         "n": len(texts), "value": f"{len(texts) / torch_s:.1f} chunks/s ({torch_s:.1f} s)"},
    ]  # fmt: skip
