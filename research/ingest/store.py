"""Store a parsed file's passages: embedded and written in one transaction, with the statement
rows and the corpus version (and its BM25 index) that go with them."""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing

import numpy as np
from django.db import connection, transaction
from django.template.defaultfilters import pluralize
from django.utils import timezone

from research.ingest import pipeline
from research.ingest.chunking import ChunkDraft
from research.ingest.cpu_share import database_yields_to_model, model_threads_get_the_gil_sooner
from research.ingest.metadata import fill_missing_metadata, recognise_pack
from research.ingest.parsers import Page
from research.ingest.statement_rows import statement_rows_build
from research.models import Chunk, Document, StatementRow
from research.retrieval.bm25 import ChunkChanges, StagedVersion, corpus_version_publish, corpus_version_stage

# Key space of pg_advisory_xact_lock(key, document id) for ingestion runs.
_INGEST_LOCK = 0x1D0C


def store_passages(
    document_id: int, pages: Sequence[Page], drafts: Sequence[ChunkDraft], report: Callable[[float, str], None]
) -> Document:
    """Embed and store the passages in one transaction: each step is written while the next one
    is being embedded (the model is the bottleneck, so writes no longer add to it). The corpus
    version is bumped — and the shared BM25 index for it published — in the same transaction."""
    texts, pieces = [d.text for d in drafts], [d.pieces for d in drafts]
    with transaction.atomic():
        with (
            database_yields_to_model() as give_back,
            model_threads_get_the_gil_sooner(),
            # The model starts on the first step before this thread locks and clears anything. As
            # it starts its last step, the writes still queued get full priority, to end beside it.
            closing(pipeline.EmbeddingAhead(texts, pieces=pieces, progress=report, on_last_step=give_back)) as steps,
        ):
            # Two runs of one document (a redelivered task) take turns; the document row itself is
            # not locked until the end, because the embedding thread keeps writing progress to it.
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_INGEST_LOCK, document_id])
            if Document.objects.filter(pk=document_id, status=Document.Status.DONE).exists():
                return Document.objects.get(pk=document_id)
            stale = list(Chunk.objects.filter(document_id=document_id).values_list("id", flat=True))
            StatementRow.objects.filter(document_id=document_id).delete()
            Chunk.objects.filter(id__in=stale).delete()
            staged = _write_steps(document_id, pages, drafts, steps, stale)
        locked = Document.objects.select_for_update().get(pk=document_id)
        fill_missing_metadata(locked, pages)
        locked.pack = recognise_pack(locked, pages)
        locked.status = Document.Status.DONE
        locked.progress = 100
        locked.status_message = (
            f"{len(drafts)} passage{pluralize(len(drafts))} from {len(pages)} page{pluralize(len(pages))}"
        )
        locked.page_count = len(pages)
        locked.chunk_count = len(drafts)
        locked.ingested_at = timezone.now()
        locked.save()
        corpus_version_publish(staged)
    return locked


def _write_steps(
    document_id: int,
    pages: Sequence[Page],
    drafts: Sequence[ChunkDraft],
    steps: Iterator[tuple[list[int], np.ndarray]],
    stale: Sequence[int],
) -> StagedVersion:
    """Write each model batch's passages as its vectors come (``steps`` gives their positions in
    ``drafts``), and the statement rows; build the next corpus version (staged, for the caller to
    publish) while the model embeds the last step.

    The chunk ids are taken first, so that everything but the last step's passages (the
    statement rows, the BM25 version built from the texts) is written before the model is done,
    not after it. Foreign keys are checked at commit."""
    ids = _chunk_ids_ahead(len(drafts))
    last_start = pipeline.last_step_start(len(drafts))
    statement_rows = statement_rows_build(document_id, pages, drafts, ids)  # while the model embeds

    def write_ahead_of_last_step(unwritten: int) -> StagedVersion:
        StatementRow.objects.bulk_create(statement_rows, batch_size=1000)
        rows = [(chunk_id, document_id, draft.text) for chunk_id, draft in zip(ids, drafts, strict=True)]
        return corpus_version_stage(ChunkChanges(added=ids, removed=stale, rows=rows), unwritten=unwritten)

    staged: StagedVersion | None = None
    written = 0
    for positions, vectors in steps:
        _write_step(document_id, [drafts[p] for p in positions], [ids[p] for p in positions], positions, vectors)
        written += len(positions)
        if written == last_start:  # every step before the last is in; the model is on the last one
            staged = write_ahead_of_last_step(len(drafts) - written)
    return staged or write_ahead_of_last_step(0)  # a file of one step


def _chunk_ids_ahead(count: int) -> list[int]:
    """``count`` new chunk ids, ascending, from the table's own sequence."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence('research_chunk', 'id')) FROM generate_series(1, %s)", [count]
        )
        return sorted(int(row[0]) for row in cursor.fetchall())


def _write_step(
    document_id: int, drafts: Sequence[ChunkDraft], ids: Sequence[int], ordinals: Sequence[int], vectors: np.ndarray
) -> None:
    """Store passages: ``drafts`` under ``ids`` and ``ordinals``, with one binary COPY. Against the
    ORM's multi-row INSERT of the vectors as text, a round of the ingestion bench's 534 passages
    took 0.008 instead of 0.075 CPU-seconds here and 0.21 instead of 0.27 in the database (no
    digits to format or parse; the float32s arrive exactly as the model gave them)."""
    data = _binary_copy(document_id, drafts, ids, ordinals, vectors)
    # The driver's own COPY, its errors raised as Django's (DataError, IntegrityError) as the ORM's are.
    with connection.cursor() as cursor, connection.wrap_database_errors, cursor.cursor.copy(_COPY_CHUNKS) as copy:
        copy.write(data)


# The columns of research_chunk (research.models.Chunk), in the order _binary_copy writes them.
_COPY_CHUNKS = (
    "COPY research_chunk (id, document_id, ordinal, page_number, page_label, section, text, token_count, embedding) "
    "FROM STDIN (FORMAT BINARY)"
)
_COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # no flags, no header extension
_COPY_TRAILER = b"\xff\xff"


def _binary_copy(
    document_id: int, drafts: Sequence[ChunkDraft], ids: Sequence[int], ordinals: Sequence[int], vectors: np.ndarray
) -> bytes:
    """The passages in PostgreSQL's binary COPY format: per row its field count, then each field
    as its length and bytes (bigint and integer big-endian, text as UTF-8, the vector in
    pgvector's binary form: dimensions, a zero, float32s big-endian)."""
    big_endian = np.asarray(vectors, dtype=">f4")
    vector_head = struct.pack(">HH", big_endian.shape[1], 0)
    out = [_COPY_SIGNATURE]
    for i, (draft, chunk_id, ordinal) in enumerate(zip(drafts, ids, ordinals, strict=True)):
        fields = (
            struct.pack(">q", chunk_id),
            struct.pack(">q", document_id),
            struct.pack(">i", ordinal),
            struct.pack(">i", draft.page_number),
            draft.page_label.encode(),
            draft.section.encode(),
            draft.text.encode(),
            struct.pack(">i", draft.token_count),
            vector_head + big_endian[i].tobytes(),
        )
        out.append(struct.pack(">h", len(fields)))
        out += [struct.pack(">i", len(field)) + field for field in fields]
    out.append(_COPY_TRAILER)
    return b"".join(out)
