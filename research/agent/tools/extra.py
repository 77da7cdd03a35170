"""Registry tools the chat agent adds: ``document_comparator`` and ``web_search`` (not on the MCP
whitelist). Imported by research/tools.py so the registry discovers them."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from pydantic import BaseModel, Field

from core.llm import get_llm
from core.roles import can_access
from core.tools import ToolFailure, call_tool, tool
from research.agent.evidence.select import FIRST_PERSON
from research.agent.question.periods import find_periods
from research.agent.text.sentences import FIGURE_RE, best_sentence
from research.packs import registry


class CompareIn(BaseModel):
    query: str = Field(min_length=3, max_length=1000, description="What to compare, naming both periods or documents")
    aspects: list[str] = Field(
        default_factory=lambda: list(registry.COMPARE_ASPECTS),
        max_length=8,
    )


class ComparedFact(BaseModel):
    aspect: str
    side: str
    quote: str
    citation: str
    url: str
    chunk_id: int
    figure: str | None
    ref: str = Field(default="", description="llm mode: the [[cN]] id the analysis uses for this figure")


class ComparisonLine(BaseModel):
    side: str = Field(description="The side this line is about; empty for a difference between both")
    heading: str = Field(description="stance, rate decision or difference")
    text: str = Field(description="Prose whose figures are [[cN]] references to facts (by their ref)")


class CompareOut(BaseModel):
    sides: list[str]
    facts: list[ComparedFact]
    mode: str = Field(description="extractive (verbatim quotes) or llm")
    analysis: list[ComparisonLine] = Field(default_factory=list, description="llm mode: the structured comparison")
    fallback_reason: str = Field(default="", description="Why the LLM comparison was not used")
    llm_usage: dict[str, Any] = Field(default_factory=dict, description="model, input/output tokens and cost")


Retrieved = list[tuple[str, str, list[dict[str, Any]]]]  # (side, aspect, passages)


def _side_filters(user: Any, period: Any) -> dict[str, Any]:
    """The documents whose period overlaps ``period`` (a meeting in that month, a report for that
    year), as a search filter; any dated series, matched like a question naming the period. For a
    month, those dated within it when there are any."""
    from research.agent.question.library import LibDoc
    from research.agent.question.understand import Understanding, doc_matches
    from research.selectors import document_index

    scope = Understanding(doc_periods=[period])
    matched = [doc for doc in (LibDoc(**row) for row in document_index(user=user)) if doc_matches(doc, scope)]
    if period.kind == "month":
        # A month names its meeting: the documents of that month (the minutes), not a report whose
        # year spans it (the annual report's "… unchanged at 6.50 per cent in April 2023 …" is not
        # December 2023's decision).
        within = [d for d in matched if d.start and d.end and period.start <= d.start and d.end < period.end]
        matched = within or matched
    return {"document_ids": [d.id for d in matched] or [0]}  # [0]: nothing matches, rather than everything


def _retrieve(params: CompareIn, user: Any) -> tuple[list[str], Retrieved]:
    """The two sides named in the query and the passages of each aspect for each side (both
    comparison paths read exactly these)."""
    periods = [p for p in find_periods(params.query) if p.kind in ("month", "fy")]
    if len(periods) < 2:
        raise ToolFailure(
            "invalid_input", "Name the two periods or meetings to compare, e.g. 'June 2024 and August 2024'."
        )
    retrieved: Retrieved = []
    for period in periods[:2]:
        filters = _side_filters(user, period)
        for aspect in params.aspects:
            outcome = call_tool(
                "search_financial_documents",
                {"query": f"{aspect} {period.label}", "top_k": 3, "filters": filters},
                user=user,
            )
            if outcome.ok and outcome.output is not None:
                retrieved.append((period.label, aspect, outcome.as_dict()["passages"]))
    return [p.label for p in periods[:2]], retrieved


def _extractive(retrieved: Retrieved) -> list[ComparedFact]:
    facts: list[ComparedFact] = []
    for side, aspect, passages in retrieved:
        # The committee's words, not a member's "I vote to keep the policy repo rate unchanged …".
        picked = best_sentence(aspect, passages, skip=FIRST_PERSON.search) or best_sentence(aspect, passages)
        if picked is None:
            continue
        passage, sentence, _ = picked
        figure = FIGURE_RE.search(sentence)
        facts.append(
            ComparedFact(
                aspect=aspect,
                side=side,
                quote=sentence,
                citation=passage["citation"],
                url=passage["url"],
                chunk_id=passage["chunk_id"],
                figure=figure.group(0) if figure else None,
            )
        )
    return facts


@tool("document_comparator", input_model=CompareIn, output_model=CompareOut, mcp=False)
def document_comparator(params: CompareIn, *, user: Any) -> CompareOut:
    """Compare two documents or periods (e.g. two MPC meetings) aspect by aspect — policy rate,
    stance, projections — with a verbatim quote and a citation for each side. With a model
    configured it also writes the stance, rate decision and key differences, its figures only as
    references to verbatim quotes; a reply that breaks that falls back to the extractive comparison."""
    if not can_access(user, "research"):
        raise ToolFailure("forbidden", "Your role does not give access to the document library.")
    sides, retrieved = _retrieve(params, user)
    facts = _extractive(retrieved)
    llm = get_llm("synthesis")
    if llm is None:
        return CompareOut(sides=sides, facts=facts, mode="extractive")
    from research.agent.tools.compare_llm import compare_with_llm

    written = compare_with_llm(llm, query=params.query, sides=sides, aspects=params.aspects, retrieved=retrieved)
    if written.error:
        return CompareOut(
            sides=sides, facts=facts, mode="extractive", fallback_reason=written.error, llm_usage=written.usage
        )
    return CompareOut(
        sides=sides,
        facts=[ComparedFact(**f) for f in written.facts],
        mode="llm",
        analysis=[ComparisonLine(**line) for line in written.analysis],
        llm_usage=written.usage,
    )


class WebSearchIn(BaseModel):
    query: str = Field(min_length=2, max_length=500)
    max_results: int = Field(default=5, ge=1, le=10)


class WebResult(BaseModel):
    title: str
    url: str
    snippet: str


class WebSearchOut(BaseModel):
    provider: str
    results: list[WebResult]


@tool("web_search", input_model=WebSearchIn, output_model=WebSearchOut, mcp=False)
def web_search(params: WebSearchIn, *, user: Any) -> WebSearchOut:
    """Search the public web through the configured provider (WEB_SEARCH_PROVIDER). Offline, or
    with no provider configured, it returns a clear provider_unavailable error."""
    provider = settings.WEB_SEARCH_PROVIDER
    if not provider:
        raise ToolFailure(
            "provider_unavailable",
            "Web search is disabled: no provider is configured (set WEB_SEARCH_PROVIDER), so only the "
            "document library and market data were searched.",
        )
    from django.utils.module_loading import import_string

    search = import_string(provider)
    try:
        found = search(params.query, params.max_results)
    except Exception as exc:  # any provider failure is the analyst's "web search unavailable", not a crash
        raise ToolFailure("provider_unavailable", f"Web search failed: {exc}"[:300]) from exc
    results = [WebResult(**r) for r in found]
    return WebSearchOut(provider=provider.rsplit(".", 1)[-1], results=results)


def _strip(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
