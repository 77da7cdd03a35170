"""Research tools for the shared registry (agents and MCP)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from core.roles import can_access
from core.tools import ToolFailure, tool
from research.agent.tools.extra import document_comparator, web_search  # noqa: F401  (--- research agent ---)
from research.agent.tools.market import compare_returns  # noqa: F401  (--- research agent ---)
from research.calculator import calculate_financial_metric  # noqa: F401  (registers the calculator tool)
from research.retrieval.search import SearchFilters
from research.selectors import Passage, passage_search


class SearchDocumentsInput(BaseModel):
    query: str = Field(min_length=1, max_length=1000, description="What to look for, in plain words")
    top_k: int = Field(default=5, ge=1, le=50, description="How many passages to return")
    filters: SearchFilters = Field(default_factory=SearchFilters)

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the query is blank")
        return value.strip()


class RetrieverHit(BaseModel):
    rank: int = Field(description="1-based rank in this retriever's list")
    score: float = Field(description="BM25 score, or cosine similarity for the vector retriever")


class PassageOut(BaseModel):
    chunk_id: int
    document_id: int
    document_title: str
    issuer: str
    doc_type: str
    doc_date: str | None
    period_start: str | None = Field(None, description="First day of the period the document covers")
    period_end: str | None = Field(None, description="Last day of the period the document covers")
    fiscal_period: str = Field("", description="A filing's fiscal period as the company names it, e.g. Q3 FY2023")
    uploaded_by_you: bool = Field(False, description="The document is one of your own uploads")
    source: str = Field(
        "team",
        description="Where the document stands: 'reference' (the team's reference set), 'team' (a team "
        "upload) or 'private' (a note of your own that only you can see)",
    )
    pack: str = Field("", description="The corpus pack that reads the document (e.g. central_bank, filings), if any")
    page: str = Field(description="Page label: the PDF's own, or a printed page number, else the page in the file")
    page_number: int = Field(description="Page in the file")
    section: str = Field(description="Numbered paragraph or section, when the document numbers them")
    text: str
    citation: str = Field(description='"Title, p. N" or "Title, p. N (PDF p. M)" — cite exactly this')
    score: float = Field(description="Reciprocal-rank-fusion score")
    retrievers: dict[str, RetrieverHit]
    url: str = Field(description="Opens the document viewer at this passage")


class SearchDocumentsOutput(BaseModel):
    query: str
    passages: list[PassageOut]


@tool("search_financial_documents", input_model=SearchDocumentsInput, output_model=SearchDocumentsOutput, mcp=True)
def search_financial_documents(params: SearchDocumentsInput, *, user: Any) -> SearchDocumentsOutput:
    """Search the team's financial document library (central-bank minutes, annual reports,
    research notes) with hybrid BM25 + semantic retrieval. Returns the best passages with a
    citation "Title, p. N", the section/paragraph, per-retriever ranks and a link to open the
    passage. Quote figures only verbatim from a returned passage and cite it."""
    if not can_access(user, "research"):
        raise ToolFailure("forbidden", "Your role does not give access to the document library.")
    passages = passage_search(user=user, query=params.query, top_k=params.top_k, filters=params.filters)
    return SearchDocumentsOutput(query=params.query, passages=[passage_out(p, user) for p in passages])


def document_source(document: Any) -> str:
    """'reference', 'team' or 'private': answers and claim tables name a private note as the user's own."""
    if document.is_reference:
        return "reference"
    return "private" if document.visibility == "private" else "team"


def passage_out(p: Passage, user: Any) -> PassageOut:
    """A passage as the search tool returns it (also what the chat agent reads a document's table from)."""
    document = p.document
    return PassageOut(
        chunk_id=p.chunk.pk,
        document_id=p.chunk.document_id,
        document_title=document.title,
        issuer=document.issuer,
        doc_type=document.doc_type,
        doc_date=document.doc_date.isoformat() if document.doc_date else None,
        period_start=document.period_start.isoformat() if document.period_start else None,
        period_end=document.period_end.isoformat() if document.period_end else None,
        fiscal_period=document.fiscal_period,
        uploaded_by_you=document.owner_id == user.pk,
        source=document_source(document),
        pack=document.pack,
        page=p.chunk.page_label,
        page_number=p.chunk.page_number,
        section=p.chunk.section,
        text=p.chunk.text,
        citation=p.citation,
        score=round(p.score, 6),
        retrievers={name: RetrieverHit(rank=rank, score=round(p.scores[name], 6)) for name, rank in p.ranks.items()},
        url=p.url,
    )
