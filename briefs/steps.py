"""A run's steps as a person reads them: node, tool, inputs and outcome in words, and the time.

The stored step keeps everything (JSON inputs and outputs, for audit and the API); the run page
shows these rows instead of raw dictionaries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.formatting import duration_ms, format_date, format_metric, price_unit

NODE_LABELS = {
    "supervisor": "Supervisor",
    "data_agent": "Data agent",
    "news_agent": "News agent",
    "writer": "Writer",
    "verifier": "Verifier",
    "regenerate": "Regenerate",
    "gate": "Review gate",
    "deliver": "Delivery",
    "finish": "Finish",
}
TOOL_LABELS = {
    "compute_metrics": "Metrics",
    "fetch_rss_news": "News",
    "get_price_history": "Price history",
    "get_fundamentals": "Fundamentals",
}
WORKER_LABELS = {"data_agent": "the data agent", "news_agent": "the news agent"}


def humanise_code(code: str) -> str:
    """``unknown_ticker`` → ``unknown ticker`` (error codes are for machines)."""
    return code.replace("_", " ").strip()


def humanise_error(error: str) -> str:
    """``unknown_ticker: No instrument …`` → ``Unknown ticker — No instrument …``."""
    code, sep, message = error.partition(": ")
    if sep and code.replace("_", "").isalpha() and code.islower():
        return f"{humanise_code(code).capitalize()} — {message}"
    return error


@dataclass(frozen=True)
class StepRow:
    number: int
    node: str
    tool: str
    inputs: str
    outcome: str
    ok: bool
    time: str


def _inputs(inputs: dict[str, Any]) -> str:
    parts = []
    if inputs.get("ticker"):
        parts.append(str(inputs["ticker"]))
    if inputs.get("limit"):
        parts.append(f"up to {inputs['limit']} headlines")
    return ", ".join(parts) or "—"


def _metrics(out: dict[str, Any], kinds: dict[str, str]) -> str:
    unit = price_unit(str(out.get("currency", "")), kinds.get(str(out.get("symbol", "")), ""))
    close = format_metric("last_close", out.get("last_close"), unit=unit)
    change = format_metric("change_1d_pct", out.get("change_1d_pct"))
    name = out.get("name") or out.get("symbol", "")
    return f"{name}: closed at {close} ({change} on the day), data as of {format_date(out.get('as_of'))}"


def _news(out: dict[str, Any]) -> str:
    headlines = out.get("headlines") or []
    source = out.get("source") or "RSS"
    when = f", {format_date(out['as_of'])}" if out.get("as_of") else ""
    if not headlines:
        return f"No headline names it ({source}{when})"
    text = f"{len(headlines)} headline{'s' if len(headlines) != 1 else ''}, tone {out.get('sentiment', 'unknown')}"
    if out.get("risk_events"):
        text += "; risk events: " + ", ".join(out["risk_events"])
    return f"{text} ({source}{when})"


def _supervisor(out: dict[str, Any]) -> str:
    if out.get("stop") == "iteration_cap":
        return "Stopped: the iteration cap was reached"
    if out.get("stop") == "budget_abort":
        return "Stopped: over budget"
    workers = [WORKER_LABELS.get(w, w) for w in out.get("workers", [])]
    if not workers:
        return f"Nothing left to fetch: on to the writer (iteration {out.get('iteration', '?')})"
    return f"Runs {' and '.join(workers)} (iteration {out.get('iteration', '?')})"


def _writer(out: dict[str, Any]) -> str:
    if out.get("outcome") == "no data":
        return "No figure for any ticker: the run ends with no data"
    engine = (
        "deterministic engine"
        if out.get("engine") == "deterministic"
        else f"{out.get('engine')} {out.get('model', '')}"
    )
    text = f"Wrote {out.get('sections', 0)} sections from {out.get('claims', 0)} figures ({engine.strip()})"
    if out.get("fallback"):
        text += f"; the model's reply was refused, so the {humanise_error(str(out['fallback']))}"
    return text


def _verifier(out: dict[str, Any]) -> str:
    total, bad = out.get("claims", 0), len(out.get("mismatched", []))
    text = (
        f"All {total} figures recomputed from the stored bars and verified"
        if not bad
        else (f"{bad} of {total} figures did not match their recomputation")
    )
    if out.get("problems"):
        text += "; problems: " + "; ".join(out["problems"][:3])
    return text


def _outcome(node: str, tool: str, out: dict[str, Any], kinds: dict[str, str]) -> str:
    if tool == "compute_metrics":
        return _metrics(out, kinds)
    if tool == "fetch_rss_news":
        return _news(out)
    if node == "supervisor":
        return _supervisor(out)
    if node == "writer":
        return _writer(out)
    if node == "verifier":
        return _verifier(out)
    if node == "regenerate":
        return "Fetching again: " + ", ".join(out.get("refetch", []))
    if node == "gate":
        who = out.get("reviewer") or "the reviewer"
        return f"Decision: {humanise_code(str(out.get('decision') or 'none'))} by {who} (review #{out.get('task_id')})"
    if node == "news_agent" and out.get("engine"):
        text = f"Tone read by {out['engine']} {out.get('model', '')}".strip()
        return text + (f"; {humanise_error(str(out['fallback']))}" if out.get("fallback") else "")
    return "Done"


def step_rows(steps: list[Any], kinds: dict[str, str] | None = None) -> list[StepRow]:
    """One readable row per stored step; ``kinds`` (symbol → instrument kind) prices indices in points."""
    rows = []
    for number, s in enumerate(steps, start=1):
        outcome = (
            f"Failed: {humanise_error(s.error)}" if s.error else _outcome(s.node, s.tool, s.outputs or {}, kinds or {})
        )
        rows.append(
            StepRow(
                number=number,
                node=NODE_LABELS.get(s.node, humanise_code(s.node).capitalize()),
                tool=TOOL_LABELS.get(s.tool, humanise_code(s.tool).capitalize()) if s.tool else "—",
                inputs=_inputs(s.inputs or {}),
                outcome=outcome,
                ok=not s.error,
                time=duration_ms(s.latency_ms) if s.latency_ms else "—",
            )
        )
    return rows


def error_rows(errors: list[dict[str, Any]]) -> list[dict[str, str]]:
    """A run's per-ticker errors in words."""
    sources = {"market": "market data", "news": "news"}
    return [
        {
            "ticker": e.get("ticker") or "(a worker)",
            "source": sources.get(e.get("source", ""), e.get("source", "")),
            "what": humanise_code(str(e.get("error", ""))).capitalize(),
            "message": str(e.get("message", "")),
            "context": "benchmark" if e.get("context") else "",
        }
        for e in errors
    ]
