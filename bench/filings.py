"""Ingestion of real company filings, in PDF pages per second: the 20 SEC filings of
../shared/data/filings (10-Ks, 10-Qs, an 8-K and earnings releases; 7 encrypted with an empty user
password), read from disk and measured three ways on the same files:

1. parse + chunk — ``research.ingest.pipeline.parse_and_chunk``: PDFium text, page labels,
   paragraphs, token-aware passages (no database, no model), one file at a time;
2. ingestion end to end — ``document_upload`` then ``document_ingest`` with the embedding cache and
   the shipped seeds off: parse, chunk, embed ahead of the writes, store, publish the BM25 version,
   commit;
3. the embedding model alone on exactly the passages stored, in the pipeline's steps and batch size:
   the bound ingestion can approach. Timed right before or after each file's ingestion, alternately,
   so that load from elsewhere on a shared machine falls on both alike.

A row per file gives its PDF pages, passages, pages labelled by a printed number other than the PDF
page, and its parse + chunk speed. ``BENCH_FILINGS_MAX_PAGES=N`` takes only the files of at most N
pages (a quick run). A last row checks the cover metadata of all 20 (issuer, form, period end,
fiscal period, filing date) against a table read by hand (``bench/_filings_covers.py``) and lists
the filings read wrong. Skipped, saying so, when ../shared/data/filings is absent (as in CI); the
tests use the filings shipped in data/filings.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from bench._filings_covers import cover_row

ROOT = Path(__file__).resolve().parents[1]
# The team's shared data set: ALPHADESK_SHARED_DATA, else ../shared/data beside the checkout (a
# worktree under /work/wt finds it one level further up).
SHARED = Path(
    os.environ.get("ALPHADESK_SHARED_DATA")
    or next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()), ROOT.parent / "shared")
    / "data"
)
FILINGS = SHARED / "filings"
BENCH_EMAIL = "bench-filings@alphadesk.local"


def _pdf_pages(data: bytes) -> int:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    try:
        return len(pdf)
    finally:
        pdf.close()


def _encrypted(path: Path) -> bool:
    import pypdf

    return bool(pypdf.PdfReader(path).is_encrypted)


def _parse_rows(files: list[Path]) -> tuple[list[dict[str, Any]], int, float]:
    """A row per file (parse + chunk), the PDF pages in all and the seconds spent."""
    from research.ingest.pipeline import parse_and_chunk

    rows, pages_in_all, seconds = [], 0, 0.0
    for path in files:
        data = path.read_bytes()
        pdf_pages = _pdf_pages(data)
        began = time.perf_counter()
        pages, drafts = parse_and_chunk("pdf", data, name=path.name)
        spent = time.perf_counter() - began
        pages_in_all, seconds = pages_in_all + pdf_pages, seconds + spent
        relabelled = sum(page.label != str(page.number) for page in pages)
        rows.append(
            {
                "what": f"{path.name}{' (encrypted, empty user password)' if _encrypted(path) else ''}",
                "PDF pages": pdf_pages,
                "passages": len(drafts),
                "pages labelled ≠ PDF page": relabelled,
                "value": f"parse + chunk {pdf_pages / spent:.0f} pages/s ({spent:.2f} s)",
            }
        )
    return rows, pages_in_all, seconds


def _timed_model(texts: list[str]) -> float:
    """Seconds for the embedding model alone to embed ``texts`` in the pipeline's steps (its small
    last step included, as bench/_ingest_speed.py times it)."""
    from bench._ingest_speed import _model_seconds
    from research.retrieval.embeddings import get_embedder

    return _model_seconds(get_embedder(), texts)


def _ingest(owner: Any, files: list[Path]) -> tuple[float, float, int, int]:
    """(seconds of ``document_ingest``, embedding cache and seeds off; seconds of the model alone on
    the same passages; passages stored; files that ended ``done``). Document by document, the two
    are timed back to back in alternating order, so that load from elsewhere on the machine falls
    on both alike."""
    from django.test import override_settings

    from bench._ingest_speed import MODEL_RUNS
    from research.ingest.pipeline import parse_and_chunk
    from research.models import Chunk, Document
    from research.services import UploadFile, document_ingest, document_upload

    Document.objects.filter(owner=owner).delete()
    # Uploaded with no worker running; the queued tasks would find the documents done.
    result = document_upload(user=owner, files=[UploadFile(name=p.name, data=p.read_bytes()) for p in files])
    assert not result.rejected, result.rejected
    ingest_s = model_s = 0.0
    passages = done = 0
    with override_settings(**MODEL_RUNS):  # the filings' vectors ship in a seed
        for i, document in enumerate(result.created):
            with document.file.open("rb") as handle:  # the passages document_ingest will store
                texts = [d.text for d in parse_and_chunk(document.kind, handle.read())[1]]
            for part in ("model", "ingest") if i % 2 else ("ingest", "model"):
                began = time.perf_counter()
                if part == "ingest":
                    done += document_ingest(document_id=document.pk).status == Document.Status.DONE
                    ingest_s += time.perf_counter() - began
                else:
                    model_s += _timed_model(texts)
            stored = list(Chunk.objects.filter(document=document).order_by("ordinal").values_list("text", flat=True))
            assert stored == texts
            passages += len(stored)
    Document.objects.filter(owner=owner).delete()
    return ingest_s, model_s, passages, done


def run() -> list[dict[str, Any]]:
    limit = int(os.environ.get("BENCH_FILINGS_MAX_PAGES", "0"))  # a quick run: only files this short
    files = [p for p in sorted(FILINGS.glob("*.pdf")) if not limit or _pdf_pages(p.read_bytes()) <= limit]
    covers = cover_row(FILINGS)  # all 20, whatever the page limit
    if not files:
        return [{"what": f"SKIPPED: no filings at {FILINGS} (the shared data set is not on this machine)"}, covers]
    from django.core.management import call_command

    from core.services import user_ensure
    from research.retrieval.embeddings import get_embedder

    call_command("migrate", verbosity=0)
    owner, _ = user_ensure(email=BENCH_EMAIL, roles=["analyst"], password=None)
    get_embedder().embed(["warm up the model before timing"])
    rows, pages, parse_s = _parse_rows(files)
    ingest_s, model_s, passages, done = _ingest(owner, files)
    encrypted = sum(_encrypted(p) for p in files)
    which = f"all {len(files)} filings" + (f" of ≤ {limit} pages" if limit else "")
    return [
        *rows,
        {"what": f"{which}: parse + chunk", "PDF pages": pages, "passages": passages,
         "value": f"{pages / parse_s:.0f} pages/s ({parse_s:.1f} s)"},
        {"what": f"{which}: ingestion end to end (parse, chunk, embed, store), cache and seeds off",
         "PDF pages": pages, "passages": passages,
         "value": f"{pages / ingest_s:.1f} pages/s ({ingest_s:.1f} s); {done} of {len(files)} done, "
                  f"{encrypted} of them encrypted"},
        {"what": "the embedding model alone on the very passages stored, interleaved (the bound)",
         "PDF pages": pages, "passages": passages, "value": f"{pages / model_s:.1f} pages/s ({model_s:.1f} s)"},
        {"what": "ingestion / embedding-only bound", "value": f"{model_s / ingest_s:.2f}"},
        covers,
    ]  # fmt: skip
