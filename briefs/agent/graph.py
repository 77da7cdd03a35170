"""The morning-brief graph (wiring only; nodes in ``nodes.py``; no database at import).

supervisor ─┬─ data_agent ─┐ (same superstep; shared channels with reducers)
            └─ news_agent ─┴→ supervisor → … → writer → verifier
verifier ─ ok → gate · mismatch → regenerate (once) → supervisor → … → verifier → gate (escalated)
gate ─ interrupt (brief_approval review) → deliver | gate (refused edit) | finish
supervisor ─ budget / iteration cap → finish
"""

from __future__ import annotations

import threading
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from briefs.agent import nodes
from briefs.agent.state import BriefState

GRAPH_NAME = "morning_brief"


def route_supervisor(state: BriefState) -> list[Literal["data_agent", "news_agent", "writer", "finish"]]:
    if state.get("stop"):
        return ["finish"]
    workers: list[Literal["data_agent", "news_agent", "writer", "finish"]] = []
    for worker in state.get("next_workers") or []:
        if worker == "data_agent":
            workers.append("data_agent")
        elif worker == "news_agent":
            workers.append("news_agent")
    return workers or ["writer"]


def route_verifier(state: BriefState) -> Literal["gate", "regenerate"]:
    if (state.get("verification") or {}).get("ok"):
        return "gate"
    return "regenerate" if state.get("regenerations", 0) < 1 else "gate"  # still wrong → human review


def route_gate(state: BriefState) -> Literal["deliver", "gate", "finish"]:
    outcome = state.get("outcome")
    if outcome == "approved":
        return "deliver"
    if outcome == "edit_invalid":
        return "gate"
    return "finish"


def _thread_safe(node: Any) -> Any:
    """LangGraph runs parallel nodes on pool threads; each gets its own Django connection, which
    must be closed when the node ends or it outlives the run."""

    def run(state: BriefState) -> Any:
        try:
            return node(state)
        finally:
            if threading.current_thread() is not threading.main_thread():
                from django.db import connections

                connections.close_all()

    run.__name__ = getattr(node, "__name__", "node")
    return run


def build_graph(*, checkpointer: Any = None, planner: nodes.Planner | None = None) -> Any:
    """``planner`` decides which workers the supervisor runs (default: the rules planner)."""
    builder = StateGraph(BriefState)
    builder.add_node("supervisor", _thread_safe(nodes.make_supervisor(planner or nodes.rules_planner)))
    builder.add_node("data_agent", _thread_safe(nodes.data_agent))
    builder.add_node("news_agent", _thread_safe(nodes.news_agent))
    builder.add_node("writer", _thread_safe(nodes.writer))
    builder.add_node("verifier", _thread_safe(nodes.verifier))
    builder.add_node("regenerate", _thread_safe(nodes.regenerate))
    builder.add_node("gate", _thread_safe(nodes.gate))
    builder.add_node("deliver", _thread_safe(nodes.deliver))
    builder.add_node("finish", _thread_safe(nodes.finish))
    builder.add_edge(START, "supervisor")
    builder.add_conditional_edges("supervisor", route_supervisor, ["data_agent", "news_agent", "writer", "finish"])
    builder.add_edge("data_agent", "supervisor")
    builder.add_edge("news_agent", "supervisor")
    builder.add_edge("writer", "verifier")
    builder.add_conditional_edges("verifier", route_verifier, ["gate", "regenerate"])
    builder.add_edge("regenerate", "supervisor")
    builder.add_conditional_edges("gate", route_gate, ["deliver", "gate", "finish"])
    builder.add_edge("deliver", END)
    builder.add_edge("finish", END)
    return builder.compile(checkpointer=checkpointer)
