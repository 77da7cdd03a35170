"""Wiring only (no database at import): memory_resolver → planner → tools (parallel superstep)
→ guardrail_check → planner | final_answer | human_review → deliver.

Thread = conversation: every turn of a conversation invokes this graph on the same checkpointer
thread (``Conversation.thread_id``, ``chat-<conversation id>``). Why: the sliding memory window is
then graph state — appended by ``deliver``, read by ``memory_resolver`` — saved and restored by the
Postgres checkpointer like everything else, so a conversation continues after a restart or in
another worker, and the thread's checkpoint history is the conversation's. Each turn's input resets
the per-turn channels (``state.turn_input``). A turn paused at ``human_review`` holds the thread,
so the conversation accepts no new message until the reviewer's decision resumes it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from core.checkpoint import db_node
from research.agent import nodes, tool_nodes
from research.agent.dialogue.planner import TOOL_NODES, ToolNode
from research.agent.state import GRAPH_NAME, ChatState

__all__ = ["GRAPH_NAME", "build_graph"]

_TOOL_NODE: dict[str, ToolNode] = {name: name for name in TOOL_NODES}


def route_plan(state: ChatState) -> list[ToolNode | Literal["final_answer"]]:
    """The tool nodes of the plan (one superstep, run in parallel) or the final answer."""
    plan = state.get("plan") or {}
    tools: list[ToolNode | Literal["final_answer"]] = [_TOOL_NODE[n] for n in plan if n in _TOOL_NODE]
    return tools or ["final_answer"]


def route_guardrail(state: ChatState) -> Literal["planner", "final_answer", "human_review"]:
    """Where ``guardrail_check`` decided the run goes (its ``status``)."""
    status = state.get("status")
    if status == "human_review":
        return "human_review"
    if status == "final_answer":
        return "final_answer"
    return "planner"


def route_answer(state: ChatState) -> Literal["human_review", "deliver"]:
    return "human_review" if state.get("status") == "human_review" else "deliver"


def build_graph(*, checkpointer: Any = None) -> Any:
    builder = StateGraph(ChatState)

    def add(name: str, node: Any) -> None:
        # Every node touches the database, and parallel tool nodes run on pool threads.
        builder.add_node(name, db_node(node))

    add("memory_resolver", nodes.memory_resolver)
    add("planner", nodes.planner)
    for name in TOOL_NODES:
        add(name, getattr(tool_nodes, name))
    add("guardrail_check", nodes.guardrail_check)
    add("final_answer", nodes.final_answer)
    add("human_review", nodes.human_review)
    add("deliver", nodes.deliver)
    builder.add_edge(START, "memory_resolver")
    builder.add_edge("memory_resolver", "planner")
    builder.add_conditional_edges("planner", route_plan, [*TOOL_NODES, "final_answer"])
    for name in TOOL_NODES:
        builder.add_edge(name, "guardrail_check")
    builder.add_conditional_edges("guardrail_check", route_guardrail, ["planner", "final_answer", "human_review"])
    builder.add_conditional_edges("final_answer", route_answer, ["human_review", "deliver"])
    builder.add_edge("human_review", "deliver")
    builder.add_edge("deliver", END)
    return builder.compile(checkpointer=checkpointer)


@functools.cache
def _drawn() -> tuple[str, frozenset[str]]:
    graph = build_graph().get_graph()
    return str(graph.draw_mermaid()), frozenset(graph.nodes)


VISITED_STYLE = "fill:#ffe08a,stroke:#b26b00,stroke-width:2px"


def mermaid(visited: Iterable[str] = ()) -> str:
    """The diagram drawn from the compiled graph, so it cannot drift from the code. ``visited``
    node names (a turn's path) are highlighted with a Mermaid class; names that are not nodes of
    the graph are ignored, so stored text never reaches the diagram source."""
    text, nodes = _drawn()
    marked = [n for n in dict.fromkeys(visited) if n in nodes]
    if not marked:
        return text
    return f"{text.rstrip()}\n\tclassDef visited {VISITED_STYLE}\n\tclass {','.join(marked)} visited\n"
