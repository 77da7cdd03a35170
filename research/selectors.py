"""Reads for the document library and search. Every read is scoped to what the user may see."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from research.models import Chunk, Document, StatementRow
from research.retrieval.search import Mode, SearchFilters, hybrid_search
from research.retrieval.statement_terms import BY_KEY, concepts_asked, label_rank, match_key
from research.retrieval.text import tokenize


def document_list(*, user: Any, filters: SearchFilters | None = None, status: str = "") -> QuerySet[Document]:
    qs = Document.objects.visible_to(user).select_related("owner")
    if status:
        qs = qs.filter(status=status)
    if filters is not None:
        qs = filters.apply(qs)
    return qs


def document_get(*, user: Any, document_id: int) -> Document:
    """The document if the user may see it; 404 otherwise (never reveal that it exists)."""
    try:
        return Document.objects.visible_to(user).select_related("owner").get(pk=document_id)
    except Document.DoesNotExist as exc:
        raise Http404("No such document.") from exc


def document_page_index(*, user: Any, document_id: int) -> list[tuple[int, str]]:
    """``(page number, printed page label)`` of every page that has a passage, in order."""
    document = document_get(user=user, document_id=document_id)
    rows = document.chunks.order_by("page_number").values_list("page_number", "page_label").distinct()
    seen: dict[int, str] = {}
    for number, label in rows:
        seen.setdefault(number, label)
    return sorted(seen.items())


def document_chunk_page(*, document: Document, chunk_id: int) -> int | None:
    """The page a passage of this document sits on (None for a passage of another document)."""
    if not chunk_id:
        return None
    return document.chunks.filter(pk=chunk_id).values_list("page_number", flat=True).first()


def document_page(*, document: Document, page_number: int) -> tuple[str, list[Chunk]]:
    """The printed label and the passages of one page (the caller has checked access)."""
    chunks = list(document.chunks.defer("embedding").filter(page_number=page_number).order_by("ordinal"))
    return (chunks[0].page_label if chunks else str(page_number)), chunks


def document_facets(*, user: Any) -> dict[str, list[str]]:
    # No ordering: the model's default order would join DISTINCT and return one row per document.
    qs = Document.objects.visible_to(user).filter(status=Document.Status.DONE).order_by()
    tags = sorted({t for row in qs.values_list("tags", flat=True).distinct() for t in row})
    return {
        "doc_types": sorted(t for t in qs.values_list("doc_type", flat=True).distinct() if t),
        "issuers": sorted(i for i in qs.values_list("issuer", flat=True).distinct() if i),
        "tags": tags,
    }


@dataclass
class Passage:
    chunk: Chunk
    score: float
    ranks: dict[str, int]
    scores: dict[str, float]

    @property
    def document(self) -> Document:
        return self.chunk.document

    @property
    def citation(self) -> str:
        return self.chunk.citation

    @property
    def url(self) -> str:
        base = reverse("research:document", args=[self.chunk.document_id])
        return f"{base}?page={self.chunk.page_number}&chunk={self.chunk.pk}#chunk-{self.chunk.pk}"


def passage_search(
    *, user: Any, query: str, top_k: int = 10, filters: SearchFilters | None = None, mode: Mode = "hybrid"
) -> list[Passage]:
    ranked = hybrid_search(user=user, query=query, top_k=top_k, filters=filters, mode=mode)
    chunks = Chunk.objects.defer("embedding").select_related("document").in_bulk([r.chunk_id for r in ranked])
    return [
        Passage(chunk=chunks[r.chunk_id], score=r.score, ranks=r.ranks, scores=r.scores)
        for r in ranked
        if r.chunk_id in chunks
    ]


def document_passages(*, user: Any, document_id: int, containing: str = "", match_case: bool = False) -> list[Passage]:
    """The passages of one document the user may see, in order (optionally only those whose text
    contains ``containing``, in any case unless ``match_case``: a case-blind scan of a long report
    took 7 ms, a case-sensitive one 2 ms): what the agent scans when search did not surface a table."""
    document = document_get(user=user, document_id=document_id)
    chunks = document.chunks.defer("embedding").select_related("document").order_by("ordinal")
    if containing:
        chunks = chunks.filter(**{"text__contains" if match_case else "text__icontains": containing})
    return [Passage(chunk=c, score=0.0, ranks={}, scores={}) for c in chunks]


def highlight(text: str, query: str) -> SafeString:
    """``text`` HTML-escaped, with the query's terms wrapped in <mark>."""
    terms = sorted(set(tokenize(query)), key=len, reverse=True)
    if not terms:
        return escape(text)
    # Terms are stems ("moderat"): mark the whole word they start ("moderated").
    pattern = re.compile(r"(?<!\w)((?:" + "|".join(re.escape(t) for t in terms) + r")\w*)", re.I)
    parts = pattern.split(text)
    out = [escape(part) if i % 2 == 0 else f"<mark>{escape(part)}</mark>" for i, part in enumerate(parts)]
    return mark_safe("".join(out))  # noqa: S308 — every piece was escaped above  # nosec B308 B703


def document_index(*, user: Any) -> list[dict[str, Any]]:
    """Every ready document the user may see, as the fields question understanding reads: type,
    title, dates and period, file name, company and fiscal period, and whether the user uploaded it
    (one small query)."""
    rows = (
        Document.objects.visible_to(user)
        .filter(status=Document.Status.DONE)
        .order_by("id")
        .values(
            "id",
            "doc_type",
            "title",
            "doc_date",
            "period_start",
            "period_end",
            "owner_id",
            "filename",
            "issuer",
            "fiscal_period",
            "pack",
        )
    )
    return [
        {
            "id": row["id"],
            "doc_type": row["doc_type"],
            "title": row["title"],
            "doc_date": row["doc_date"],
            "period_start": row["period_start"],
            "period_end": row["period_end"],
            "filename": row["filename"],
            "mine": row["owner_id"] == user.pk,
            "issuer": row["issuer"],
            "fiscal_period": row["fiscal_period"],
            "pack": row["pack"],
        }
        for row in rows
    ]


def statement_rows_find(
    *,
    user: Any,
    label: str,
    document_ids: list[int] | None = None,
    statement: str = "",
    period_end: dt.date | None = None,
    months: int | None = None,
    limit: int = 20,
) -> list[StatementRow]:
    """Statement table rows of the documents the user may see whose label fits ``label`` — a
    vocabulary concept key ("capex"), or words a question uses ("capital expenditure", "net
    sales") matched through the statement vocabulary (research/retrieval/statement_terms.py) —
    best fit first: a label printed exactly as asked, then the concept's best pattern, rows of the
    concept's own statement before notes, then document order. ``statement`` keeps one statement
    kind; ``period_end``/``months`` keep rows with a cell for that period."""
    concepts = [BY_KEY[label]] if label in BY_KEY else concepts_asked(label)
    asked = match_key(label)
    visible = Document.objects.visible_to(user).filter(status=Document.Status.DONE)
    qs = StatementRow.objects.filter(document__in=visible).select_related("document")
    if document_ids:
        qs = qs.filter(document_id__in=document_ids)
    if statement:
        qs = qs.filter(statement=statement)
    ranked: list[tuple[tuple[int, int, int, int], StatementRow]] = []
    for row in qs.order_by("document_id", "ordinal"):
        fits = [(label_rank(c, row.label), c) for c in concepts]
        best = min(((r, c) for r, c in fits if r is not None), key=lambda x: x[0], default=None)
        rank = -1 if row.label_key == asked else (best[0] if best else None)
        if rank is None or not _has_period(row, period_end, months):
            continue
        home = best[1].statements if best else ()
        ranked.append(((rank, 0 if row.statement in home else 1, row.document_id, row.ordinal), row))
    ranked.sort(key=lambda pair: pair[0])
    return [row for _key, row in ranked[:limit]]


def _has_period(row: StatementRow, period_end: dt.date | None, months: int | None) -> bool:
    if period_end is None and months is None:
        return True
    return any(
        (period_end is None or cell.get("end") == period_end.isoformat())
        and (months is None or cell.get("months") == months)
        for cell in row.cells
    )


def statement_rows_of(*, user: Any, document_ids: list[int]) -> list[StatementRow]:
    """Every statement row of these documents the user may see, in document order (read by the chat
    agent, which picks the rows and cells a question needs)."""
    visible = Document.objects.visible_to(user).filter(status=Document.Status.DONE, pk__in=document_ids)
    return list(StatementRow.objects.filter(document__in=visible).select_related("document").order_by("ordinal"))
