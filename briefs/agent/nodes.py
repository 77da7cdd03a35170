"""The brief graph's nodes: small functions ``(state) -> partial update``.

Django is imported inside the functions (via ``briefs.agent.store``), so importing the graph
does not touch the database. Every node records its steps (tool, inputs, outputs, latency,
tokens, cost) on the run, in one insert when the node ends — what the live run page shows.
The parallel workers are in ``briefs.agent.workers``.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from briefs.agent.gate import deliver, finish, gate
from briefs.agent.state import BriefState
from briefs.agent.verification import verify_state
from briefs.agent.workers import context_tickers, data_agent, news_agent
from briefs.claims import BriefDraft, Claim, mint_claims

__all__ = ["Plan", "Planner", "data_agent", "deliver", "finish", "gate", "make_supervisor", "news_agent",
           "regenerate", "rules_planner", "verifier", "writer"]  # fmt: skip

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
        store.supervisor_step(
            state["run_id"],
            outputs={"workers": plan.workers, "iteration": iterations + 1, "stop": "budget_abort" if over else ""},
            latency_ms=(time.perf_counter() - started) * 1000,
            tokens=plan.tokens,
            cost_usd=plan.cost_usd,
            iterations=iterations + 1,
            run_tokens=tokens,
            run_cost_usd=cost,
        )
        update: dict[str, Any] = {"iterations": 1, "tokens": plan.tokens, "cost_usd": plan.cost_usd}
        if over:
            return {**update, "stop": "budget_abort", "next_workers": []}
        # Only known workers; the attempt is counted here so a retry is visible in the state.
        workers = [w for w in plan.workers if w in WORKERS]
        return {**update, "stop": "", "next_workers": workers, "attempts": {w: 1 for w in workers}}

    return supervisor


# --- writer, verifier, regeneration ------------------------------------------------------------
def _partial(state: BriefState) -> bool:
    scoped = [e for e in state.get("errors") or [] if not e.get("context")]
    return bool(scoped) or any(state.get("worker_status", {}).get(w) != "done" for w in WORKERS)


def _draft(state: BriefState, claims: list[Claim]) -> tuple[BriefDraft, dict[str, Any], int, float]:
    """The deterministic draft, then the LLM's prose over it when a model is configured (kept only
    when it keeps the contract)."""
    from django.conf import settings

    from briefs.agent import engine
    from briefs.agent.llm_writer import write_with_llm
    from core.llm import get_llm

    sentiment = state.get("sentiment") or {}
    brief_date = dt.date.fromisoformat(state["brief_date"]) if state.get("brief_date") else None
    dateline = engine.make_dateline(claims, sentiment, brief_date, settings.BRIEF_STALE_AFTER_TRADING_DAYS)
    scope = list(state["tickers"])
    base = engine.write_deterministic(
        tickers=scope,
        claims=claims,
        prices=state.get("prices") or {},
        sentiment=sentiment,
        partial=_partial(state),
        benchmark=state.get("benchmark") or "",
        dateline=dateline,
        failures={e["ticker"]: e["error"] for e in state.get("errors") or [] if e.get("source") == "market"},
    )
    llm = get_llm("writer")
    if llm is None:
        return base, {"engine": "deterministic"}, 0, 0.0
    written = write_with_llm(llm, base=base, claims=claims, sentiment=sentiment, scope=scope)
    outputs: dict[str, Any] = {"engine": llm.name, "model": written.model}
    if written.draft is None:
        outputs["fallback"] = f"deterministic engine: {written.error}"
    return written.draft or base, outputs, written.tokens, written.cost_usd


def writer(state: BriefState) -> dict[str, Any]:
    """Mint the claim table from tool outputs, then write figure-free prose citing it. No figure
    for any of the watchlist's tickers: nothing to brief — the run ends "no data"."""
    started = time.perf_counter()
    scope = list(state["tickers"])
    claims = mint_claims(state.get("prices") or {}, [*scope, *context_tickers(state)])
    with _store().StepLog(state["run_id"]) as log:
        if not any(c.ticker in scope for c in claims):
            log.step("writer", outputs={"claims": 0, "outcome": "no data"})
            return {"claims": [], "outcome": "no_data"}
        draft, outputs, tokens, cost = _draft(state, claims)
        log.step(
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


def verifier(state: BriefState) -> dict[str, Any]:
    """Deterministic: recompute every claim from the stored bars, check references, scope, wording
    and quotes."""
    started = time.perf_counter()
    result = verify_state(state, BriefDraft.model_validate(state["draft"]))
    _store().step(
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
    bad = sorted({c["ticker"] for c in verification.get("checks", []) if not c["verified"]})
    bad = bad or [*state["tickers"], *context_tickers(state)]
    _store().step(state["run_id"], "regenerate", outputs={"refetch": bad})
    return {
        "regenerations": state.get("regenerations", 0) + 1,
        "refetch": bad,
        "prices": {t: None for t in bad},
        "worker_status": {"data_agent": "pending"},
    }
