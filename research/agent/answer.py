"""Composing the extractive answer from the turn's tool results.

One composer per tool node (:data:`COMPOSERS`) turns that node's output into sentences of the
answer. Every figure it writes is a ``[[cN]]`` reference into the claim table — minted from the
tool output by path, so the verifier can re-read and recompute it — or sits inside a verbatim
quote of a cited chunk. A missing value is written ``n/a``, never minted. Pure: no database.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from core import formatting
from research.agent.compose.composer import Composer, bracket_safe
from research.agent.compose.docs import compose_documents
from research.agent.compose.market import compose_market_data, compose_portfolio
from research.agent.compose.revision import POINTS_UNIT
from research.agent.state import ChatState
from research.agent.verify.claims import CLAIM_REF
from research.packs import registry

# A note, not an answer: its example percentages are not figures for the verifier.
CAPABILITIES_NOTE = (
    f"[Note: I can answer from the document library ({registry.LIBRARY_DESCRIPTION}), market data for the "
    "shipped tickers, portfolio analytics and the calculator. Ask about a policy decision, a "
    "ticker, a portfolio such as '50% INFY, 50% TCS', or an expression.]"
)
_PERCENT_FUNCTIONS = {"pct_change", "growth_rate", "cagr"}


# --- one composer per tool node: (composer, result key, tool output) -> None -------------------
def _compose_calculator(c: Composer, key: str, out: dict[str, Any]) -> None:
    pct = out["expression"].split("(")[0].strip() in _PERCENT_FUNCTIONS
    operands = out.get("operands") or []
    # The difference of two rates in per cent is in percentage points ("+0.2 percentage points").
    points = not pct and len(operands) == 2 and all(str(f.get("unit")) in ("per cent", "%") for f in operands)
    if pct:
        display = formatting.percent(out["result"], signed=True)
    elif points:
        display = formatting.percent(out["result"], signed=True, unit=POINTS_UNIT)
    else:
        display = formatting.format_number(out["result"])
    ref = c.claim(kind="calc", expression=out["evaluated"], value=out["result"], label="calculated", display=display)
    c.parts.append(f"Result: {ref} [Calculated: {out['expression']}]")
    if operands:
        named = [_operand_claim(c, f) for f in operands]
        c.parts.append("Operands, as the earlier answers established them: " + "; ".join(named) + ".")
    c.figures.append({"label": "calculated", "value": f"{out['result']:.4g}", "period": "", "source": "calculator"})


def _operand_claim(c: Composer, figure: dict[str, Any]) -> str:
    """One operand of a calculation on earlier figures, named with its source: a claim on the quoted
    passage it came from (re-checked), else the figure's label and source in words."""
    what = ", ".join(x for x in (figure.get("label"), figure.get("target")) if x)
    if figure.get("chunk_id"):
        ref = c.claim(
            kind="quote",
            chunk_id=figure["chunk_id"],
            citation=figure.get("source", ""),
            url=figure.get("url", ""),
            label=what or "operand",
            value=float(figure["value"]),
            display=f"{figure['value']} {figure.get('unit') or ''}".strip(),
            quote_figure=figure.get("quote_figure", figure["value"]),  # as the passage writes it
        )
        return f"{ref} ({what}) [Source: {figure.get('source', '')}]"
    return f"{what} from {figure.get('source', 'an earlier answer')}"


def _comparator_analysis(c: Composer, out: dict[str, Any]) -> None:
    """The model's comparison lines; its figures are references to verbatim quotes, shown as the quote."""
    by_ref = {f["ref"]: f["figure"] for f in out["facts"] if f.get("ref")}

    def as_quote(m: re.Match[str]) -> str:
        return f"“{by_ref[m.group(1)]}”" if m.group(1) in by_ref else "n/a"

    for line in out.get("analysis", []):
        text = CLAIM_REF.sub(as_quote, line["text"])
        c.parts.append(f"{line['side'] or 'Difference'} — {line['heading']}: {text}")


def _compose_comparator(c: Composer, key: str, out: dict[str, Any]) -> None:
    llm_mode = out.get("mode") == "llm"
    if llm_mode:
        _comparator_analysis(c, out)
    for side in out["sides"]:
        facts = [f for f in out["facts"] if f["side"] == side]
        # The extractive comparison quotes two facts a side; the model's analysis shows them all.
        for fact in facts if llm_mode else facts[:2]:
            passage = {"citation": fact["citation"], "url": fact["url"], "chunk_id": fact["chunk_id"]}
            c.parts.append(f"{side} — {fact['aspect']}:")
            c.quote(passage, fact["quote"], fact["aspect"])


def _compose_web(c: Composer, key: str, out: dict[str, Any]) -> None:
    """Web results are strangers' pages: labelled untrusted, quoted as found (a figure in them is
    shown only inside its quote, next to the page's address), never turned into claims."""
    hits = out.get("results", [])[:3]
    if not hits:
        c.parts.append("[Note: the web search found no pages for this.]")
        return
    c.parts.append("From the web — untrusted pages, not the team's library; quoted as found:")
    for hit in hits:
        title = bracket_safe(f"{hit['title']} — {hit['url']}")
        c.parts.append(f"“{hit['snippet']}” [Source: {title}]")
        entry = {"citation": title, "url": hit["url"], "chunk_id": 0, "quote": hit["snippet"], "web": True}
        if entry not in c.citations:
            c.citations.append(entry)


ToolComposer = Callable[[Composer, str, dict[str, Any]], None]
COMPOSERS: dict[str, ToolComposer] = {
    "rag_search": compose_documents,
    "financial_calculator": _compose_calculator,
    "market_data": compose_market_data,
    "portfolio_analyzer": compose_portfolio,
    "document_comparator": _compose_comparator,
    "web_search": _compose_web,
}


def compose(state: ChatState) -> tuple[Composer, float]:
    """The extractive answer to the turn's results, and its confidence: the lowest confidence of
    the results that answered (0 when none did; 1 when no tool ran and the answer is the help note)."""
    c = Composer(state.get("resolved") or state["question"])
    confidences: list[float] = []
    for r in state.get("results", []):
        if not r["ok"]:
            message = bracket_safe(r["error"].get("message", "unknown error"))
            c.parts.append(f"[Note: the {r['tool']} tool could not answer: {message}]")
            continue
        confidences.append(r.get("confidence", 1.0))
        composer = COMPOSERS.get(r["node"])
        if composer is not None:
            composer(c, r["key"], r.get("output") or {})
    refused = (state.get("scope") or {}).get("refuse")
    if refused:
        c.parts.append(
            f"[Note: I did not calculate this: {bracket_safe(refused)}. Ask for that figure again, naming its "
            "period and measure.]"
        )
    elif not state.get("results"):
        c.parts.append(CAPABILITIES_NOTE)
    confidence = min(confidences) if confidences else (1.0 if not state.get("results") else 0.0)
    return c, confidence


def answer_update(
    c: Composer,
    *,
    template: str,
    verification: dict[str, Any],
    confidence: float,
    attempts: int,
    escalation_reason: str = "",
) -> dict[str, Any]:
    """The final answer's state update. Every claim carries whether its figure traced to source.
    A reviewer is asked when a figure did not trace, when the library's evidence does not answer
    the question (and the answer does not already say so), or when the writer escalated."""
    traced = bool(verification.get("figures_traced", verification["status"] == "verified"))
    for claim in c.claims:
        claim["verified"] = traced
    answers = verification.get("answers") or {}
    if not escalation_reason:
        escalation_reason = _escalation_reason(c, verification, traced, answers)
    if answers.get("ok") is False:
        confidence = min(confidence, 0.3)  # the evidence does not match the question
    update: dict[str, Any] = {
        "answer": template,
        "claims": c.claims,
        "citations": c.citations,
        "figures": c.figures,
        "subjects": c.subjects,
        "verification": verification,
        "confidence": confidence,
        "attempts": attempts,
        "answered_by": "agent",
        "status": "human_review" if escalation_reason else "done",
    }
    if escalation_reason:
        update["escalation_reason"] = escalation_reason
    return update


def _escalation_reason(c: Composer, verification: dict[str, Any], traced: bool, answers: dict[str, Any]) -> str:
    if not traced:
        return "unverified figures: " + "; ".join(verification["problems"][:3])
    if c.outcome == "escalate":
        return "the library's evidence does not answer the question (metric or figure not found)"
    if answers.get("ok") is False:
        failed = [x["detail"] for x in answers.get("checks", []) if not x["ok"]]
        return "the evidence does not match the question: " + "; ".join(failed[:3])
    return ""
