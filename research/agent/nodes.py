"""Graph nodes: small functions ``(state) -> partial update``.

Django models are imported inside functions (graph.py must import without a database). Every node
records one trace step; nodes before the review ``interrupt()`` are safe to run again.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from django.conf import settings
from langgraph.types import Overwrite

from core.checkpoint import db_node
from core.llm import LLMError, LLMResponse, get_llm
from research.agent import memory as memory_rules
from research.agent.extract import best_sentence, first_figure, keywords
from research.agent.planner import NODE_TOOLS, Plan, plan_from_tool_calls, plan_rules
from research.agent.state import ChatState
from research.agent.verify import CLAIM_REF, fmt, render_text, verify_answer

GRAPH_NAME = "research_chat"
PLANNER_SYSTEM = (
    "You plan tool calls for a financial research assistant. Call the tools needed to answer the "
    "question with figures from tools or documents; call no tool when the results already answer it. "
    "Never compute in your head: use calculate_financial_metric."
)
WRITER_SYSTEM = (
    "Write a short answer from the claims and passages given. Write every figure ONLY as its claim "
    "reference [[cN]] or inside a verbatim quote “…” followed by [Source: Title, p. N]. Do not write "
    "any other number."
)
RESOLVER_SYSTEM = (
    "Rewrite the user's follow-up as a standalone question using the conversation. Reply with the question only."
)


# --- helpers ---------------------------------------------------------------------------------
def _user(state: ChatState) -> Any:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(pk=state["user_id"])


def record(state: ChatState, node: str, *, started: float, **fields: Any) -> None:
    """Persist one trace step (the trace page and the live chat read these rows)."""
    from research.chat.models import TraceStep

    turn_id = state.get("turn_id")
    if not turn_id:
        return
    seq = TraceStep.objects.filter(turn_id=turn_id).count() + 1
    TraceStep.objects.create(
        turn_id=turn_id,
        seq=seq,
        node=node,
        latency_ms=round((time.perf_counter() - started) * 1000, 3),
        **{k: json.loads(json.dumps(v, default=str)) if k in {"inputs", "outputs"} else v for k, v in fields.items()},
    )


def cancelled(state: ChatState) -> bool:
    from research.chat.models import Turn

    turn_id = state.get("turn_id")
    if not turn_id:
        return False
    return Turn.objects.filter(pk=turn_id, cancel_requested=True).exists()


def _llm_update(reply: LLMResponse) -> dict[str, Any]:
    return {"tokens": reply.input_tokens + reply.output_tokens, "cost": reply.cost_usd, "llm_calls": 1}


def _llm_fields(reply: LLMResponse | None) -> dict[str, Any]:
    if reply is None:
        return {}
    return {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens, "cost_usd": reply.cost_usd}


def _tool_specs() -> list[dict[str, Any]]:
    from core.tools import registry

    specs = registry()
    names = [name for names in NODE_TOOLS.values() for name in names]
    return [
        {"name": n, "description": specs[n].description, "input_schema": specs[n].input_schema()}
        for n in names
        if n in specs
    ]


# --- memory_resolver -------------------------------------------------------------------------
@db_node
def memory_resolver(state: ChatState) -> dict[str, Any]:
    started = time.perf_counter()
    from research.chat.selectors import turn_memory

    # The window is conversation state on the checkpointed thread. Only a thread that has none yet
    # (a conversation started before thread = conversation) rebuilds it from the Turn rows, once:
    # the seed is written back so later turns read the checkpoint.
    window = list(state.get("memory") or [])
    source = "checkpoint"
    update: dict[str, Any] = {"started": time.time(), "attempts": 0}
    if not window and state.get("turn_id"):
        window = turn_memory(turn_id=state["turn_id"], size=settings.AGENT_MEMORY_TURNS)
        source = "turn rows" if window else "none"
        if window:
            update["memory"] = Overwrite(window)
    question = state["question"]
    resolved, rule = memory_rules.resolve(question, window)
    update["resolved"] = resolved
    reply = None
    llm = get_llm("planner") if window and rule == "none" else None
    if llm is not None:
        history = "\n".join(f"Q: {t['resolved']}\nA: {t['answer'][:300]}" for t in window)
        try:
            reply = llm.complete(
                system=RESOLVER_SYSTEM,
                messages=[{"role": "user", "content": f"Conversation:\n{history}\n\nFollow-up: {question}"}],
                max_tokens=200,
            )
            if reply.text.strip():
                resolved, rule = reply.text.strip(), "llm"
                update["resolved"] = resolved
            update.update(_llm_update(reply))
        except LLMError as exc:
            update["events"] = [{"node": "memory_resolver", "event": "llm_error", "detail": exc.code}]
    record(
        state,
        "memory_resolver",
        started=started,
        inputs={"question": question, "memory_turns": len(window), "memory_source": source},
        outputs={"resolved": resolved, "rule": rule},
        note=f"resolved by {rule}" if rule != "none" else "standalone question",
        **_llm_fields(reply),
    )
    return update


# --- planner ---------------------------------------------------------------------------------
def _results_digest(state: ChatState) -> str:
    lines = []
    for r in state.get("results", []):
        body = r["output"] if r["ok"] else {"error": r["error"]}
        lines.append(f"{r['tool']}: {json.dumps(body, default=str)[:1500]}")
    return "\n".join(lines)


@db_node
def planner(state: ChatState) -> dict[str, Any]:
    started = time.perf_counter()
    if cancelled(state):
        record(state, "planner", started=started, note="cancelled by the user")
        return {"plan": {}, "cancelled": True}
    results = state.get("results", [])
    question = state.get("resolved") or state["question"]
    plan: Plan = {}
    path = state.get("plan_path", "")
    reply: LLMResponse | None = None
    update: dict[str, Any] = {}
    note = ""
    if not results:
        ruled = plan_rules(question)
        if ruled is not None:
            path, plan = ruled
            note = f"fast path: {path}"
        else:
            llm = get_llm("planner")
            if llm is None:
                path, plan = "fallback", {"rag_search": {"query": question, "filters": {}}}
                note = "no rule matched; deterministic engine searches the documents"
            else:
                path = "llm"
    low = [r for r in results if r["node"] == "rag_search" and r.get("confidence", 1.0) < settings.AGENT_MIN_CONFIDENCE]
    tried = {r["node"] for r in results}
    if results and low and "web_search" not in tried:
        plan = {"web_search": {"query": question}}
        note = "low retrieval confidence: falling back to web search"
    elif path == "llm" and not plan:
        llm = get_llm("planner")
        if llm is not None:
            content = f"Question: {question}"
            if results:
                content += f"\n\nTool results so far:\n{_results_digest(state)}"
            try:
                reply = llm.complete(
                    system=PLANNER_SYSTEM,
                    messages=[{"role": "user", "content": content}],
                    max_tokens=400,
                    tools=_tool_specs(),
                )
                plan = plan_from_tool_calls([(c.name, c.arguments) for c in reply.tool_calls])
                update.update(_llm_update(reply))
                note = "LLM planner: " + (", ".join(plan) or "answer now")
            except LLMError as exc:
                update["events"] = [{"node": "planner", "event": "llm_error", "detail": exc.code}]
                if not results:
                    plan = {"rag_search": {"query": question, "filters": {}}}
                note = f"LLM planner failed ({exc.code})"
    record(
        state,
        "planner",
        started=started,
        inputs={"question": question, "results": len(results)},
        outputs={"plan": plan, "path": path},
        note=note,
        **_llm_fields(reply),
    )
    return {"plan": plan, "plan_path": path, **update}


def route_plan(state: ChatState) -> list[str]:
    """The tool nodes of the plan (one superstep, run in parallel) or the final answer."""
    plan = state.get("plan") or {}
    nodes = [n for n in plan if n in NODE_TOOLS]
    return nodes or ["final_answer"]


# --- tool nodes ------------------------------------------------------------------------------
def _run(state: ChatState, node: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    from core.tools import call_tool

    outcome = call_tool(tool, args, user=_user(state))
    return {
        "tool": tool,
        "ok": outcome.ok,
        "args": args,
        "output": outcome.as_dict() if outcome.ok else None,
        "error": outcome.as_dict() if not outcome.ok else None,
        "latency_ms": outcome.latency_ms,
    }


def _tool_update(state: ChatState, node: str, result: dict[str, Any], started: float, **step: Any) -> dict[str, Any]:
    index = len(state.get("results", []))
    result = {"node": node, "key": f"{node}:{index}", **result}
    result.setdefault("confidence", 1.0 if result["ok"] else 0.0)
    record(
        state,
        node,
        started=started,
        tool=result["tool"],
        inputs=result["args"],
        outputs=result["output"] if result["ok"] else result["error"],
        confidence=result["confidence"],
        **{"note": "" if result["ok"] else str((result["error"] or {}).get("message", ""))[:500], **step},
    )
    return {"results": [result], "tool_history": [node]}


@db_node
def rag_search(state: ChatState) -> dict[str, Any]:
    started = time.perf_counter()
    args = dict((state.get("plan") or {}).get("rag_search") or {})
    query = args.get("query") or state.get("resolved") or state["question"]
    call_args = {"query": query, "top_k": settings.AGENT_RAG_TOP_K, "filters": args.get("filters") or {}}
    result = _run(state, "rag_search", "search_financial_documents", call_args)
    if result["ok"]:
        passages = result["output"]["passages"]
        picked = best_sentence(query, passages)
        vector = max((p["retrievers"].get("vector", {}).get("score", 0.0) for p in passages), default=0.0)
        coverage = picked[2] if picked else 0.0
        # Keyword coverage of the best sentence and semantic similarity, weighted equally.
        result["confidence"] = round(0.5 * coverage + 0.5 * max(0.0, vector), 3) if passages else 0.0
    return _tool_update(state, "rag_search", result, started)


@db_node
def financial_calculator(state: ChatState) -> dict[str, Any]:
    started = time.perf_counter()
    args = dict((state.get("plan") or {}).get("financial_calculator") or {})
    result = _run(
        state, "financial_calculator", "calculate_financial_metric", {"expression": args.get("expression", "")}
    )
    return _tool_update(state, "financial_calculator", result, started)


@db_node
def document_comparator(state: ChatState) -> dict[str, Any]:
    started = time.perf_counter()
    args = dict((state.get("plan") or {}).get("document_comparator") or {})
    result = _run(state, "document_comparator", "document_comparator", {"query": args.get("query", "")})
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
    step = _llm_fields(reply)
    if out.get("fallback_reason"):
        step["note"] = f"LLM comparison not used (extractive instead): {out['fallback_reason']}"[:500]
    update = _tool_update(state, "document_comparator", result, started, **step)
    return update | _llm_update(reply) if reply else update


@db_node
def web_search(state: ChatState) -> dict[str, Any]:
    started = time.perf_counter()
    args = dict((state.get("plan") or {}).get("web_search") or {})
    result = _run(state, "web_search", "web_search", {"query": args.get("query") or state.get("resolved", "")})
    return _tool_update(state, "web_search", result, started)


@db_node
def market_data(state: ChatState) -> dict[str, Any]:
    started = time.perf_counter()
    calls = list(((state.get("plan") or {}).get("market_data") or {}).get("calls") or [])
    outputs: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    for call in calls[:6]:
        tool = call.get("tool", "get_stock_quote")
        args = {k: v for k, v in call.items() if k != "tool"}
        one = _run(state, "market_data", tool, args)
        (outputs if one["ok"] else errors).append({"tool": tool, **(one["output"] or one["error"] or {})})
    result = {
        "tool": ",".join(dict.fromkeys(c.get("tool", "get_stock_quote") for c in calls)) or "get_stock_quote",
        "ok": bool(outputs),
        "args": {"calls": calls},
        "output": {"calls": outputs, "errors": errors} if outputs else None,
        "error": None if outputs else (errors[0] if errors else {"error": "invalid_input", "message": "No ticker."}),
    }
    return _tool_update(state, "market_data", result, started)


@db_node
def portfolio_analyzer(state: ChatState) -> dict[str, Any]:
    started = time.perf_counter()
    args = dict((state.get("plan") or {}).get("portfolio_analyzer") or {})
    result = _run(state, "portfolio_analyzer", "analyze_portfolio", args)
    return _tool_update(state, "portfolio_analyzer", result, started)


# --- guardrail_check -------------------------------------------------------------------------
def _loop(history: list[str]) -> str | None:
    if len(history) >= 2 and history[-1] == history[-2]:
        return f"{history[-1]} → {history[-1]}"
    if len(history) >= 3 and history[-1] == history[-3] and history[-1] != history[-2]:
        return f"{history[-3]} → {history[-2]} → {history[-1]}"
    return None


@db_node
def guardrail_check(state: ChatState) -> dict[str, Any]:
    """Decide where the run goes after tools: back to the planner, to the answer, or to a human."""
    started = time.perf_counter()
    events: list[dict[str, Any]] = []
    history = state.get("tool_history", [])
    results = state.get("results", [])
    nxt = "planner"
    if cancelled(state):
        nxt = "final_answer"
        events.append({"event": "cancelled"})
    elif len(history) >= settings.AGENT_MAX_TOOL_DEPTH:
        nxt = "final_answer"
        events.append(
            {"event": "depth_limit", "detail": f"{len(history)} tool calls (limit {settings.AGENT_MAX_TOOL_DEPTH})"}
        )
    elif state.get("tokens", 0) > settings.AGENT_TOKEN_BUDGET:
        nxt = "final_answer"
        events.append(
            {
                "event": "token_budget",
                "detail": f"{state.get('tokens', 0)} tokens (budget {settings.AGENT_TOKEN_BUDGET})",
            }
        )
    elif time.time() - state.get("started", time.time()) > settings.AGENT_LATENCY_CAP_SECONDS:
        nxt = "final_answer"
        events.append({"event": "latency_cap", "detail": f"over {settings.AGENT_LATENCY_CAP_SECONDS:g} s"})
    elif (loop := _loop(history)) is not None:
        nxt = "final_answer"
        events.append({"event": "loop_detected", "detail": loop})
    else:
        rag = [r for r in results if r["node"] == "rag_search"]
        web = [r for r in results if r["node"] == "web_search"]
        low = rag and max(r.get("confidence", 0.0) for r in rag) < settings.AGENT_MIN_CONFIDENCE
        if low and web:
            best = max([r.get("confidence", 0.0) for r in rag + web])
            if best < settings.AGENT_MIN_CONFIDENCE:
                nxt = "human_review"
                events.append({"event": "low_confidence", "detail": f"confidence {best:.2f} after web search"})
        elif low:
            events.append({"event": "low_confidence", "detail": "retrieval below threshold: trying web search"})
        elif state.get("plan_path") != "llm":
            nxt = "final_answer"  # a fast-path plan is complete after its one superstep
    record(
        state,
        "guardrail_check",
        started=started,
        outputs={"next": nxt},
        guardrail_events=events,
        note=", ".join(e["event"] for e in events),
    )
    update: dict[str, Any] = {"events": events, "plan": {}, "status": nxt}
    if nxt == "human_review":
        update["escalation_reason"] = events[-1]["detail"]
    if any(e["event"] == "cancelled" for e in events):
        update["cancelled"] = True
    return update


def route_guardrail(state: ChatState) -> str:
    status = state.get("status")
    if status == "human_review":
        return "human_review"
    if status == "final_answer":
        return "final_answer"
    return "planner"


# --- final_answer ----------------------------------------------------------------------------
def _label(question: str) -> str:
    q = question.lower()
    for needle, label in (
        ("repo", "policy repo rate"),
        ("inflation", "CPI inflation projection"),
        ("gdp", "real GDP growth projection"),
        ("growth", "growth projection"),
    ):
        if needle in q:
            return label
    return " ".join(sorted(keywords(question)))[:40] or "figure"


def _excerpt(sentence: str, figure: str | None, limit: int = 320) -> str:
    if len(sentence) <= limit:
        return sentence
    at = sentence.find(figure) if figure else 0
    start = max(0, at - limit // 2)
    return sentence[start : start + limit].strip()


class _Composer:
    def __init__(self, question: str) -> None:
        self.question = question
        self.parts: list[str] = []
        self.claims: list[dict[str, Any]] = []
        self.citations: list[dict[str, Any]] = []
        self.figures: list[dict[str, Any]] = []
        self.subjects: list[str] = []

    def claim(self, **fields: Any) -> str:
        cid = f"c{len(self.claims) + 1}"
        self.claims.append({"id": cid, "verified": False, **fields})
        return f"[[{cid}]]"

    def tool_claim(
        self,
        key: str,
        path: list[Any],
        value: float | None,
        *,
        label: str,
        suffix: str = "",
        places: int = 2,
        scale: float = 1.0,
    ) -> str:
        if value is None:
            return "n/a"  # never mint a missing value
        shown = value * scale
        return self.claim(
            kind="tool", result_key=key, path=path, value=value, label=label, display=fmt(shown, places) + suffix
        )

    def quote(self, passage: dict[str, Any], sentence: str, label: str) -> None:
        figure = first_figure(sentence)
        excerpt = _excerpt(sentence, figure[0] if figure else None)
        self.parts.append(f"“{excerpt}” [Source: {passage['citation']}]")
        self.citations.append(
            {"citation": passage["citation"], "url": passage["url"], "chunk_id": passage["chunk_id"], "quote": excerpt}
        )
        if figure:
            value, unit = figure
            self.claims.append(
                {
                    "id": f"c{len(self.claims) + 1}",
                    "kind": "quote",
                    "chunk_id": passage["chunk_id"],
                    "citation": passage["citation"],
                    "url": passage["url"],
                    "label": label,
                    "value": float(value),
                    "display": f"{value} {unit}",
                    "quote_figure": value,
                    "verified": False,
                }
            )
            self.figures.append(
                {
                    "label": label,
                    "value": value,
                    "unit": unit,
                    "period": (passage.get("doc_date") or "")[:7],
                    "source": passage["citation"],
                }
            )


def _compose(state: ChatState) -> tuple[_Composer, float]:
    question = state.get("resolved") or state["question"]
    c = _Composer(question)
    confidences: list[float] = []
    for r in state.get("results", []):
        key: str = r["key"]
        out: dict[str, Any] = r.get("output") or {}
        if not r["ok"]:
            msg = str(r["error"].get("message", "unknown error")).replace("]", ")")
            c.parts.append(f"[Note: the {r['tool']} tool could not answer: {msg}]")
            continue
        confidences.append(r.get("confidence", 1.0))
        if r["node"] == "rag_search":
            picked = best_sentence(question, out["passages"])
            if picked:
                c.quote(picked[0], picked[1], _label(question))
        elif r["node"] == "financial_calculator":
            pct = out["expression"].split("(")[0].strip() in {"pct_change", "growth_rate", "cagr"}
            ref = c.claim(
                kind="calc",
                expression=out["evaluated"],
                value=out["result"],
                label="calculated",
                display=fmt(out["result"]) + (" %" if pct else ""),
            )
            c.parts.append(f"Result: {ref} [Calculated: {out['expression']}]")
            c.figures.append(
                {"label": "calculated", "value": f"{out['result']:.4g}", "period": "", "source": "calculator"}
            )
        elif r["node"] == "market_data":
            for i, o in enumerate(out["calls"]):
                sym = o.get("symbol", "?")
                c.subjects.append(sym.split(".")[0])

                def fig(field: str, label: str, _o: dict[str, Any] = o, _i: int = i, _k: str = key, **kw: Any) -> str:
                    return c.tool_claim(_k, ["calls", _i, field], _o.get(field), label=label, **kw)

                sourced = f"(source: {o.get('source')}, as of {o.get('as_of')})."
                if "trailing_pe" in o:
                    c.parts.append(
                        f"{sym} ({o.get('name') or sym}): trailing P/E {fig('trailing_pe', 'trailing P/E')}, "
                        f"market cap {fig('market_cap', 'market cap', places=0)} {o.get('currency') or ''}, "
                        f"beta {fig('beta', 'beta')} {sourced}"
                    )
                elif "volatility_annualised_pct" in o:
                    c.parts.append(
                        f"{sym} ({o.get('name')}): last close {fig('last_close', f'{sym} last close')} "
                        f"{o.get('currency')} on {o.get('last_date')}; 30-day return "
                        f"{fig('return_30d_pct', '30-day return', suffix=' %')}; annualised volatility "
                        f"{fig('volatility_annualised_pct', 'volatility', suffix=' %')}; max drawdown "
                        f"{fig('max_drawdown_pct', 'max drawdown', suffix=' %')}; 52-week high "
                        f"{fig('high_52w', '52-week high')}, low {fig('low_52w', '52-week low')} {sourced}"
                    )
                elif "bars" in o:  # get_price_history (LLM planner): the window's first and last close
                    bars = o.get("bars") or []
                    if bars:
                        ends = [
                            c.tool_claim(key, ["calls", i, "bars", j, "close"], bars[j].get("close"), label=label)
                            for j, label in ((0, f"{sym} close {bars[0]['date']}"), (len(bars) - 1, f"{sym} close"))
                        ]
                        c.parts.append(
                            f"{sym}: close {ends[0]} {o.get('currency')} on {bars[0]['date']} and {ends[1]} on "
                            f"{bars[-1]['date']} {sourced}"
                        )
                else:
                    c.parts.append(
                        f"{sym} ({o.get('name')}): last close {fig('last_close', f'{sym} last close')} "
                        f"{o.get('currency')} on {o.get('date')}, 1-day change "
                        f"{fig('change_1d_pct', '1-day change', suffix=' %')} {sourced}"
                    )
                if o.get("last_close") is not None:
                    c.figures.append(
                        {
                            "label": f"{sym} last close",
                            "value": f"{o['last_close']:.2f}",
                            "period": str(o.get("as_of") or ""),
                            "source": o.get("source"),
                        }
                    )
            for e in out.get("errors", []):
                c.parts.append(f"[Note: {e.get('tool')}: {str(e.get('message')).replace(']', ')')}]")
        elif r["node"] == "portfolio_analyzer":

            def pfig(field: str, label: str, _k: str = key, _out: dict[str, Any] = out, **kw: Any) -> str:
                return c.tool_claim(_k, [field], _out.get(field), label=label, **kw)

            c.parts.append(
                f"Portfolio {out.get('start')} to {out.get('end')}: annualised return "
                f"{pfig('annualised_return', 'annualised return', suffix=' %', scale=100)}, annualised volatility "
                f"{pfig('annualised_volatility', 'volatility', suffix=' %', scale=100)}, Sharpe "
                f"{pfig('sharpe', 'Sharpe')}, max drawdown "
                f"{pfig('max_drawdown', 'max drawdown', suffix=' %', scale=100)} "
                f"(source: {out.get('source')}, as of {out.get('as_of')})."
            )
            for notice in out.get("notices", []):
                c.parts.append(f"[Note: {notice.replace(']', ')')}]")
        elif r["node"] == "document_comparator":
            llm_mode = out.get("mode") == "llm"
            if llm_mode:
                # The model's figures are references to verbatim quotes: show each as that quote.
                by_ref = {f["ref"]: f["figure"] for f in out["facts"] if f.get("ref")}

                def as_quote(m: re.Match[str], _b: dict[str, str] = by_ref) -> str:
                    return f"“{_b[m.group(1)]}”" if m.group(1) in _b else "n/a"

                for line in out.get("analysis", []):
                    text = CLAIM_REF.sub(as_quote, line["text"])
                    c.parts.append(f"{line['side'] or 'Difference'} — {line['heading']}: {text}")
            for side in out["sides"]:
                facts = [f for f in out["facts"] if f["side"] == side]
                for fact in facts if llm_mode else facts[:2]:
                    passage = {"citation": fact["citation"], "url": fact["url"], "chunk_id": fact["chunk_id"]}
                    c.parts.append(f"{side} — {fact['aspect']}:")
                    c.quote(passage, fact["quote"], fact["aspect"])
        elif r["node"] == "web_search":
            for hit in out.get("results", [])[:3]:
                c.parts.append(f"{hit['title']} ({hit['url']})")
    if not state.get("results"):
        # A note, not an answer: its example percentages are not figures for the verifier.
        c.parts.append(
            "[Note: I can answer from the document library (RBI minutes and reports), market data for the "
            "shipped tickers, portfolio analytics and the calculator. Ask about a policy decision, a "
            "ticker, a portfolio such as '50% INFY, 50% TCS', or an expression.]"
        )
    confidence = min(confidences) if confidences else (1.0 if not state.get("results") else 0.0)
    return c, confidence


def _check(state: ChatState, template: str, c: _Composer) -> dict[str, Any]:
    from research.chat.models import TraceStep  # noqa: F401  (app registry loaded)
    from research.models import Chunk

    ids = {int(x["chunk_id"]) for x in c.citations} | {int(x["chunk_id"]) for x in c.claims if x.get("chunk_id")}
    texts = dict(Chunk.objects.filter(pk__in=ids).values_list("pk", "text"))
    outputs = {r["key"]: r.get("output") for r in state.get("results", [])}
    return verify_answer(
        template,
        c.claims,
        question=state.get("resolved") or state["question"],
        outputs=outputs,
        chunk_texts=texts,
        citations=c.citations,
    )


@db_node
def final_answer(state: ChatState) -> dict[str, Any]:
    started = time.perf_counter()
    c, confidence = _compose(state)
    template = "\n\n".join(c.parts)
    update: dict[str, Any] = {}
    reply: LLMResponse | None = None
    if state.get("cancelled"):
        record(state, "final_answer", started=started, note="cancelled")
        return {"status": "cancelled", "answer": "", "claims": [], "citations": []}
    writer = get_llm("synthesis") if state.get("results") else None
    verification: dict[str, Any] = {}
    attempts = 0
    if writer is not None:
        table = "\n".join(f"[[{x['id']}]] {x['label']} = {x['display']}" for x in c.claims)
        passages = "\n".join(f"{x['citation']}: “{x['quote']}”" for x in c.citations)
        for attempts in (1, 2):  # noqa: B007 — one regeneration, then escalate; the count is reported
            try:
                reply = writer.complete(
                    system=WRITER_SYSTEM,
                    messages=[
                        {
                            "role": "user",
                            "content": f"Question: {c.question}\nClaims:\n{table}\nPassages:\n{passages}\n"
                            f"Extractive draft:\n{template}",
                        }
                    ],
                    max_tokens=600,
                )
            except LLMError as exc:
                update.setdefault("events", []).append(
                    {"node": "final_answer", "event": "llm_error", "detail": exc.code}
                )
                break  # keep the extractive draft
            for k, v in _llm_update(reply).items():
                update[k] = update.get(k, 0) + v
            if not reply.text.strip():
                break  # nothing written: keep the verified extractive draft
            verification = _check(state, reply.text, c)
            if verification["status"] == "verified":
                template = reply.text
                break
        else:
            update["escalation_reason"] = "the written answer had figures that could not be verified: " + "; ".join(
                verification["problems"][:3]
            )
            update.setdefault("events", []).append(
                {"node": "final_answer", "event": "unverified_figures", "detail": verification["problems"][:5]}
            )
            template = "\n\n".join(c.parts)  # the reviewer sees the verified extractive draft
    if not verification or verification["status"] != "verified" or template != (reply.text if reply else None):
        verification = _check(state, template, c)
    for claim in c.claims:
        claim["verified"] = verification["status"] == "verified"
    needs_review = bool(update.get("escalation_reason")) or verification["status"] != "verified"
    if needs_review and not update.get("escalation_reason"):
        update["escalation_reason"] = "unverified figures: " + "; ".join(verification["problems"][:3])
    record(
        state,
        "final_answer",
        started=started,
        outputs={"answer": render_text(template, c.claims), "verification": verification, "attempts": attempts},
        confidence=confidence,
        note=f"verification {verification['status']}" + (f" after {attempts} LLM draft(s)" if attempts else ""),
        **_llm_fields(reply),
    )
    return {
        **update,
        "answer": template,
        "claims": c.claims,
        "citations": c.citations,
        "figures": c.figures,
        "subjects": c.subjects,
        "verification": verification,
        "confidence": confidence,
        "attempts": attempts,
        "answered_by": "agent",
        "status": "human_review" if needs_review else "done",
    }


def route_answer(state: ChatState) -> str:
    return "human_review" if state.get("status") == "human_review" else "deliver"


# --- human_review ----------------------------------------------------------------------------
@db_node
def human_review(state: ChatState) -> dict[str, Any]:
    """Open (idempotently) a chat_escalation review task, pause, and take the reviewer's answer."""
    from langgraph.types import interrupt

    from research.chat.models import TraceStep, Turn
    from reviews.services import review_task_request

    turn = Turn.objects.select_related("conversation").get(pk=state["turn_id"])
    draft = render_text(state.get("answer", ""), state.get("claims", []))
    steps = TraceStep.objects.filter(turn=turn).order_by("seq")
    task = review_task_request(
        requested_by=turn.conversation.owner,
        kind="chat_escalation",
        title=f"Chat: {state['question'][:150]}",
        graph_name=GRAPH_NAME,
        thread_id=state["thread_id"],
        request_key=f"turn-{turn.pk}",
        subject=turn.conversation,
        subject_owner=turn.conversation.owner,
        payload={
            "question": state["question"],
            "resolved_question": state.get("resolved", ""),
            "reason": state.get("escalation_reason", ""),
            "confidence": round(float(state.get("confidence", 0.0) or 0.0), 3),
            "conversation": [
                {"role": role, "content": text}
                for t in state.get("memory", [])
                for role, text in (("user", t["question"]), ("assistant", t["answer"][:500]))
            ],
            "trace": [{"node": s.node, "tool": s.tool, "latency_ms": s.latency_ms, "note": s.note} for s in steps],
            "editable": {"answer": draft or "(no draft: the agent found nothing it could verify)"},
        },
    )
    _persist(state, status=Turn.Status.ESCALATED, review_task_id=task.pk, finished=False)
    decision = interrupt({"task_id": task.pk})
    started = time.perf_counter()
    outcome = decision.get("outcome")
    reviewer = decision.get("reviewer") or "a reviewer"
    if outcome == "cancel":
        # The analyst withdrew the question (or an admin cancelled the task): the turn ends cancelled.
        record(state, "human_review", started=started, outputs={"decision": decision}, note="withdrawn")
        return {"answer": "", "claims": [], "cancelled": True, "status": "cancelled"}
    if outcome == "edit":
        text = str((decision.get("edited") or {}).get("answer") or draft)
    elif outcome == "approve":
        text = draft
    else:
        reason = decision.get("reason") or "no reason given"
        text = f"A reviewer ({reviewer}) did not release an answer ({outcome}): {reason}."
    record(state, "human_review", started=started, outputs={"decision": decision}, note=f"{outcome} by {reviewer}")
    return {
        "answer": text,
        "claims": [],
        "answered_by": "reviewer",
        "status": "done",
        "verification": {"status": "reviewer", "checked": 0, "problems": [], "reviewer": reviewer},
    }


# --- deliver ---------------------------------------------------------------------------------
def _persist(state: ChatState, *, status: str, finished: bool = True, **extra: Any) -> None:
    """Write the run's outcome and totals onto the turn (repeatable: an update, not an insert)."""
    from django.db.models import Sum
    from django.utils import timezone

    from research.chat.models import TraceStep, Turn

    turn = Turn.objects.get(pk=state["turn_id"])
    totals = TraceStep.objects.filter(turn=turn).aggregate(
        i=Sum("input_tokens"), o=Sum("output_tokens"), c=Sum("cost_usd")
    )
    now = timezone.now()
    fields: dict[str, Any] = {
        "status": status,
        "resolved_question": state.get("resolved", ""),
        "answer": state.get("answer", ""),
        "claims": state.get("claims", []),
        "citations": state.get("citations", []),
        "figures": state.get("figures", []),
        "subjects": state.get("subjects", []),
        "answered_by": state.get("answered_by", "agent"),
        "plan_path": state.get("plan_path", "") or "none",
        "llm_calls": state.get("llm_calls", 0),
        "input_tokens": totals["i"] or 0,
        "output_tokens": totals["o"] or 0,
        "cost_usd": totals["c"] or 0.0,
        "confidence": state.get("confidence"),
        "verification": state.get("verification", {}),
        "guardrail_events": state.get("events", []),
        **extra,
    }
    if finished:
        fields.update(finished_at=now, latency_ms=round((now - turn.created_at).total_seconds() * 1000, 1))
    Turn.objects.filter(pk=turn.pk).update(**fields)


@db_node
def deliver(state: ChatState) -> dict[str, Any]:
    """Write the outcome onto the turn (status, answer, claims, totals); an answered turn is
    appended to the conversation's memory window."""
    from research.chat.models import Turn

    status = Turn.Status.CANCELLED if state.get("cancelled") else Turn.Status.DONE
    _persist(state, status=status)
    update: dict[str, Any] = {"status": str(status)}
    if status == Turn.Status.DONE:
        # The answered turn joins the conversation's memory window (the reducer keeps the last N).
        update["memory"] = [
            memory_rules.memory_entry(
                turn_id=state["turn_id"],
                question=state["question"],
                resolved=state.get("resolved", ""),
                answer=render_text(state.get("answer", ""), state.get("claims", [])),
                figures=state.get("figures", []),
                subjects=state.get("subjects", []),
            )
        ]
    return update
