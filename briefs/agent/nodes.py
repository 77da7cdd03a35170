"""The brief graph's nodes: small functions ``(state) -> partial update``.

Django is imported inside the functions (via ``briefs.agent.store``), so importing the graph
does not touch the database. Every node records its steps (tool, inputs, outputs, latency,
tokens, cost) on the run, which is what the live run page shows.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from briefs.agent.state import BriefState
from briefs.claims import BriefDraft, Claim, from_markup, mint_claims, verify

WORKERS = ("data_agent", "news_agent")


@dataclass(frozen=True)
class Plan:
    """What the supervisor decided: which workers run next, and what deciding cost."""

    workers: list[str] = field(default_factory=list)
    tokens: int = 0
    cost_usd: float = 0.0


Planner = Callable[[BriefState], Plan]


def rules_planner(state: BriefState) -> Plan:
    """The deterministic supervisor: run every worker not yet done; retry a failed one once."""
    status = state.get("worker_status") or {}
    attempts = state.get("attempts") or {}
    todo = []
    for worker in WORKERS:
        current = status.get(worker, "pending")
        if current == "pending" or (current == "failed" and attempts.get(worker, 0) < 2):
            todo.append(worker)
    return Plan(workers=todo)


def _store() -> Any:
    from briefs.agent import store

    return store


def _call_id() -> str:
    return uuid.uuid4().hex[:12]


# --- supervisor --------------------------------------------------------------------------------
def make_supervisor(planner: Planner) -> Callable[[BriefState], dict[str, Any]]:
    def supervisor(state: BriefState) -> dict[str, Any]:
        from django.conf import settings

        store = _store()
        iterations = state.get("iterations", 0)
        if iterations >= settings.BRIEF_MAX_ITERATIONS:
            store.step(state["run_id"], "supervisor", outputs={"stop": "iteration_cap", "iterations": iterations})
            return {"stop": "iteration_cap", "next_workers": []}
        started = time.perf_counter()
        plan = planner(state)
        tokens = state.get("tokens", 0) + plan.tokens
        cost = state.get("cost_usd", 0.0) + plan.cost_usd
        over = tokens > settings.BRIEF_BUDGET_TOKENS or cost > settings.BRIEF_BUDGET_USD
        store.step(
            state["run_id"],
            "supervisor",
            outputs={"workers": plan.workers, "iteration": iterations + 1, "stop": "budget_abort" if over else ""},
            latency_ms=(time.perf_counter() - started) * 1000,
            tokens=plan.tokens,
            cost_usd=plan.cost_usd,
        )
        store.run_progress(state["run_id"], iterations=iterations + 1, tokens=tokens, cost_usd=cost)
        update: dict[str, Any] = {"iterations": 1, "tokens": plan.tokens, "cost_usd": plan.cost_usd}
        if over:
            return {**update, "stop": "budget_abort", "next_workers": []}
        # Only known workers; the attempt is counted here so a retry is visible in the state.
        workers = [w for w in plan.workers if w in WORKERS]
        return {**update, "stop": "", "next_workers": workers, "attempts": {w: 1 for w in workers}}

    return supervisor


# --- workers -----------------------------------------------------------------------------------
def data_agent(state: BriefState) -> dict[str, Any]:
    """Metrics, full price history and fundamentals for the watchlist's tickers — and only those."""
    store = _store()
    scope = list(state["tickers"])
    wanted = [t for t in (state.get("refetch") or scope) if t in scope]
    try:
        user = store.acting_user(state["user_id"])
        prices: dict[str, Any] = {}
        bars: dict[str, Any] = {}
        errors: list[dict[str, Any]] = []
        for ticker in wanted:
            metrics = store.tool_step(state["run_id"], "data_agent", "compute_metrics", {"ticker": ticker}, user)
            if not metrics.ok:
                assert metrics.error is not None
                errors.append(
                    {
                        "ticker": ticker,
                        "source": "market",
                        "error": metrics.error.error,
                        "message": metrics.error.message,
                    }
                )
                continue
            out = metrics.as_dict()
            history = store.tool_step(
                state["run_id"],
                "data_agent",
                "get_price_history",
                {"ticker": ticker, "start": out["first_date"], "end": out["last_date"]},
                user,
            )
            if not history.ok:
                assert history.error is not None
                errors.append(
                    {
                        "ticker": ticker,
                        "source": "market",
                        "error": history.error.error,
                        "message": history.error.message,
                    }
                )
                continue
            rows = history.as_dict()["bars"]
            fundamentals = store.tool_step(state["run_id"], "data_agent", "get_fundamentals", {"ticker": ticker}, user)
            info = fundamentals.as_dict() if fundamentals.ok else {}
            prices[ticker] = {
                "metrics": out,
                "metrics_call_id": metrics.call_id,
                "history_call_id": history.call_id,
                "name": out.get("name") or info.get("name") or "",
                "sector": info.get("sector") or "",
            }
            bars[ticker] = {"dates": [r["date"] for r in rows], "closes": [r["close"] for r in rows]}
        return {"prices": prices, "bars": bars, "errors": errors, "worker_status": {"data_agent": "done"}}
    except Exception as exc:  # a worker crash is retried once by the supervisor
        store.step(state["run_id"], "data_agent", error=repr(exc)[:400])
        return {
            "worker_status": {"data_agent": "failed"},
            "errors": [{"ticker": "", "source": "market", "error": "worker_failed", "message": repr(exc)[:300]}],
        }


def news_agent(state: BriefState) -> dict[str, Any]:
    """Headlines, sentiment and risk events per ticker from RSS (untrusted text, kept as data)."""
    store = _store()
    try:
        user = store.acting_user(state["user_id"])
        sentiment: dict[str, Any] = {}
        errors: list[dict[str, Any]] = []
        for ticker in state["tickers"]:
            outcome = store.tool_step(
                state["run_id"], "news_agent", "fetch_rss_news", {"ticker": ticker, "limit": 8}, user
            )
            if not outcome.ok:
                assert outcome.error is not None
                errors.append(
                    {"ticker": ticker, "source": "news", "error": outcome.error.error, "message": outcome.error.message}
                )
                continue
            out = outcome.as_dict()
            if not out["items"]:
                errors.append(
                    {
                        "ticker": ticker,
                        "source": "news",
                        "error": "no_news",
                        "message": f"The news feeds for {ticker} had no items.",
                    }
                )
            sentiment[ticker] = {
                "items": out["items"],
                "label": out["sentiment"],
                "score": out["sentiment_score"],
                "risk_events": out["risk_events"],
                "call_id": outcome.call_id,
            }
        update: dict[str, Any] = {"sentiment": sentiment, "errors": errors, "worker_status": {"news_agent": "done"}}
        return update | _news_tone_by_llm(state["run_id"], sentiment)
    except Exception as exc:
        store.step(state["run_id"], "news_agent", error=repr(exc)[:400])
        return {
            "worker_status": {"news_agent": "failed"},
            "errors": [{"ticker": "", "source": "news", "error": "worker_failed", "message": repr(exc)[:300]}],
        }


def _news_tone_by_llm(run_id: int, sentiment: dict[str, Any]) -> dict[str, Any]:
    """When a model is configured, let it read the tone and risk events of the headlines (the
    rules' result stays where its reply breaks the contract); record the call as a step."""
    from briefs.agent.llm_news import classify_with_llm
    from core.llm import get_llm

    llm = get_llm("planner")  # a classification: the small model
    if llm is None or not sentiment:
        return {}
    started = time.perf_counter()
    read = classify_with_llm(llm, sentiment)
    outputs: dict[str, Any] = {"engine": llm.name, "model": read.model, "tickers": sorted(read.sentiment)}
    if read.error:
        outputs["fallback"] = f"rules: {read.error}"
    if read.kept_rules:
        outputs["kept_rules"] = read.kept_rules
    _store().step(
        run_id,
        "news_agent",
        outputs=outputs,
        latency_ms=(time.perf_counter() - started) * 1000,
        tokens=read.tokens,
        cost_usd=read.cost_usd,
    )
    for ticker, entry in read.sentiment.items():
        sentiment[ticker] = entry
    return {"sentiment": sentiment, "tokens": read.tokens, "cost_usd": read.cost_usd}


# --- writer, verifier, regeneration ------------------------------------------------------------
def _partial(state: BriefState) -> bool:
    return bool(state.get("errors")) or any(state.get("worker_status", {}).get(w) != "done" for w in WORKERS)


def writer(state: BriefState) -> dict[str, Any]:
    """Mint the claim table from tool outputs, then write numeral-free prose citing it: the LLM
    writer when one is configured (falling back to the rules if its reply breaks the contract),
    the deterministic engine otherwise."""
    from briefs.agent import engine
    from briefs.agent.llm_writer import write_with_llm
    from core.llm import get_llm

    store = _store()
    started = time.perf_counter()
    claims = mint_claims(state.get("prices") or {}, list(state["tickers"]))
    inputs: dict[str, Any] = {
        "tickers": list(state["tickers"]),
        "claims": claims,
        "prices": state.get("prices") or {},
        "sentiment": state.get("sentiment") or {},
        "partial": _partial(state),
    }
    llm = get_llm("writer")
    outputs: dict[str, Any] = {"engine": "deterministic"}
    tokens, cost = 0, 0.0
    draft = None
    if llm is not None:
        written = write_with_llm(llm, **inputs)
        tokens, cost, draft = written.tokens, written.cost_usd, written.draft
        outputs = {"engine": llm.name, "model": written.model}
        if draft is None:
            outputs["fallback"] = f"deterministic engine: {written.error}"
    if draft is None:
        draft = engine.write_deterministic(**inputs)
    store.step(
        state["run_id"],
        "writer",
        outputs={"claims": len(claims), "sections": len(draft.sections), **outputs},
        latency_ms=(time.perf_counter() - started) * 1000,
        tokens=tokens,
        cost_usd=cost,
    )
    return {
        "claims": [c.model_dump(mode="json") for c in claims],
        "draft": draft.model_dump(mode="json"),
        "tokens": tokens,
        "cost_usd": cost,
    }


def _news_by_ticker(state: BriefState) -> dict[str, list[dict[str, Any]]]:
    return {t: v.get("items", []) for t, v in (state.get("sentiment") or {}).items()}


def verifier(state: BriefState) -> dict[str, Any]:
    """Deterministic: recompute every claim from raw bars, check references, scope and quotes."""
    store = _store()
    started = time.perf_counter()
    claims = [Claim.model_validate(c) for c in state.get("claims") or []]
    result = verify(
        BriefDraft.model_validate(state["draft"]),
        claims,
        state.get("bars") or {},
        _news_by_ticker(state),
        list(state["tickers"]),
    )
    store.step(
        state["run_id"],
        "verifier",
        outputs={
            "ok": result.ok,
            "claims": len(result.checks),
            "mismatched": result.mismatched,
            "problems": result.problems[:10],
        },
        latency_ms=(time.perf_counter() - started) * 1000,
    )
    return {"verification": result.model_dump(mode="json")}


def regenerate(state: BriefState) -> dict[str, Any]:
    """One regeneration: fetch the affected tickers' data again and write again."""
    verification = state.get("verification") or {}
    bad = sorted({c["ticker"] for c in verification.get("checks", []) if not c["verified"]}) or list(state["tickers"])
    _store().step(state["run_id"], "regenerate", outputs={"refetch": bad})
    return {
        "regenerations": state.get("regenerations", 0) + 1,
        "refetch": bad,
        "prices": {t: None for t in bad},
        "bars": {t: None for t in bad},
        "worker_status": {"data_agent": "pending"},
    }


# --- the human gate and delivery ----------------------------------------------------------------
def gate(state: BriefState) -> dict[str, Any]:
    """Save the brief, open (idempotently) a brief_approval review task, pause for the decision.

    Everything before ``interrupt()`` runs again on resume, so both writes are idempotent."""
    from langgraph.types import interrupt

    store = _store()
    rnd = state.get("gate_round", 0)
    brief_id, task_id = store.brief_open_for_review(state, rnd)
    decision: dict[str, Any] = interrupt({"task_id": task_id, "brief_id": brief_id})
    store.step(
        state["run_id"],
        "gate",
        outputs={"decision": decision.get("outcome"), "reviewer": decision.get("reviewer"), "task_id": task_id},
    )
    outcome = decision.get("outcome")
    update: dict[str, Any] = {"brief_id": brief_id, "decision": decision}
    verification = state.get("verification") or {}
    if outcome == "edit":
        body = (decision.get("edited") or {}).get("body", "")
        try:
            draft = from_markup(body, BriefDraft.model_validate(state["draft"]))
        except ValueError as exc:
            return {
                **update,
                "outcome": "edit_invalid",
                "gate_round": rnd + 1,
                "gate_note": f"The edit was refused: {exc}",
            }
        claims = [Claim.model_validate(c) for c in state.get("claims") or []]
        result = verify(draft, claims, state.get("bars") or {}, _news_by_ticker(state), list(state["tickers"]))
        cited_ok = all(c.verified for c in result.checks if c.id in set(draft.all_references()))
        if result.problems or not cited_ok:
            why = "; ".join(result.problems[:3]) or "it cites a figure that did not verify"
            return {
                **update,
                "outcome": "edit_invalid",
                "gate_round": rnd + 1,
                "gate_note": f"The edit was refused: {why}",
            }
        store.brief_decision(brief_id, decision, draft.model_dump(mode="json"))
        return {**update, "outcome": "approved", "draft": draft.model_dump(mode="json")}
    store.brief_decision(brief_id, decision, None)
    if outcome == "approve":
        return {**update, "outcome": "approved" if verification.get("ok") else "blocked"}
    return {**update, "outcome": "rejected"}


def deliver(state: BriefState) -> dict[str, Any]:
    """Email (or archive) the approved brief exactly once."""
    _store().brief_deliver(state)
    return {}


def finish(state: BriefState) -> dict[str, Any]:
    """End a run that does not deliver: budget abort, iteration cap, rejection, blocked."""
    _store().run_finish(state)
    return {}
