"""``review_probe``: the smallest real graph that pauses for a review and finishes on the decision.

It exercises the whole human-in-the-loop path (interrupt on the Postgres checkpointer → review
task → decision → Celery resume in another process → completion) in tests, in ``manage.py
seed_reviews`` demo data and in the benchmark, without an LLM. Real agents (briefs, research)
follow the same shape: a node calls ``interrupt(payload)`` and reads the decision it returns.
"""

from __future__ import annotations

import operator
import os
import uuid
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

GRAPH_NAME = "review_probe"


class ProbeState(TypedDict, total=False):
    title: str
    decision: dict[str, Any] | None
    result: str
    finished_pid: int  # which process completed the run (tests prove resume crossed processes)
    # Appended by each node, so a test can see a node ran exactly once per step.
    log: Annotated[list[str], operator.add]


def prepare(state: ProbeState) -> dict[str, Any]:
    return {"log": ["prepared"]}


def await_review(state: ProbeState) -> dict[str, Any]:
    # Everything before interrupt() runs again on resume; here there is nothing before it.
    decision = interrupt({"title": state.get("title", "")})
    return {"decision": decision, "log": [f"resumed:{decision.get('outcome')}"]}


def finish(state: ProbeState) -> dict[str, Any]:
    outcome = (state.get("decision") or {}).get("outcome")
    result = "published" if outcome in {"approve", "edit"} else "withdrawn"
    return {"result": result, "finished_pid": os.getpid(), "log": ["finished"]}


def build_graph(*, checkpointer: Any = None) -> Any:
    builder = StateGraph(ProbeState)
    builder.add_node("prepare", prepare)
    builder.add_node("await_review", await_review)
    builder.add_node("finish", finish)
    builder.add_edge(START, "prepare")
    builder.add_edge("prepare", "await_review")
    builder.add_edge("await_review", "finish")
    builder.add_edge("finish", END)
    return builder.compile(checkpointer=checkpointer)


def probe_run_start(*, title: str, thread_id: str | None = None) -> str:
    """Run the probe graph until it pauses; returns its thread id."""
    from core.checkpoint import checkpointer

    thread_id = thread_id or f"probe-{uuid.uuid4()}"
    with checkpointer() as saver:
        result = build_graph(checkpointer=saver).invoke({"title": title}, {"configurable": {"thread_id": thread_id}})
    if "__interrupt__" not in result:
        raise RuntimeError("the probe graph finished without pausing")
    return thread_id


def probe_run_state(thread_id: str) -> dict[str, Any]:
    """The probe run's current values and whether it still waits (for tests and the demo)."""
    from core.checkpoint import checkpointer

    with checkpointer() as saver:
        snapshot = build_graph(checkpointer=saver).get_state({"configurable": {"thread_id": thread_id}})
    return {"values": dict(snapshot.values), "next": list(snapshot.next), "waiting": bool(snapshot.interrupts)}
