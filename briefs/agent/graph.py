"""The morning-brief graph (wiring only; nodes in ``nodes.py``; no database at import).

supervisor ─┬─ data_agent ─┐ (same superstep; shared channels with reducers)
            └─ news_agent ─┴→ supervisor → … → writer → verifier
verifier ─ ok → gate · mismatch → regenerate (once) → supervisor → … → verifier → gate (escalated)
gate ─ interrupt (brief_approval review) → deliver | gate (refused edit) | finish
supervisor ─ budget / iteration cap → finish
writer ─ no figure for any ticker → finish ("no data": never reaches a reviewer)
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from briefs.agent import nodes
from briefs.agent.state import GRAPH_NAME as GRAPH_NAME  # re-exported beside build_graph
from briefs.agent.state import BriefState
from core.checkpoint import db_node


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


def route_writer(state: BriefState) -> Literal["verifier", "finish"]:
    return "finish" if state.get("outcome") == "no_data" else "verifier"


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


_default: Any = None  # the graph with the rules planner, compiled once per process


def build_graph(*, checkpointer: Any = None, planner: nodes.Planner | None = None) -> Any:
    """``planner`` decides which workers the supervisor runs (default: the rules planner).

    Compiling costs tens of milliseconds, so the default graph is compiled once per process and
    each run gets a copy bound to its own checkpointer."""
    global _default
    if planner is not None:
        return _compile(checkpointer, planner)
    if _default is None:
        _default = _compile(None, nodes.rules_planner)
    return _default.copy({"checkpointer": checkpointer})


def _compile(checkpointer: Any, planner: nodes.Planner) -> Any:
    builder = StateGraph(BriefState)
    # A closure, so its parameter has no name LangGraph's node protocols can match: typed as Any.
    supervisor: Any = nodes.make_supervisor(planner)
    builder.add_node("supervisor", db_node(supervisor))
    builder.add_node("data_agent", db_node(nodes.data_agent))
    builder.add_node("news_agent", db_node(nodes.news_agent))
    builder.add_node("writer", db_node(nodes.writer))
    builder.add_node("verifier", db_node(nodes.verifier))
    builder.add_node("regenerate", db_node(nodes.regenerate))
    builder.add_node("gate", db_node(nodes.gate))
    builder.add_node("deliver", db_node(nodes.deliver))
    builder.add_node("finish", db_node(nodes.finish))
    builder.add_edge(START, "supervisor")
    builder.add_conditional_edges("supervisor", route_supervisor, ["data_agent", "news_agent", "writer", "finish"])
    builder.add_edge("data_agent", "supervisor")
    builder.add_edge("news_agent", "supervisor")
    builder.add_conditional_edges("writer", route_writer, ["verifier", "finish"])
    builder.add_conditional_edges("verifier", route_verifier, ["gate", "regenerate"])
    builder.add_edge("regenerate", "supervisor")
    builder.add_conditional_edges("gate", route_gate, ["deliver", "gate", "finish"])
    builder.add_edge("deliver", END)
    builder.add_edge("finish", END)
    return builder.compile(checkpointer=checkpointer)
