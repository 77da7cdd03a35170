"""The chat graph's control nodes (the tool nodes are in ``tool_nodes.py``): small functions
``(state) -> partial update``.

Each node records its trace step through ``research.agent.store``, imported inside the node, so
importing the graph touches no database. ``graph.py`` wraps every node for the database and routes
between them. Nodes before the review ``interrupt()`` are safe to run again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.conf import settings
from django.template.defaultfilters import pluralize
from langgraph.types import Overwrite, interrupt

from core.llm import LLMError, LLMProvider, LLMResponse, get_llm
from research.agent.answer import answer_update, compose
from research.agent.dialogue import memory as memory_rules
from research.agent.dialogue import series
from research.agent.dialogue.latest import latest_meeting_asked
from research.agent.dialogue.planner import Plan, plan_from_tool_calls, plan_rules, saved_portfolio_rule
from research.agent.guardrails import guardrail_route
from research.agent.prompts import PLANNER_SYSTEM, RESOLVER_SYSTEM, planner_request, resolver_request, tool_specs
from research.agent.question.understand import as_filters, matching_documents, search_query, understand
from research.agent.rewrite import Rewritten, check_answer, rewrite_answer
from research.agent.state import ChatState, llm_usage
from research.agent.verify.claims import render_text


# --- memory_resolver -------------------------------------------------------------------------
def memory_resolver(state: ChatState) -> dict[str, Any]:
    """Stamp the turn's start and make the question standalone: by the memory rules, else (with a
    window and a model) by the planner model."""
    from research.agent import store

    started = time.perf_counter()
    # The window is conversation state on the checkpointed thread. Only a thread that has none yet
    # (a conversation started before thread = conversation) rebuilds it from the Turn rows, once:
    # the seed is written back so later turns read the checkpoint.
    window = list(state.get("memory") or [])
    source = "checkpoint"
    update: dict[str, Any] = {"started": time.time(), "attempts": 0}
    if not window and state.get("turn_id"):
        window = store.memory_from_turns(state["turn_id"])
        source = "turn rows" if window else "none"
        if window:
            update["memory"] = Overwrite(window)
    question = state["question"]
    resolved, rule, scope = _resolve(state, question, window)
    llm = get_llm("planner") if window and rule == "none" else None
    reply = None
    if llm is not None:
        reply, rewritten, usage = _llm_resolve(llm, window, question)
        if rewritten:
            resolved, rule = rewritten, "llm"
        update.update(usage)
    update["resolved"] = resolved
    update["scope"] = scope
    store.record_step(
        state,
        "memory_resolver",
        started=started,
        llm=reply,
        inputs={"question": question, "memory_turns": len(window), "memory_source": source},
        outputs={"resolved": resolved, "rule": rule, "scope": scope},
        note=f"follow-up resolved by the {rule.replace('_', ' ')} rule" if rule != "none" else "standalone question",
    )
    return update


def _resolve(state: ChatState, question: str, window: list[dict[str, Any]]) -> tuple[str, str, dict[str, Any]]:
    """A move along the series of the document the last turn cited ("the following meeting"),
    else the memory rules: (resolved question, rule, scope)."""
    from research.agent import store

    move = series.move_asked(question) if window else None
    cited = (window[-1].get("documents") or []) if window else []
    if move is None or not cited:
        return memory_rules.resolve(question, window)
    library = store.library(state)
    origin = next((d for d in library if d.id == cited[0]), None)
    if origin is None:
        return memory_rules.resolve(question, window)
    previous = str(window[-1].get("resolved") or window[-1].get("question") or question)
    target = series.navigate(origin, move, library)
    rule = f"series: {move.describe}"
    if target is None:
        info = series.no_document_info(understand(previous, library), library) | {
            "asked": f"{move.describe} {origin.title}",
            "family": series.family_name(origin.doc_type, library),
        }
        return previous, rule, {"no_document": info}
    rewritten = series.rewrite_for(previous, target, understand(previous, library).doc_periods)
    return rewritten, rule, {"document_ids": [target.id], "navigated_from": origin.id}


def _llm_resolve(
    llm: LLMProvider, window: list[dict[str, Any]], question: str
) -> tuple[LLMResponse | None, str, dict[str, Any]]:
    """The model's reply, the standalone question it wrote ("" if none), and the call's update."""
    try:
        reply = llm.complete(
            system=RESOLVER_SYSTEM,
            messages=[{"role": "user", "content": resolver_request(window, question)}],
            max_tokens=200,
        )
    except LLMError as exc:
        return None, "", {"events": [{"node": "memory_resolver", "event": "llm_error", "detail": exc.code}]}
    return reply, reply.text.strip(), llm_usage(reply)


# --- planner ---------------------------------------------------------------------------------
@dataclass
class _Planned:
    """The planner's decision: the next superstep, how it was planned, and what planning cost."""

    plan: Plan
    path: str
    note: str = ""
    reply: LLMResponse | None = None
    update: dict[str, Any] = field(default_factory=dict)


def planner(state: ChatState) -> dict[str, Any]:
    """Plan the next superstep of tool nodes (an empty plan: answer now)."""
    from research.agent import store

    started = time.perf_counter()
    if store.cancel_requested(state):
        store.record_step(state, "planner", started=started, note="cancelled by the user")
        return {"plan": {}, "cancelled": True}
    results = state.get("results", [])
    question = state.get("resolved") or state["question"]
    scope = state.get("scope") or {}
    planned = (
        _plan_next(question, results, state.get("plan_path", "")) if results else _plan_first(state, question, scope)
    )
    planned.plan = _enrich(state, planned.plan, question, scope)
    store.record_step(
        state,
        "planner",
        started=started,
        llm=planned.reply,
        inputs={"question": question, "results": len(results)},
        outputs={"plan": planned.plan, "path": planned.path},
        note=planned.note,
    )
    return {"plan": planned.plan, "plan_path": planned.path, **planned.update}


def _saved_portfolio(state: ChatState, question: str) -> tuple[str, Plan] | None:
    """The saved-portfolio rule, reading the user's portfolios only when the question names one."""
    if "portfolio" not in question.lower():
        return None
    from research.agent import store

    return saved_portfolio_rule(question, store.portfolios(state))


def _plan_first(state: ChatState, question: str, scope: dict[str, Any]) -> _Planned:
    """A fast-path rule if one matches; else the model; offline, a search of the documents. A
    calculation on earlier figures that did not establish them is refused (an empty plan)."""
    if scope.get("refuse"):
        return _Planned({}, "refused", f"calculation refused: {scope['refuse']}")
    ruled = _saved_portfolio(state, question) or plan_rules(question)
    if ruled is not None:
        path, plan = ruled
        if "financial_calculator" in plan and scope.get("operands"):
            plan["financial_calculator"]["operands"] = scope["operands"]
        return _Planned(plan, path, f"planned without an LLM: {path.replace('_', ' ')}")
    llm = get_llm("planner")
    if llm is None:
        return _Planned(
            {"rag_search": {"query": question, "filters": {}}},
            "fallback",
            "no rule matched; deterministic engine searches the documents",
        )
    return _llm_plan(llm, question, [])


def _enrich(state: ChatState, plan: Plan, question: str, scope: dict[str, Any]) -> Plan:
    """Question understanding → the document search's filters: the documents the question (or
    the series move) points at, or the fact that the library has none for it."""
    if "rag_search" not in plan:
        return plan
    from research.agent import store

    library = store.library(state)
    u = understand(question, library)
    args = dict(plan["rag_search"])
    filters = dict(args.get("filters") or {})
    args["understanding"] = u.as_dict()
    if scope.get("no_document"):
        args["no_document"] = scope["no_document"]
    elif scope.get("document_ids"):
        filters["document_ids"] = scope["document_ids"]
    elif latest := latest_meeting_asked(question, u, library, partial(store.document_gives_figure, state)):
        filters["document_ids"] = [latest.id]  # "What is the policy repo rate?": the latest meeting's
    else:
        docs = matching_documents(u, library)
        if docs == []:
            args["no_document"] = series.no_document_info(u, library)
        filters.update(as_filters(u, docs))
    if filters.get("document_ids"):
        args["query"] = search_query(str(args.get("query") or question), u, library)
    args["filters"] = filters
    return {**plan, "rag_search": args}


def _plan_next(question: str, results: list[dict[str, Any]], path: str) -> _Planned:
    """After a superstep: web search when retrieval was weak (once); the model, if it planned the
    turn, decides what else to run; a fast-path plan is complete (empty plan)."""
    if not any(r["ok"] for r in results) and "rag_search" not in {r["node"] for r in results}:
        # The web (or a market tool) could not answer: the team's library may still.
        return _Planned(
            {"rag_search": {"query": question, "filters": {}}}, path, "no tool answered: searching the documents"
        )
    low = [r for r in results if r["node"] == "rag_search" and r.get("confidence", 1.0) < settings.AGENT_MIN_CONFIDENCE]
    if low and "web_search" not in {r["node"] for r in results}:
        return _Planned(
            {"web_search": {"query": question}}, path, "low retrieval confidence: falling back to web search"
        )
    llm = get_llm("planner") if path == "llm" else None
    if llm is None:
        return _Planned({}, path)
    return _llm_plan(llm, question, results)


def _llm_plan(llm: LLMProvider, question: str, results: list[dict[str, Any]]) -> _Planned:
    """The model's tool calls as a plan. If the call fails before anything ran, search the documents."""
    try:
        reply = llm.complete(
            system=PLANNER_SYSTEM,
            messages=[{"role": "user", "content": planner_request(question, results)}],
            max_tokens=400,
            tools=tool_specs(),
        )
    except LLMError as exc:
        plan: Plan = {} if results else {"rag_search": {"query": question, "filters": {}}}
        event = {"node": "planner", "event": "llm_error", "detail": exc.code}
        return _Planned(plan, "llm", f"LLM planner failed ({exc.code})", update={"events": [event]})
    plan = plan_from_tool_calls([(c.name, c.arguments) for c in reply.tool_calls])
    return _Planned(plan, "llm", "LLM planner: " + (", ".join(plan) or "answer now"), reply, llm_usage(reply))


# --- guardrail_check -------------------------------------------------------------------------
def guardrail_check(state: ChatState) -> dict[str, Any]:
    """Decide where the run goes after tools: back to the planner, to the answer, or to a human."""
    from research.agent import store

    started = time.perf_counter()
    if store.cancel_requested(state):
        nxt, events = "final_answer", [{"event": "cancelled"}]
    else:
        nxt, events = guardrail_route(state)
    store.record_step(
        state,
        "guardrail_check",
        started=started,
        outputs={"next": nxt},
        guardrail_events=events,
        note=", ".join(e["event"].replace("_", " ") for e in events),
    )
    update: dict[str, Any] = {"events": events, "plan": {}, "status": nxt}
    if nxt == "human_review":
        update["escalation_reason"] = events[-1]["detail"]
    if any(e["event"] == "cancelled" for e in events):
        update["cancelled"] = True
    return update


# --- final_answer ----------------------------------------------------------------------------
# The final step's note under an answer: "verified" is about the figures alone (whether the answer
# addresses the question is its own check, shown beside it).
_VERIFICATION_NOTES = {"verified": "figures traced to source"}


def final_answer(state: ChatState) -> dict[str, Any]:
    """Compose the answer from the results; with a model, take its rewrite only if every figure
    verifies; verify what is shown and send an answer with unverified figures to review."""
    from research.agent import store

    started = time.perf_counter()
    if state.get("cancelled"):
        store.record_step(state, "final_answer", started=started, note="cancelled")
        return {"status": "cancelled", "answer": "", "claims": [], "citations": []}
    c, confidence = compose(state)
    writer = get_llm("synthesis") if state.get("results") else None
    written = rewrite_answer(state, c, writer) if writer is not None else Rewritten(template=c.draft)
    verification = written.verification or check_answer(state, written.template, c)
    answer = answer_update(
        c,
        template=written.template,
        verification=verification,
        confidence=confidence,
        attempts=written.attempts,
        escalation_reason=written.escalation_reason,
    )
    drafts = f" after {written.attempts} LLM draft{pluralize(written.attempts)}" if written.attempts else ""
    checked = _VERIFICATION_NOTES.get(verification["status"], f"verification {verification['status']}")
    store.record_step(
        state,
        "final_answer",
        started=started,
        llm=written.reply,
        outputs={
            "answer": render_text(written.template, c.claims),
            "verification": verification,
            "attempts": written.attempts,
        },
        confidence=confidence,
        note=f"{checked}{drafts}",
    )
    return {**written.update, **answer}


# --- human_review ----------------------------------------------------------------------------
def human_review(state: ChatState) -> dict[str, Any]:
    """Open (idempotently) a chat_escalation review task, pause, and take the reviewer's answer."""
    from research.agent import store

    draft = render_text(state.get("answer", ""), state.get("claims", []))
    task_id = store.review_open(state, draft)
    decision = interrupt({"task_id": task_id})
    started = time.perf_counter()
    outcome = decision.get("outcome")
    reviewer = decision.get("reviewer") or "a reviewer"
    if outcome == "cancel":
        # The analyst withdrew the question (or an admin cancelled the task): the turn ends cancelled.
        store.record_step(state, "human_review", started=started, outputs={"decision": decision}, note="withdrawn")
        return {"answer": "", "claims": [], "cancelled": True, "status": "cancelled"}
    text = _reviewed_answer(decision, draft, reviewer)
    store.record_step(
        state, "human_review", started=started, outputs={"decision": decision}, note=f"{outcome} by {reviewer}"
    )
    return {
        "answer": text,
        "claims": [],
        "answered_by": "reviewer",
        "status": "done",
        "verification": {"status": "reviewer", "checked": 0, "problems": [], "reviewer": reviewer},
    }


def _reviewed_answer(decision: dict[str, Any], draft: str, reviewer: str) -> str:
    """The answer the reviewer released: their edit, the draft they approved, or why they did not."""
    outcome = decision.get("outcome")
    if outcome == "edit":
        return str((decision.get("edited") or {}).get("answer") or draft)
    if outcome == "approve":
        return draft
    reason = decision.get("reason") or "no reason given"
    return f"A reviewer ({reviewer}) did not release an answer ({outcome}): {reason}."


# --- deliver ---------------------------------------------------------------------------------
def deliver(state: ChatState) -> dict[str, Any]:
    """Write the outcome onto the turn (status, answer, claims, totals); an answered turn is
    appended to the conversation's memory window."""
    from research.agent import store

    status = "cancelled" if state.get("cancelled") else "done"
    store.turn_persist(state, status=status)
    update: dict[str, Any] = {"status": status}
    if status == "done":
        # The answered turn joins the conversation's memory window (the reducer keeps the last N).
        update["memory"] = [
            memory_rules.memory_entry(
                turn_id=state["turn_id"],
                question=state["question"],
                resolved=state.get("resolved", ""),
                answer=render_text(state.get("answer", ""), state.get("claims", [])),
                figures=state.get("figures", []),
                subjects=state.get("subjects", []),
                documents=[c["document_id"] for c in state.get("citations", []) if c.get("document_id")],
            )
        ]
    return update
