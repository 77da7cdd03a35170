"""Statement rows ready to store beside a document's chunks: each linked to the passage whose text
holds its line, so a figure read from a cell is re-checked against the stored passage."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from research.ingest.statements import extract_statements
from research.models import StatementRow
from research.retrieval.statement_terms import match_key


def _flat(text: str) -> str:
    return " ".join(text.split())


def joined(first: str, second: str) -> str:
    """Two consecutive passages as one text: the second's start that repeats the first's end (the
    chunker's overlap) is taken once."""
    for size in range(min(len(first), len(second), 600), 0, -1):
        if first.endswith(second[:size]) and (size == len(second) or second[size] == " "):
            return first + second[size:]
    return f"{first} {second}"


def _holders(line: str, page: int, texts: list[tuple[int, int, str]]) -> tuple[int | None, int | None]:
    """(the passage holding ``line``, None), or (first, next) when the row is cut between two."""
    for chunk_id, number, text in texts:
        if number == page and line in text:
            return chunk_id, None
    for (first, number, a), (second, _n, b) in pairwise(texts):
        if number == page and line not in a and line in joined(a, b):
            return first, second
    return None, None


def statement_rows_build(
    document_id: int, pages: Sequence[Any], drafts: Sequence[Any], chunk_ids: Sequence[int]
) -> list[StatementRow]:
    """Unsaved rows of every statement table in ``pages``; ``drafts`` are the chunk drafts in
    ordinal order and ``chunk_ids`` the ids they were stored under. A row cut between two
    consecutive passages is linked to both; one no passage holds keeps no chunk and is not quoted."""
    pairs = zip(drafts, chunk_ids, strict=True)
    texts = [(chunk_id, draft.page_number, _flat(draft.text)) for draft, chunk_id in pairs]
    rows = []
    for ordinal, row in enumerate(extract_statements(list(pages))):
        line = _flat(row.line)
        chunk, chunk_next = _holders(line, row.page_number, texts)
        prefix = f"{row.section}: " if row.section else ""
        raw = row.label[len(prefix) :] if prefix and row.label.startswith(prefix) else row.label
        rows.append(
            StatementRow(
                document_id=document_id,
                chunk_id=chunk,
                chunk_next_id=chunk_next,
                ordinal=ordinal,
                statement=row.statement[:30],
                caption=row.caption[:300],
                section=row.section[:200],
                label=row.label[:300],
                label_key=match_key(raw)[:300],
                line=line,
                unit=row.unit[:40],
                cells=row.cells,
                page_number=row.page_number,
                page_label=row.page_label[:20],
            )
        )
    return rows
