"""The guardrails a turn passes after each tool superstep (limits in settings).

Pure decisions on the state: no database. ``guardrail_check`` (in nodes.py) adds the one check
that needs it, the analyst's cancel, and records the step.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings

from research.agent.state import ChatState

Event = dict[str, Any]


def loop_detected(history: list[str]) -> str | None:
    """The repeating tail of the tool history (A → A, or A → B → A), or ``None``."""
    if len(history) >= 2 and history[-1] == history[-2]:
        return f"{history[-1]} → {history[-1]}"
    if len(history) >= 3 and history[-1] == history[-3] and history[-1] != history[-2]:
        return f"{history[-3]} → {history[-2]} → {history[-1]}"
    return None


def limit_breached(state: ChatState) -> Event | None:
    """The first limit the turn has reached (tool depth, tokens, latency, a loop), or ``None``."""
    history = state.get("tool_history", [])
    if len(history) >= settings.AGENT_MAX_TOOL_DEPTH:
        return {"event": "depth_limit", "detail": f"{len(history)} tool calls (limit {settings.AGENT_MAX_TOOL_DEPTH})"}
    if state.get("tokens", 0) > settings.AGENT_TOKEN_BUDGET:
        return {
            "event": "token_budget",
            "detail": f"{state.get('tokens', 0)} tokens (budget {settings.AGENT_TOKEN_BUDGET})",
        }
    if time.time() - state.get("started", time.time()) > settings.AGENT_LATENCY_CAP_SECONDS:
        return {"event": "latency_cap", "detail": f"over {settings.AGENT_LATENCY_CAP_SECONDS:g} s"}
    if (loop := loop_detected(history)) is not None:
        return {"event": "loop_detected", "detail": loop}
    return None


def confidence_route(state: ChatState) -> tuple[str, list[Event]]:
    """Low retrieval confidence goes back to the planner (which tries web search); still low after
    web search goes to a human; a fast-path plan is complete after its one superstep."""
    results = state.get("results", [])
    rag = [r for r in results if r["node"] == "rag_search"]
    web = [r for r in results if r["node"] == "web_search"]
    low = rag and max(r.get("confidence", 0.0) for r in rag) < settings.AGENT_MIN_CONFIDENCE
    if low and web:
        best = max([r.get("confidence", 0.0) for r in rag + web])
        if best < settings.AGENT_MIN_CONFIDENCE:
            return "human_review", [{"event": "low_confidence", "detail": f"confidence {best:.2f} after web search"}]
        return "planner", []
    if low:
        return "planner", [{"event": "low_confidence", "detail": "retrieval below threshold: trying web search"}]
    if state.get("plan_path") != "llm":
        return "final_answer", []
    return "planner", []


def guardrail_route(state: ChatState) -> tuple[str, list[Event]]:
    """Where the run goes after a superstep (``planner``, ``final_answer`` or ``human_review``) and
    the guardrail events that decided it."""
    breached = limit_breached(state)
    if breached is not None:
        return "final_answer", [breached]
    return confidence_route(state)
