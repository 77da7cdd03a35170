"""The tool nodes: each runs its registry tool(s) as the turn's user with the arguments the plan
gave it, and adds one keyed result (``node:index``) to the shared ``results`` channel.

Nodes of one superstep run in parallel, so they write only channels with reducers (``results``,
``tool_history``, the LLM totals). Like the other nodes they reach the database only through
``research.agent.store``, imported inside the node.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from django.conf import settings

from core.llm import LLMResponse
from research.agent.compose.chair import CHAIR_QUERY, governor_period, role_asked
from research.agent.compose.stance import stance_query
from research.agent.evidence.levels import projecting_meetings, projection_year
from research.agent.evidence.members import apart_from_statements, asks_reasons, member_asked, statement_of
from research.agent.evidence.select import aspect_query, choose
from research.agent.question.lexicon import POLICY_RATES
from research.agent.question.statements import documents_for
from research.agent.question.topics import names_topic, topic_asked
from research.agent.question.understand import (
    Understanding,
    doc_matches,
    short_period,
    understand,
    understanding_from_dict,
    year_asked,
)
from research.agent.state import ChatState, llm_usage
from research.agent.text.sentences import best_sentence, sentences
from research.packs import registry


# --- helpers ------------------------------------------------------------------------------
def _plan_args(state: ChatState, node: str) -> dict[str, Any]:
    """The arguments the plan gave ``node`` (a copy)."""
    return dict((state.get("plan") or {}).get(node) or {})


def _tool_update(
    state: ChatState,
    node: str,
    result: dict[str, Any],
    started: float,
    *,
    llm: LLMResponse | None = None,
    **step: Any,
) -> dict[str, Any]:
    """Key the result (``node:index``), record the step, and add the result to the shared channels."""
    from research.agent import store

    index = len(state.get("results", []))
    result = {"node": node, "key": f"{node}:{index}", **result}
    result.setdefault("confidence", 1.0 if result["ok"] else 0.0)
    store.record_step(
        state,
        node,
        started=started,
        llm=llm,
        tool=result["tool"],
        inputs=result["args"],
        outputs=result["output"] if result["ok"] else result["error"],
        confidence=result["confidence"],
        **{"note": "" if result["ok"] else str((result["error"] or {}).get("message", ""))[:500], **step},
    )
    return {"results": [result], "tool_history": [node]}


def rag_search(state: ChatState) -> dict[str, Any]:
    """Search the documents the question points at; when the best document's passages leave an
    asked aspect uncovered (the vote table, the decision), search that document again for it."""
    from research.agent import store

    started = time.perf_counter()
    args = _plan_args(state, "rag_search")
    query = args.get("query") or state.get("resolved") or state["question"]
    understood = args.get("understanding") or understand(query, store.library(state)).as_dict()
    if args.get("no_document"):
        result = _no_document_result(query, args, understood)
        return _tool_update(state, "rag_search", result, started)
    filters = args.get("filters") or {}
    # Within the few documents a question names, read more of them: the evidence chooser, not the
    # ranking, decides which sentence answers (a mixed-topic chunk can rank low yet hold it).
    narrow = 0 < len(filters.get("document_ids") or []) <= 3
    top_k = max(settings.AGENT_RAG_TOP_K, settings.AGENT_RAG_NARROW_TOP_K if narrow else 0)
    call_args = {"query": query, "top_k": top_k, "filters": filters}
    result = store.run_tool(state, "search_financial_documents", call_args)
    if result["ok"]:
        u = understanding_from_dict(understood)
        asked = state.get("resolved") or state["question"]
        found = result["output"]["passages"]
        found = found + [p for p in _latest_on_topic(state, query, u, asked) if p not in found]
        found = found + [p for p in _meetings_of_year(state, u, asked) if p not in found]
        found = found + _projections_of_year(state, u, asked)
        found = found + [p for p in _chairs_of_period(state, u, asked) if p not in found]
        passages = _complete(state, query, u, found)
        result["output"] = {**result["output"], "passages": passages, "understanding": understood}
        result["confidence"] = _confidence(query, u, passages, asked)
        # A guidance question is answered from the filing's words: its statement cells are actuals.
        ids = filters.get("document_ids") or documents_for(asked, passages)
        rows = [] if u.guidance else store.statement_rows(state, asked, ids)
        if rows:  # the statement tables' rows the question needs: figures read from cells
            result["output"]["statement_rows"] = rows
            result["confidence"] = max(result["confidence"], 0.9)
    return _tool_update(state, "rag_search", result, started)


def _latest_on_topic(state: ChatState, query: str, u: Understanding, asked: str) -> list[dict[str, Any]]:
    """ "What did the MPC say about the monsoon?" names a topic and a family of documents but no
    period: the family's latest document is searched for it too, so the answer can be the view now
    (compose_topic reads the latest document that names it), not whichever year ranked first."""
    from research.agent import store

    if not topic_asked(asked) or u.metrics or u.doc_periods or u.targets or u.fiscal or len(u.doc_types) != 1:
        return []
    family = [d for d in store.library(state) if d.doc_type == u.doc_types[0] and d.doc_date]
    if len(family) < 2:
        return []
    latest = max(family, key=lambda d: d.doc_date or dt.date.min)
    return _search_document(state, query, latest.id, top_k=4)


def _meetings_of_year(state: ChatState, u: Understanding, asked: str) -> list[dict[str, Any]]:
    """ "What was the repo rate in 2019?" names a year in which the library holds several meetings,
    and the rate moved at each: every one of them is searched for its decision (compose_docs reads
    each meeting's), not only whichever ranked first; a corridor rate ("the reverse repo rate in
    2019"), for the question itself. At most six meetings, one search each."""
    year = year_asked(u, asked)
    if year is None or year.kind != "year" or len(u.metrics) != 1 or u.metrics[0].key not in POLICY_RATES:
        return []
    # The headline rate: how the pack's resolutions word its decision; a corridor rate: its own sentence.
    query = registry.DECISION_QUERIES.get(u.metrics[0].key, asked)
    meetings = [d for d in _meetings(state, u) if d.doc_date.year == year.start.year][:6]
    if len(meetings) < 2:
        return []
    return [p for doc in meetings for p in _search_document(state, query, doc.id, top_k=3)]


def _projections_of_year(state: ChatState, u: Understanding, asked: str) -> list[dict[str, Any]]:
    """ "What is the CPI inflation projection for 2024-25?" names no meeting, and each meeting from
    about a year before 2024-25 revises it: the three latest meetings that may project it are
    searched, their passages marked ``projection_search`` and, inside a member's statement,
    ``in_statement`` (compose_docs answers from the latest resolution that projects the year)."""
    from research.agent import store

    named = bool(u.doc_periods or u.issuers or u.fiscal)
    year = projection_year(asked, u.metrics, u.targets, named)
    if year is None:
        return []
    meetings = {d.doc_date: d for d in _meetings(state, u)}
    found = []
    for date in projecting_meetings(year, [d for d in meetings if d])[:3]:
        doc = meetings[date]
        passages = [{**p, "projection_search": True} for p in _search_document(state, asked, doc.id, top_k=4)]
        found += apart_from_statements(passages, store.statement_passages(state, doc.id))
    return found


def _chairs_of_period(state: ChatState, u: Understanding, asked: str) -> list[dict[str, Any]]:
    """ "Who was the RBI Governor in 2017?": each meeting of the period (at most six; the latest
    meeting when none is named) is searched for the sentence naming its chair (compose_chair)."""
    if role_asked(asked) is None:
        return []
    period = governor_period(u, asked)
    meetings = sorted(_meetings(state, u), key=lambda d: d.doc_date or dt.date.min)
    meetings = [d for d in meetings if period.contains(d.doc_date)][:6] if period else meetings[-1:]
    return [p for doc in meetings for p in _search_document(state, CHAIR_QUERY, doc.id, top_k=2)]


def _meetings(state: ChatState, u: Understanding) -> list[Any]:
    """The library's dated meetings (documents of a few weeks) of the family and owner the question
    points at, in the library's order."""
    from research.agent import store

    return [d for d in store.library(state) if d.doc_date and short_period(d.start, d.end) and doc_matches(d, u)]


def _search_document(state: ChatState, query: str, document_id: int, *, top_k: int) -> list[dict[str, Any]]:
    """The passages of one document that the search returns for ``query`` (none when it fails)."""
    from research.agent import store

    args = {"query": query, "top_k": top_k, "filters": {"document_ids": [document_id]}}
    extra = store.run_tool(state, "search_financial_documents", args)
    return list((extra["output"] or {}).get("passages", [])) if extra["ok"] else []


def _no_document_result(query: str, args: dict[str, Any], understood: dict[str, Any]) -> dict[str, Any]:
    """The library has no document for what the question names: a result that says so (no search)."""
    output = {"query": query, "passages": [], "understanding": understood, "no_document": args["no_document"]}
    return {"tool": "search_financial_documents", "ok": True, "args": args, "output": output, "error": None}


def _complete(state: ChatState, query: str, u: Understanding, passages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``passages`` plus, for each aspect the chosen document's passages do not cover, the best
    passages of that document for it (one extra search per aspect, at most two), and for a question
    about a change of stance whose passages hold no decision on the stance, the passages for that."""
    from research.agent import store

    ev = choose(query, u, passages)
    asked = state.get("resolved") or state["question"]
    if ev is not None:
        # "Why did Prof. Varma vote for a cut?": the member's own statement, not the resolution. A
        # question naming no member asks the committee ("Why did the MPC …?", "What GDP growth did the
        # MPC project …?"): a member's statement ranks below the resolution, even on a later page of
        # the statement, which its heading does not name.
        ordered = store.statement_passages(state, ev.document_id)
        member = member_asked(asked, ordered)
        if member is None:
            passages = apart_from_statements(passages, ordered)
        elif asks_reasons(asked) or topic_asked(asked):
            passages = passages + statement_of(member, ordered)
    stance = stance_query(asked, passages)  # as asked: a yes/no
    if ev is None or not (ev.uncovered or stance):
        return passages
    seen = {p["chunk_id"] for p in passages}
    wanted = set(ev.uncovered)
    if wanted & {"who", "count"}:
        tables = [p for p in store.table_passages(state, ev.document_id) if p["chunk_id"] not in seen]
        passages = passages + tables
        seen |= {p["chunk_id"] for p in tables}
        wanted -= {"who", "count"} if tables else set()
    queries = [aspect_query(a, u, query) for a in sorted(wanted)] + ([stance] if stance else [])
    for query_text in dict.fromkeys(queries):
        for passage in _search_document(state, query_text, ev.document_id, top_k=4):
            if passage["chunk_id"] not in seen:
                seen.add(passage["chunk_id"])
                passages.append(passage)
    return passages


def _confidence(query: str, u: Understanding, passages: list[dict[str, Any]], asked: str) -> float:
    """How sure the retrieval is that it found the answer: the evidence names the metric and the
    target period and covers the aspects asked; without a metric, keyword coverage and similarity."""
    if not passages:
        return 0.0
    if any(p.get("statement_by") for p in passages):
        return 0.9  # the named member's own statement, found by its heading ("Statement by …")
    topic = [] if u.metrics else topic_asked(asked)
    said = [s for p in passages for s in (str(p.get("document_title", "")), *sentences(str(p.get("text", ""))))]
    if topic and not any(names_topic(s, topic) for s in said):
        # "What did the MPC say about cryptocurrency?": the library was searched for it and no passage
        # names it. That is the answer (compose_topic_absent says so), not a search to widen. (A topic a
        # document's title names, "the candidate" of a candidate profile, is its subject: not absent.)
        return 0.9
    ev = choose(query, u, passages)
    if ev is None:
        return 0.0
    if u.metrics or u.targets or u.aspects & {"who", "count", "change"}:
        if not ev.metric_found:
            return 0.2
        return 0.9 if ev.target_found and not ev.uncovered else 0.6
    picked = best_sentence(query, passages)
    vector = max((p["retrievers"].get("vector", {}).get("score", 0.0) for p in passages), default=0.0)
    coverage = picked[2] if picked else 0.0
    # Keyword coverage of the best sentence and semantic similarity, weighted equally.
    return round(0.5 * coverage + 0.5 * max(0.0, vector), 3)


def financial_calculator(state: ChatState) -> dict[str, Any]:
    from research.agent import store

    started = time.perf_counter()
    args = _plan_args(state, "financial_calculator")
    result = store.run_tool(state, "calculate_financial_metric", {"expression": args.get("expression", "")})
    if result["ok"] and args.get("operands"):
        # The figures of earlier turns the calculation uses, with their sources (named in the answer).
        result["output"] = {**result["output"], "operands": args["operands"]}
    return _tool_update(state, "financial_calculator", result, started)


def document_comparator(state: ChatState) -> dict[str, Any]:
    from research.agent import store

    started = time.perf_counter()
    query = _plan_args(state, "document_comparator").get("query", "")
    result = store.run_tool(state, "document_comparator", {"query": query})
    # With a model configured the tool makes one LLM call: its tokens and cost count like the others',
    # and a rejected comparison says why on the step.
    out = result["output"] or {}
    usage = out.get("llm_usage") or {}
    reply = (
        LLMResponse(
            text="",
            input_tokens=usage.get("input_tokens", 0),
            output_tokens=usage.get("output_tokens", 0),
            cost_usd=usage.get("cost_usd", 0.0),
        )
        if usage
        else None
    )
    step: dict[str, Any] = {}
    if out.get("fallback_reason"):
        step["note"] = f"LLM comparison not used (extractive instead): {out['fallback_reason']}"[:500]
    update = _tool_update(state, "document_comparator", result, started, llm=reply, **step)
    return update | llm_usage(reply) if reply else update


def web_search(state: ChatState) -> dict[str, Any]:
    from research.agent import store

    started = time.perf_counter()
    query = _plan_args(state, "web_search").get("query") or state.get("resolved", "")
    result = store.run_tool(state, "web_search", {"query": query})
    return _tool_update(state, "web_search", result, started)


def market_data(state: ChatState) -> dict[str, Any]:
    """Up to six market-data calls in one step; it answered if any call did."""
    from research.agent import store

    started = time.perf_counter()
    calls = list(_plan_args(state, "market_data").get("calls") or [])
    outputs: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    for call in calls[:6]:
        tool = call.get("tool", "get_stock_quote")
        one = store.run_tool(state, tool, {k: v for k, v in call.items() if k != "tool"})
        (outputs if one["ok"] else errors).append({"tool": tool, **(one["output"] or one["error"] or {})})
    result = {
        "tool": ",".join(dict.fromkeys(c.get("tool", "get_stock_quote") for c in calls)) or "get_stock_quote",
        "ok": bool(outputs),
        "args": {"calls": calls},
        "output": {"calls": outputs, "errors": errors} if outputs else None,
        "error": None if outputs else (errors[0] if errors else {"error": "invalid_input", "message": "No ticker."}),
    }
    return _tool_update(state, "market_data", result, started)


def portfolio_analyzer(state: ChatState) -> dict[str, Any]:
    from research.agent import store

    started = time.perf_counter()
    result = store.run_tool(state, "analyze_portfolio", _plan_args(state, "portfolio_analyzer"))
    return _tool_update(state, "portfolio_analyzer", result, started)
