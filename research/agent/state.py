"""The graph state of one chat turn. Channels written by parallel tool nodes carry reducers."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict


class ChatState(TypedDict, total=False):
    turn_id: int
    user_id: int
    thread_id: str
    question: str
    resolved: str  # the question after coreference resolution
    memory: list[dict[str, Any]]  # the last turns (sliding window): question, resolved, answer, figures
    plan: dict[str, dict[str, Any]]  # next superstep: tool node -> its arguments
    plan_path: str  # which fast-path rule planned the turn, "llm" or "fallback"
    # Written by tool nodes that may run in the same superstep: merged by reducers.
    results: Annotated[list[dict[str, Any]], operator.add]
    tool_history: Annotated[list[str], operator.add]
    events: Annotated[list[dict[str, Any]], operator.add]  # guardrail events
    tokens: Annotated[int, operator.add]
    cost: Annotated[float, operator.add]
    llm_calls: Annotated[int, operator.add]
    started: float  # time.time() at the start of the turn
    attempts: int  # answer (re)generations
    answer: str  # template: figures as [[cN]] references into ``claims``
    claims: list[dict[str, Any]]
    citations: list[dict[str, Any]]
    figures: list[dict[str, Any]]  # the figures this turn established, for follow-ups
    subjects: list[str]  # tickers this turn was about, for "how does it compare with INFY"
    verification: dict[str, Any]
    confidence: float
    escalation_reason: str
    answered_by: str
    status: str
    cancelled: bool
