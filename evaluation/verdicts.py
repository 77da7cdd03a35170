"""The judge's verdicts on one chat turn and the measures the metric registry reads from it.

``judge_turn`` is pure: the runner hands in the turn as stored (answer, claims, citations,
status, trace steps with their outputs) and the stored chunks the turn cited or retrieved.
"""

from __future__ import annotations

import re
from typing import Any

from evaluation import filings, judge
from evaluation.suites import Expect

DOCUMENT_NODES = {"rag_search", "document_comparator"}
RETRIEVAL_NODES = {"rag_search", "document_comparator", "web_search"}
GUARDRAIL_EVENTS = {"depth_limit", "token_budget", "latency_cap", "loop_detected", "low_confidence"}


def outcome_of(turn: dict[str, Any]) -> str:
    """What the turn ended as: answered, escalated, no_document, refused, failed or cancelled."""
    status = turn["status"]
    if status == "escalated":
        return "escalated"
    if status != "done":
        return str(status)
    if turn.get("answered_by") == "reviewer":
        return "escalated"
    # The product's own reading of its answer (the golden set's reference runner reads the same):
    # "the library has X, not the Y you asked for" shows a nearby figure yet answers nothing.
    if ((turn.get("verification") or {}).get("answers") or {}).get("outcome") == "no_document":
        return "no_document"
    nodes = {s["node"] for s in turn["steps"]}
    if nodes & DOCUMENT_NODES and not turn["citations"] and not any(c.get("kind") != "quote" for c in turn["claims"]):
        return "no_document"
    return "answered"


def _retrieved_texts(steps: list[dict[str, Any]]) -> list[str]:
    """Every passage text the turn's retrieval steps returned (as stored on the trace step)."""
    texts: list[str] = []
    for step in steps:
        if step["node"] not in RETRIEVAL_NODES or not isinstance(step.get("outputs"), dict):
            continue
        out = step["outputs"]
        texts += [judge.squash(p.get("text", "")) for p in out.get("passages", [])]
        texts += [judge.squash(f.get("quote", "")) for f in out.get("facts", [])]
        texts += [judge.squash(r.get("snippet", "")) for r in out.get("results", [])]  # web results
        # Statement-table rows come with the words of their line as the stored passage holds them.
        texts += [judge.squash(r.get("quote", "")) for r in out.get("statement_rows", [])]
    return texts


def _faithful(answer: str, steps: list[dict[str, Any]]) -> bool | None:
    """Every quote in the answer is verbatim in a passage this turn retrieved (None: no quotes)."""
    quotes = [judge.squash(q).strip(" .…") for q in judge.QUOTES.findall(answer or "")]
    quotes = [q for q in quotes if q]
    if not quotes:
        return None
    texts = _retrieved_texts(steps)
    return all(any(q in t for t in texts) for q in quotes)


def _document_and_page(expect: Expect, turn: dict[str, Any], chunks: dict[int, dict[str, Any]]) -> tuple[bool, bool]:
    ids = [int(c.get("chunk_id") or 0) for c in turn["citations"]]
    cited = [chunks[i] for i in ids if i in chunks]
    doc_ok = expect.document is None or any(c["stem"] == expect.document for c in cited)
    if expect.pdf_pages:  # a filing: the physical page the citation opens, not its printed label
        return doc_ok, any(c["stem"] == expect.document and c.get("page_number") in expect.pdf_pages for c in cited)
    pages = expect.pages  # the expected page or any other page of the document stating the same fact
    page_ok = not pages or any(
        c["stem"] == (expect.document or c["stem"]) and str(c["page"]) in {str(p) for p in pages} for c in cited
    )
    return doc_ok, page_ok


def _flat(text: str) -> str:
    """Text compared for ``contains``: dashes as "-", whitespace squashed, lower case."""
    return judge.squash(re.sub(r"[–—−]", "-", text or "")).lower()


def missing_text(expected: list[str], answer: str) -> list[str]:
    """The expected ``contains`` texts (a dissenter's name, a link) that the shown answer lacks."""
    shown = _flat(answer)
    return [item for item in expected if _flat(item) not in shown]


def _resolves(citation: dict[str, Any], chunks: dict[int, dict[str, Any]], steps: list[dict[str, Any]]) -> bool:
    if citation.get("web"):
        return judge.citation_resolves_web(citation, steps)
    return judge.citation_resolves(citation, chunks)


def _tools_of(turn: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for step in turn["steps"]:
        names.add(step["node"])
        names.update(t for t in str(step.get("tool") or "").split(",") if t)
    return names


def _evidence(expect: Expect, turn: dict[str, Any], stems: dict[int, str] | None) -> bool | None:
    """The expected PDF page is in the turn's top-5 evidence (``None``: the case names no PDF page)."""
    if not expect.pdf_pages:
        return None
    wanted = {doc for doc, stem in (stems or {}).items() if stem == expect.document}
    return filings.evidence_hit(wanted, expect.pdf_pages, turn["steps"])


def judge_turn(
    expect: Expect,
    turn: dict[str, Any],
    chunks: dict[int, dict[str, Any]],
    question: str,
    stems: dict[int, str] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(verdicts, measures) of one turn against its expectation; ``stems`` names the documents the
    turn retrieved by file stem (for a filings case's evidence check)."""
    outcome = outcome_of(turn)
    answer = turn["answer"]
    shown = outcome == "answered" or (outcome == "no_document")
    missing = judge.missing_figures(expect.figures, answer) if expect.figures else []
    text_missing = missing_text(expect.contains, answer)
    doc_ok, page_ok = _document_and_page(expect, turn, chunks)
    outcome_ok = not expect.outcomes or outcome in expect.outcomes
    tools = _tools_of(turn)
    tool_ok = None if expect.tool is None else expect.tool in tools
    cited_chunks = {
        cid: chunks[cid] for cid in {int(c.get("chunk_id") or 0) for c in turn["citations"]} if cid in chunks
    }
    for claim in turn["claims"]:
        if claim.get("kind") in {"quote", "table", "cell"}:
            for cid in (int(claim.get("chunk_id") or 0), int(claim.get("chunk_next") or 0)):
                if cid in chunks:
                    cited_chunks[cid] = chunks[cid]
    traced, shown_n, untraced = (
        judge.trace_figures(answer, question, turn["claims"], turn["steps"], cited_chunks) if shown else (0, 0, [])
    )
    resolving = [_resolves(c, chunks, turn["steps"]) for c in turn["citations"]] if shown else []
    said = filings.yes_no_of(answer) if expect.yes_no else None
    yes_no_ok = None if expect.yes_no is None else said == expect.yes_no
    correct = outcome_ok and not missing and not text_missing and doc_ok and page_ok and yes_no_ok is not False
    verdicts = {
        "outcome": outcome,
        "outcome_ok": outcome_ok,
        "figures_missing": missing,
        "text_missing": text_missing,
        "document_ok": doc_ok,
        "page_ok": page_ok,
        "yes_no": said,
        "yes_no_ok": yes_no_ok,
        "evidence_top5": _evidence(expect, turn, stems),
        "tool_ok": tool_ok,
        "citations_ok": sum(resolving),
        "citations_total": len(resolving),
        "figures_traced": traced,
        "figures_shown": shown_n,
        "untraced": untraced[:5],
        "faithful": _faithful(answer, turn["steps"]) if shown else None,
        "correct": correct,
    }
    return verdicts, _measures(expect, turn, verdicts, tool_ok)


def _measures(expect: Expect, turn: dict[str, Any], verdicts: dict[str, Any], tool_ok: bool | None) -> dict[str, Any]:
    """What the metric registry reads from one judged turn."""
    events = {e.get("event") for e in turn.get("guardrail_events", [])}
    tool_error = any(s["node"] in _TOOL_NODES and s.get("error") for s in turn["steps"])
    expect_answer = expect.outcomes == ["answered"]
    return {
        "kind": "turn",
        "completed": turn["status"] in {"done", "escalated"},
        "tool_ok": tool_ok,
        "loop": "loop_detected" in events,
        "tool_error": tool_error,
        "recovered": turn["status"] in {"done", "escalated"} if tool_error else None,
        "correct": verdicts["correct"],
        # Shown to the analyst with both ticks: its figures verified and the question answered.
        "verified_shown": (turn.get("verification") or {}).get("status") == "verified",
        "evidence_top5": verdicts["evidence_top5"],
        "faithful": verdicts["faithful"],
        "citations_ok": verdicts["citations_ok"],
        "citations_total": verdicts["citations_total"],
        "figures_traced": verdicts["figures_traced"],
        "figures_shown": verdicts["figures_shown"],
        "steps": len(turn["steps"]),
        "latency_ms": turn.get("latency_ms"),
        "cost_usd": turn.get("cost_usd") or 0.0,
        "tokens": turn.get("tokens") or 0,
        "fast_path": turn.get("plan_path") not in {"llm", "fallback", "none", ""},
        "expect_answer": expect_answer,
        "guardrail_fired": bool(events & GUARDRAIL_EVENTS) if expect_answer else None,
        "escalated": verdicts["outcome"] == "escalated" if expect_answer else None,
    }


_TOOL_NODES = {
    "rag_search",
    "financial_calculator",
    "document_comparator",
    "web_search",
    "market_data",
    "portfolio_analyzer",
}


def reason(verdicts: dict[str, Any], expect: Expect) -> str:
    """Why a turn failed, in words ("" when it passed)."""
    parts = []
    if not verdicts["outcome_ok"]:
        parts.append(f"ended {verdicts['outcome']}, expected {' or '.join(expect.outcomes)}")
    if verdicts["figures_missing"]:
        parts.append("missing figure(s) " + ", ".join(verdicts["figures_missing"]))
    if verdicts.get("text_missing"):
        parts.append("missing text " + ", ".join(repr(t) for t in verdicts["text_missing"]))
    if not verdicts["document_ok"]:
        parts.append(f"did not cite {expect.document}")
    if not verdicts["page_ok"]:
        pages = expect.pdf_pages or expect.pages
        parts.append(f"cited no expected {'PDF ' if expect.pdf_pages else ''}page ({'/'.join(str(p) for p in pages)})")
    if verdicts.get("yes_no_ok") is False:
        parts.append(f"said {verdicts['yes_no'] or 'neither yes nor no'}, expected {expect.yes_no}")
    if verdicts.get("evidence_top5") is False:
        parts.append("expected page not in the top 5 passages")
    if verdicts["tool_ok"] is False:
        parts.append(f"did not run {expect.tool}")
    if verdicts["figures_traced"] < verdicts["figures_shown"]:
        parts.append("untraced figure: " + "; ".join(verdicts["untraced"][:2]))
    if verdicts["citations_ok"] < verdicts["citations_total"]:
        parts.append("a citation does not resolve")
    return "; ".join(parts)
