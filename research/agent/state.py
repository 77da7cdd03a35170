"""The graph state of a conversation. The checkpointer thread is the conversation, so the state
holds two kinds of channel:

* conversation channels (``user_id``, ``thread_id``, ``memory``) carry over from turn to turn —
  ``memory`` is the sliding window of finished turns, appended by ``deliver``;
* per-turn channels (everything else) start empty on every turn: :func:`turn_input` writes a
  fresh value into each. Channels that parallel tool nodes write carry an ``operator.add``
  reducer, and a plain new value would be *added* to the last turn's, so their reset is a
  LangGraph ``Overwrite``, which bypasses the reducer.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from langgraph.types import Overwrite

# The graph's one name: the review tasks' ``graph_name`` (what a reviewer's decision resumes,
# registered in ``research.apps``) and the run name and tag LangSmith shows. It lives here, not in
# graph.py, because the store needs it and graph.py imports the nodes that import the store.
GRAPH_NAME = "research_chat"

if TYPE_CHECKING:
    from core.llm import LLMResponse


def remember(window: list[dict[str, Any]], finished: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The memory reducer: append the finished turns and keep the last ``AGENT_MEMORY_TURNS``."""
    from django.conf import settings

    size = int(settings.AGENT_MEMORY_TURNS)
    merged = [*window, *finished]
    return merged[-size:] if size > 0 else []  # [-0:] would be everything


class ChatState(TypedDict, total=False):
    # --- conversation channels: kept across the turns of the thread ---
    user_id: int
    thread_id: str
    # The last turns (sliding window): question, resolved, answer, figures, subjects, turn_id.
    memory: Annotated[list[dict[str, Any]], remember]
    # --- per-turn channels: reset by turn_input() ---
    turn_id: int
    question: str
    resolved: str  # the question after coreference resolution
    # What the resolution pinned: {"document_ids"} after a series move, {"no_document"} when the
    # series has none there, {"operands"} for a calculation on earlier figures, {"refuse"} when
    # the earlier turns did not establish them.
    scope: dict[str, Any]
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
    confidence: float | None
    escalation_reason: str
    answered_by: str
    status: str
    cancelled: bool


def llm_usage(reply: LLMResponse) -> dict[str, Any]:
    """What one model call adds to the turn's added-up channels: tokens, cost and the call count."""
    return {"tokens": reply.input_tokens + reply.output_tokens, "cost": reply.cost_usd, "llm_calls": 1}


CONVERSATION_CHANNELS = frozenset({"user_id", "thread_id", "memory"})


def turn_input(*, turn_id: int, user_id: int, thread_id: str, question: str) -> dict[str, Any]:
    """The input that starts one turn on the conversation's thread: every per-turn channel gets a
    fresh value (so nothing of the last turn leaks in), ``memory`` is left as the thread has it."""
    return {
        "turn_id": turn_id,
        "user_id": user_id,
        "thread_id": thread_id,
        "question": question,
        "resolved": "",
        "scope": {},
        "plan": {},
        "plan_path": "",
        "results": Overwrite([]),
        "tool_history": Overwrite([]),
        "events": Overwrite([]),
        "tokens": Overwrite(0),
        "cost": Overwrite(0.0),
        "llm_calls": Overwrite(0),
        "started": 0.0,  # memory_resolver stamps the real start
        "attempts": 0,
        "answer": "",
        "claims": [],
        "citations": [],
        "figures": [],
        "subjects": [],
        "verification": {},
        "confidence": None,
        "escalation_reason": "",
        "answered_by": "agent",
        "status": "",
        "cancelled": False,
    }
