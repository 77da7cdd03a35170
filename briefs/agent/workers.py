"""The brief graph's parallel workers: the data agent and the news agent.

Both cover the run's tickers and its benchmark — the benchmark only as context for the lead (its
figures are claims like any other, its news is the market's), so its failures never make a brief
partial. Each worker buffers its steps and writes them in one insert when it ends.
"""

from __future__ import annotations

import time
from typing import Any

from briefs.agent.state import BriefState
from portfolios.recompute import METRIC_UNITS


def _store() -> Any:
    from briefs.agent import store

    return store


def context_tickers(state: BriefState) -> list[str]:
    """The benchmark, when it is not one of the watchlist's tickers."""
    benchmark = state.get("benchmark") or ""
    return [benchmark] if benchmark and benchmark not in state["tickers"] else []


def _error(ticker: str, source: str, code: str, message: str, *, context: bool = False) -> dict[str, Any]:
    error = {"ticker": ticker, "source": source, "error": code, "message": message}
    return error | ({"context": True} if context else {})


def _metrics_for(log: Any, user: Any, tickers: list[str], context: set[str]) -> tuple[dict[str, Any], list[Any]]:
    prices: dict[str, Any] = {}
    errors: list[dict[str, Any]] = []
    for ticker in tickers:
        metrics = log.tool_step("data_agent", "compute_metrics", {"ticker": ticker}, user)
        if not metrics.ok:
            assert metrics.error is not None
            errors.append(
                _error(ticker, "market", metrics.error.error, metrics.error.message, context=ticker in context)
            )
            continue
        out = metrics.as_dict()
        # What the writer mints claims from, not the whole output (the step log keeps that): the
        # checkpointed state stays small.
        kept = {k: out.get(k) for k in (*METRIC_UNITS, "symbol", "name", "currency", "as_of", "source")}
        prices[ticker] = {"metrics": kept, "metrics_call_id": metrics.call_id, "name": out.get("name") or ""}
    return prices, errors


def data_agent(state: BriefState) -> dict[str, Any]:
    """Metrics for the watchlist's tickers — and only those — plus the benchmark; each instrument's
    currency and kind (an index is priced in points). The verifier reads the stored bars itself,
    so no price series travels in the graph's state."""
    store = _store()
    scope = list(state["tickers"])
    refetch = state.get("refetch") or []
    wanted = [t for t in (refetch or scope) if t in scope]
    context = context_tickers(state)
    wanted += [t for t in context if not refetch or t in refetch]
    with store.StepLog(state["run_id"]) as log:
        try:
            user = store.acting_user(state["user_id"])
            prices, errors = _metrics_for(log, user, wanted, set(context))
            described = store.instruments(user, list(prices))
            for ticker, entry in prices.items():
                info = described.get(ticker)
                entry["kind"] = info.kind if info is not None else "equity"
                entry["sector"] = info.sector if info is not None else ""
                entry["name"] = entry["name"] or (info.name if info is not None else "")
            return {"prices": prices, "errors": errors, "worker_status": {"data_agent": "done"}}
        except Exception as exc:  # a worker crash is retried once by the supervisor
            log.step("data_agent", error=repr(exc)[:400])
            return {
                "worker_status": {"data_agent": "failed"},
                "errors": [_error("", "market", "worker_failed", repr(exc)[:300])],
            }


def _news_entry(ticker: str, outcome: Any) -> tuple[dict[str, Any], dict[str, Any] | None]:
    out = outcome.as_dict()
    entry = {
        "items": out["items"],
        "label": out["sentiment"],
        "score": out["sentiment_score"],
        "risk_events": out["risk_events"],
        "risk_evidence": out.get("risk_evidence", []),
        "as_of": out.get("as_of"),
        "source": out.get("source", ""),
        "call_id": outcome.call_id,
    }
    # An empty live feed is a gap in the data; a capture that does not mention a name is not.
    captured = str(out.get("source", "rss")) != "rss"
    empty = (
        None
        if out["items"] or captured
        else {"error": "no_news", "message": f"The news feeds for {ticker} had no items."}
    )
    return entry, empty


def news_agent(state: BriefState) -> dict[str, Any]:
    """Headlines, sentiment and risk events per ticker (untrusted text, kept as data); for the
    benchmark, the market's news."""
    store = _store()
    context = context_tickers(state)
    with store.StepLog(state["run_id"]) as log:
        try:
            user = store.acting_user(state["user_id"])
            sentiment: dict[str, Any] = {}
            errors: list[dict[str, Any]] = []
            for ticker in [*state["tickers"], *context]:
                outcome = log.tool_step("news_agent", "fetch_rss_news", {"ticker": ticker, "limit": 8}, user)
                if not outcome.ok:
                    assert outcome.error is not None
                    errors.append(
                        _error(ticker, "news", outcome.error.error, outcome.error.message, context=ticker in context)
                    )
                    continue
                sentiment[ticker], empty = _news_entry(ticker, outcome)
                if empty is not None and ticker not in context:
                    errors.append(_error(ticker, "news", empty["error"], empty["message"]))
            update: dict[str, Any] = {"sentiment": sentiment, "errors": errors, "worker_status": {"news_agent": "done"}}
            # The model reads the names' headlines; the market's news (the benchmark's) keeps the rules.
            return update | _news_tone_by_llm(log, sentiment, set(context))
        except Exception as exc:
            log.step("news_agent", error=repr(exc)[:400])
            return {
                "worker_status": {"news_agent": "failed"},
                "errors": [_error("", "news", "worker_failed", repr(exc)[:300])],
            }


def _news_tone_by_llm(log: Any, sentiment: dict[str, Any], context: set[str]) -> dict[str, Any]:
    """When a model is configured, let it read the tone and risk events of the headlines (the
    rules' result stays where its reply breaks the contract); record the call as a step."""
    from briefs.agent.llm_news import classify_with_llm
    from core.llm import get_llm

    llm = get_llm("planner")  # a classification: the small model
    names = {t: entry for t, entry in sentiment.items() if t not in context}
    if llm is None or not names:
        return {}
    started = time.perf_counter()
    read = classify_with_llm(llm, names)
    outputs: dict[str, Any] = {"engine": llm.name, "model": read.model, "tickers": sorted(read.sentiment)}
    if read.error:
        outputs["fallback"] = f"rules: {read.error}"
    if read.kept_rules:
        outputs["kept_rules"] = read.kept_rules
    log.step(
        "news_agent",
        outputs=outputs,
        latency_ms=(time.perf_counter() - started) * 1000,
        tokens=read.tokens,
        cost_usd=read.cost_usd,
    )
    for ticker, entry in read.sentiment.items():
        sentiment[ticker] = entry
    return {"sentiment": sentiment, "tokens": read.tokens, "cost_usd": read.cost_usd}
