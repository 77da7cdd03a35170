"""Store a parsed file's passages: embedded and written in one transaction, with the statement
rows and the corpus version (and its BM25 index) that go with them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

import numpy as np
from django.db import connection, transaction
from django.template.defaultfilters import pluralize
from django.utils import timezone
from pgvector import Vector

from research.ingest import pipeline
from research.ingest.chunking import ChunkDraft
from research.ingest.cpu_share import database_yields_to_model, model_threads_get_the_gil_sooner
from research.ingest.metadata import fill_missing_metadata
from research.ingest.parsers import Page
from research.ingest.statement_rows import statement_rows_build
from research.models import Chunk, Document, StatementRow
from research.retrieval.bm25 import ChunkChanges, corpus_version_bump

# Key space of pg_advisory_xact_lock(key, document id) for ingestion runs.
_INGEST_LOCK = 0x1D0C


def store_passages(
    document_id: int, pages: Sequence[Page], drafts: Sequence[ChunkDraft], report: Callable[[float, str], None]
) -> Document:
    """Embed and store the passages in one transaction: each step is written while the next one
    is being embedded (the model is the bottleneck, so writes no longer add to it). The corpus
    version is bumped — and the shared BM25 index for it published — in the same transaction."""
    with transaction.atomic():
        # Two runs of one document (a redelivered task) take turns; the document row itself is
        # not locked until the end, because the embedding thread keeps writing progress to it.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_INGEST_LOCK, document_id])
        if Document.objects.filter(pk=document_id, status=Document.Status.DONE).exists():
            return Document.objects.get(pk=document_id)
        stale = list(Chunk.objects.filter(document_id=document_id).values_list("id", flat=True))
        StatementRow.objects.filter(document_id=document_id).delete()
        Chunk.objects.filter(id__in=stale).delete()
        added: list[int] = []
        rows: list[StatementRow] | None = None
        with database_yields_to_model() as give_back, model_threads_get_the_gil_sooner():
            # As the model starts its last step, the writes still queued get full priority, to
            # end beside it: this thread may then still be writing an earlier step.
            texts, pieces = [d.text for d in drafts], [d.pieces for d in drafts]
            steps = pipeline.embed_ahead(texts, pieces=pieces, progress=report, on_last_step=give_back)
            for start, vectors in steps:
                if rows is None:  # while the model embeds the next step; linked by ordinal until stored
                    rows = statement_rows_build(document_id, pages, drafts, range(len(drafts)))
                added += _write_step(document_id, drafts[start : start + len(vectors)], start, vectors)
        # The statement tables' rows, beside the passages that hold them (same transaction).
        StatementRow.objects.bulk_create(_linked(rows or [], added), batch_size=1000)
        locked = Document.objects.select_for_update().get(pk=document_id)
        fill_missing_metadata(locked, pages)
        locked.status = Document.Status.DONE
        locked.progress = 100
        locked.status_message = (
            f"{len(drafts)} passage{pluralize(len(drafts))} from {len(pages)} page{pluralize(len(pages))}"
        )
        locked.page_count = len(pages)
        locked.chunk_count = len(drafts)
        locked.ingested_at = timezone.now()
        locked.save()
        corpus_version_bump(ChunkChanges(added=added, removed=stale))
    return locked


def _write_step(document_id: int, drafts: Sequence[ChunkDraft], start: int, vectors: np.ndarray) -> list[int]:
    """Store one step's passages (``drafts``, from ordinal ``start``); their new chunk ids."""
    created = Chunk.objects.bulk_create(
        [
            Chunk(
                document_id=document_id,
                ordinal=start + i,
                page_number=d.page_number,
                page_label=d.page_label,
                section=d.section,
                text=d.text,
                token_count=d.token_count,
                embedding=ExactVectorText(vectors[i]),
            )
            for i, d in enumerate(drafts)
        ],
        batch_size=1000,
    )
    return [chunk.pk for chunk in created]


def _linked(rows: list[StatementRow], chunk_ids: Sequence[int]) -> list[StatementRow]:
    """``rows`` built with passage ordinals for chunk ids, pointed at the stored chunks."""
    for row in rows:
        row.chunk_id = None if row.chunk_id is None else chunk_ids[row.chunk_id]
        row.chunk_next_id = None if row.chunk_next_id is None else chunk_ids[row.chunk_next_id]
    return rows


class ExactVectorText(Vector):
    """A float32 vector sent to the database as text with nine significant digits, the fewest
    that read back as the very same float32 (pgvector's own text has Python's seventeen). It costs
    about a third as much to build: pgvector's took a fifth of the writing thread's CPU time in
    the ingestion bench (the bench's wall time did not change measurably)."""

    def to_text(self) -> str:
        values = self.to_list()
        return _vector_format(len(values)) % tuple(values)


@cache
def _vector_format(dimensions: int) -> str:
    return "[" + ",".join(["%.9g"] * dimensions) + "]"
