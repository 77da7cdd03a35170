"""Statement rows ready to store beside a document's chunks: each linked to the passage whose text
holds its line, so a figure read from a cell is re-checked against the stored passage."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from research.ingest.statements import extract_statements
from research.models import StatementRow
from research.retrieval.statement_terms import match_key


def _flat(text: str) -> str:
    return " ".join(text.split())


def statement_rows_build(
    document_id: int, pages: Sequence[Any], drafts: Sequence[Any], chunk_ids: Sequence[int]
) -> list[StatementRow]:
    """Unsaved rows of every statement table in ``pages``; ``drafts`` are the chunk drafts in
    ordinal order and ``chunk_ids`` the ids they were stored under. A row whose line no passage of
    its page holds whole (cut between two passages) keeps no chunk and cannot be quoted."""
    texts: dict[int, list[tuple[int, str]]] = {}
    for draft, chunk_id in zip(drafts, chunk_ids, strict=True):
        texts.setdefault(draft.page_number, []).append((chunk_id, _flat(draft.text)))
    rows = []
    for ordinal, row in enumerate(extract_statements(list(pages))):
        line = _flat(row.line)
        chunk = next((cid for cid, text in texts.get(row.page_number, []) if line in text), None)
        prefix = f"{row.section}: " if row.section else ""
        raw = row.label[len(prefix) :] if prefix and row.label.startswith(prefix) else row.label
        rows.append(
            StatementRow(
                document_id=document_id,
                chunk_id=chunk,
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
