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
from typing import Any

from langgraph.graph import END, START, StateGraph

from research.agent import nodes
from research.agent.planner import TOOL_NODES
from research.agent.state import ChatState

GRAPH_NAME = nodes.GRAPH_NAME


def build_graph(*, checkpointer: Any = None) -> Any:
    builder = StateGraph(ChatState)
    builder.add_node("memory_resolver", nodes.memory_resolver)
    builder.add_node("planner", nodes.planner)
    for name in TOOL_NODES:
        builder.add_node(name, getattr(nodes, name))
    builder.add_node("guardrail_check", nodes.guardrail_check)
    builder.add_node("final_answer", nodes.final_answer)
    builder.add_node("human_review", nodes.human_review)
    builder.add_node("deliver", nodes.deliver)
    builder.add_edge(START, "memory_resolver")
    builder.add_edge("memory_resolver", "planner")
    builder.add_conditional_edges("planner", nodes.route_plan, [*TOOL_NODES, "final_answer"])
    for name in TOOL_NODES:
        builder.add_edge(name, "guardrail_check")
    builder.add_conditional_edges("guardrail_check", nodes.route_guardrail, ["planner", "final_answer", "human_review"])
    builder.add_conditional_edges("final_answer", nodes.route_answer, ["human_review", "deliver"])
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
