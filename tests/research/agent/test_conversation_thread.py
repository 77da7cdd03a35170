"""Thread = conversation: every turn of a conversation runs on one checkpointer thread, the memory
window lives in the checkpointed state, per-turn channels start empty on every turn, and a
conversation from before the change continues from its Turn rows.

Expected figures are worked by hand: 2+2 = 4 and 10*3 = 30, so "the percentage change between
those two" is (30 − 4) / 4 × 100 = 650 %.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from research.agent.state import CONVERSATION_CHANNELS, ChatState, remember, turn_input
from research.chat.models import Conversation, Turn
from tests.research.agent.conftest import thread_state

PCT_4_TO_30 = 650.0


def checkpoint_threads(prefix: str) -> dict[str, int]:
    """Checkpoint count per thread id starting with ``prefix``, read from the checkpointer's table."""
    from psycopg import Connection
    from psycopg.rows import dict_row

    from core.checkpoint import checkpoint_conninfo

    with Connection.connect(row_factory=dict_row, **checkpoint_conninfo()) as conn, conn.cursor() as cur:
        cur.execute(
            "SELECT thread_id, count(*) AS n FROM checkpoints WHERE thread_id LIKE %s GROUP BY thread_id",
            [prefix + "%"],
        )
        return {row["thread_id"]: row["n"] for row in cur.fetchall()}


def resolver_step(turn: Turn) -> Any:
    return turn.steps.get(node="memory_resolver")


def calc_values(turn: Turn) -> list[float]:
    return [c["value"] for c in turn.claims if c["kind"] == "calc"]


# --- the state contract, on a tiny graph over the real ChatState ------------------------------
def test_turn_input_resets_every_per_turn_channel() -> None:
    fresh = turn_input(turn_id=1, user_id=1, thread_id="t", question="q")
    per_turn = set(ChatState.__annotations__) - CONVERSATION_CHANNELS
    assert per_turn <= set(fresh), f"channels a new turn would inherit: {per_turn - set(fresh)}"
    assert "memory" not in fresh  # the window carries over


@override_settings(AGENT_MEMORY_TURNS=2)
def test_remember_appends_and_keeps_the_last_window() -> None:
    assert remember([{"t": 1}, {"t": 2}], [{"t": 3}]) == [{"t": 2}, {"t": 3}]
    assert remember([], [{"t": 1}]) == [{"t": 1}]  # shorter than the window: kept whole
    with override_settings(AGENT_MEMORY_TURNS=5):
        assert remember([{"t": 1}], [{"t": 2}, {"t": 3}]) == [{"t": 1}, {"t": 2}, {"t": 3}]
    with override_settings(AGENT_MEMORY_TURNS=0):
        assert remember([{"t": 1}], [{"t": 2}]) == []


def _tiny_graph() -> Any:
    """Two nodes writing the same kinds of channel as the agent: a tool (added-up channels) and a
    deliver (the memory window)."""

    def tool(state: ChatState) -> dict[str, Any]:
        return {
            "results": [{"question": state["question"]}],
            "tool_history": ["tool"],
            "tokens": 7,
            "llm_calls": 1,
            "events": [{"event": state["question"]}],
        }

    def deliver(state: ChatState) -> dict[str, Any]:
        return {"memory": [{"turn_id": state["turn_id"]}], "answer": f"answer {state['question']}"}

    builder = StateGraph(ChatState)
    builder.add_node("tool", tool)
    builder.add_node("deliver", deliver)
    builder.add_edge(START, "tool")
    builder.add_edge("tool", "deliver")
    builder.add_edge("deliver", END)
    return builder.compile(checkpointer=InMemorySaver())


@override_settings(AGENT_MEMORY_TURNS=2)
def test_per_turn_channels_reset_and_memory_slides_on_one_thread() -> None:
    graph = _tiny_graph()
    config = {"configurable": {"thread_id": "conversation"}}
    for n in (1, 2, 3):
        final = graph.invoke(turn_input(turn_id=n, user_id=9, thread_id="conversation", question=f"q{n}"), config)
    assert final["results"] == [{"question": "q3"}]
    assert final["tool_history"] == ["tool"]
    assert final["tokens"] == 7 and final["llm_calls"] == 1
    assert final["events"] == [{"event": "q3"}]
    assert [m["turn_id"] for m in final["memory"]] == [2, 3]  # window of 2, oldest dropped
    # Control: a plain new value (no Overwrite) is added to the last turn's by operator.add, which
    # is why turn_input resets with Overwrite.
    leaked = graph.invoke({"turn_id": 4, "question": "q4", "tokens": 0, "results": []}, config)
    assert leaked["tokens"] == 14 and len(leaked["results"]) == 2


# --- through the real graph, services and Postgres checkpointer -------------------------------
@pytest.mark.django_db
def test_a_conversation_is_one_thread_with_several_checkpoints(ask: Any) -> None:
    first = ask("What is 2+2?")
    second = ask("What is 3*5?", conversation=first.conversation)
    conversation = first.conversation
    assert first.thread_id == second.thread_id == f"chat-{conversation.pk}" == conversation.thread_id
    threads = checkpoint_threads(f"chat-{conversation.pk}")
    assert list(threads) == [conversation.thread_id]  # one thread for the whole conversation
    assert threads[conversation.thread_id] >= 2 * 5  # each turn checkpoints every superstep
    state = thread_state(conversation.thread_id)
    assert [m["turn_id"] for m in state["memory"]] == [first.pk, second.pk]
    assert state["memory"][0]["question"] == "What is 2+2?"
    # Turn 2's per-turn channels hold turn 2 only.
    assert state["turn_id"] == second.pk
    assert [r["args"]["expression"] for r in state["results"]] == ["3*5"]
    assert state["tool_history"] == ["financial_calculator"]
    assert second.status == "done" and second.plan_path == "arithmetic"
    assert not any(e["event"] == "loop_detected" for e in second.guardrail_events)  # A→A had it leaked
    assert calc_values(second) == [15.0]
    assert calc_values(first) == [4.0]


@pytest.mark.django_db
def test_memory_comes_from_the_checkpoint_not_the_turn_rows(ask: Any) -> None:
    first = ask("What is 2+2?")
    ask("What is 10*3?", conversation=first.conversation)
    # Erase what the Turn rows know: a follow-up can only be resolved from the checkpointed window.
    Turn.objects.filter(conversation=first.conversation).update(
        question="(erased)", resolved_question="(erased)", answer="", claims=[], figures=[], subjects=[]
    )
    third = ask("What is the percentage change between those two?", conversation=first.conversation)
    assert resolver_step(third).inputs == {
        "question": "What is the percentage change between those two?",
        "memory_turns": 2,
        "memory_source": "checkpoint",
    }
    assert third.resolved_question.startswith("pct_change(4, 30)")
    assert third.status == "done"
    assert calc_values(third) == [PCT_4_TO_30]


@pytest.mark.django_db
def test_a_conversation_from_before_the_change_continues_from_its_turn_rows(ask: Any, analyst: Any) -> None:
    # Written the way the per-turn-thread code stored them: each turn on its own thread.
    conversation = Conversation.objects.create(owner=analyst, title="old")
    old = [
        Turn.objects.create(
            conversation=conversation,
            index=i,
            question=q,
            resolved_question=q,
            status=Turn.Status.DONE,
            answer=f"Result: {v}",
            figures=[{"label": "calculated", "value": v, "period": "", "source": "calculator"}],
            thread_id=f"chat-{conversation.pk}-{i}",
        )
        for i, q, v in ((1, "What is 2+2?", "4"), (2, "What is 10*3?", "30"))
    ]
    assert thread_state(conversation.thread_id) == {}  # no checkpoint on the conversation's thread yet

    third = ask("What is the percentage change between those two?", conversation=conversation)
    assert third.index == 3 and third.thread_id == conversation.thread_id
    assert resolver_step(third).inputs["memory_source"] == "turn rows"
    assert third.resolved_question.startswith("pct_change(4, 30)")
    assert calc_values(third) == [PCT_4_TO_30]
    # The window was seeded into the thread once; the next turn reads the checkpoint.
    state = thread_state(conversation.thread_id)
    assert [m["turn_id"] for m in state["memory"]] == [old[0].pk, old[1].pk, third.pk]
    fourth = ask("What is 1+1?", conversation=conversation)
    assert resolver_step(fourth).inputs["memory_source"] == "checkpoint"
    assert resolver_step(fourth).inputs["memory_turns"] == 3


@pytest.mark.django_db
def test_an_escalated_turn_holds_the_conversation(ask: Any, analyst: Any) -> None:
    from django.core.exceptions import ValidationError

    from research.chat.services import chat_message_post
    from reviews.models import ReviewTask

    turn = ask("What did the MPC minutes say about zorblax quantum tariffs?")
    assert turn.status == "escalated"
    task = ReviewTask.objects.get(pk=turn.review_task_id)
    assert task.thread_id == turn.conversation.thread_id and task.request_key == f"turn-{turn.pk}"
    with pytest.raises(ValidationError, match="reviewer is answering"):
        chat_message_post(user=analyst, question="What is 2+2?", conversation_id=turn.conversation_id)
    state = thread_state(turn.conversation.thread_id)
    assert state["turn_id"] == turn.pk and state["memory"] == []  # paused before deliver


@pytest.mark.django_db
def test_withdrawing_an_escalated_question_frees_the_conversation(
    ask: Any, analyst: Any, client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from django.core.exceptions import ValidationError
    from django.urls import reverse

    from research.chat.services import chat_turn_cancel
    from reviews.models import ReviewTask
    from reviews.services import review_task_resume_run

    turn = ask("What did the MPC minutes say about zorblax quantum tariffs?")
    assert turn.status == "escalated"
    client.force_login(analyst)
    htmx = {"HTTP_HX_REQUEST": "true"}
    page = client.get(reverse("research-chat:turn", args=[turn.pk]), **htmx).content.decode()
    assert 'data-testid="withdraw"' in page  # the escalated turn offers the way out
    with django_capture_on_commit_callbacks(execute=False) as queued:
        page = client.post(reverse("research-chat:turn-cancel", args=[turn.pk]), **htmx).content.decode()
    assert 'data-testid="cancelled"' in page and 'data-testid="withdraw"' not in page
    turn.refresh_from_db()
    assert turn.status == "cancelled"
    task = ReviewTask.objects.get(pk=turn.review_task_id)
    assert task.state == "cancelled" and task.decision.reason == "Withdrawn by the analyst."
    assert len(queued) == 1  # the paused run is resumed with the cancel, by the worker
    assert review_task_resume_run(task_id=task.pk) == "done"
    turn.refresh_from_db()
    assert turn.status == "cancelled" and turn.answer == "" and turn.answered_by == "agent"
    assert thread_state(turn.conversation.thread_id)["memory"] == []  # a withdrawn turn is not remembered
    with pytest.raises(ValidationError, match="already cancelled"):
        chat_turn_cancel(user=analyst, turn_id=turn.pk)
    # The conversation takes the next question on the same thread.
    follow = ask("What is 10*3?", conversation=turn.conversation)
    assert follow.status == "done" and [c["value"] for c in follow.claims] == [30]
    assert follow.thread_id == turn.thread_id


@pytest.mark.django_db
def test_a_decided_escalation_can_be_withdrawn_only_when_its_resume_failed(
    ask: Any, analyst: Any, reviewer: Any, client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from django.core.exceptions import ValidationError
    from django.urls import reverse

    from research.chat.services import chat_turn_cancel
    from reviews.models import ReviewTask
    from reviews.services import review_task_decide

    turn = ask("What did the MPC minutes say about zorblax quantum tariffs?")
    # A reviewer decided and the resume is on its way: the answer is coming, nothing to withdraw.
    with django_capture_on_commit_callbacks(execute=False):
        review_task_decide(user=reviewer, task_id=turn.review_task_id, outcome="approve")
    with pytest.raises(ValidationError, match="already decided"):
        chat_turn_cancel(user=analyst, turn_id=turn.pk)
    client.force_login(analyst)
    page = client.post(reverse("research-chat:turn-cancel", args=[turn.pk]), HTTP_HX_REQUEST="true").content.decode()
    assert "the answer is on its way" in page and 'data-testid="cancel-error"' in page  # said, not swallowed
    turn.refresh_from_db()
    assert turn.status == "escalated"
    # The resume failed for good: withdrawing is the analyst's way out of a stuck conversation.
    ReviewTask.objects.filter(pk=turn.review_task_id).update(resume_state="failed")
    assert chat_turn_cancel(user=analyst, turn_id=turn.pk).status == "cancelled"
