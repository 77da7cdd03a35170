"""Runs across threads and processes: parallel fan-out in one superstep, cancellation of a running
turn, and escalation → reviewer decision → resume in the real Celery worker."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import connections
from django.test import override_settings

from research.agent.verify.claims import render_text
from research.chat.models import Conversation, Turn
from research.chat.services import chat_message_post, chat_turn_cancel, chat_turn_run
from reviews.models import ReviewTask
from reviews.services import review_task_decide
from tests.research.agent.conftest import thread_state
from tests.research.fake_llm import anthropic_tool_use, fake_llm_server

pytestmark = [pytest.mark.timeout(180)]


def new_turn(user: Any, question: str) -> Turn:
    """A queued turn without the on-commit enqueue (these tests run it themselves)."""
    conversation = Conversation.objects.create(owner=user, title=question[:100])
    return Turn.objects.create(conversation=conversation, index=1, question=question, thread_id=conversation.thread_id)


def wait_for(turn_id: int, statuses: set[str], timeout: float = 60) -> Turn:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        turn = Turn.objects.get(pk=turn_id)
        if turn.status in statuses:
            return turn
        time.sleep(0.1)
    raise AssertionError(f"turn {turn_id} stayed {Turn.objects.get(pk=turn_id).status}")


def test_independent_tools_run_in_the_same_superstep(transactional_db: Any, analyst: Any) -> None:
    from core.checkpoint import checkpointer
    from research.agent.graph import build_graph

    turn = new_turn(analyst, "What is 2+2 and what is the price of INFY?")
    outcome = chat_turn_run(turn_id=turn.pk)
    turn.refresh_from_db()
    assert outcome == "done", (turn.verification, turn.answer)
    turn.refresh_from_db()
    assert turn.plan_path == "arithmetic+quote", (turn.verification, turn.answer)
    nodes = [s.node for s in turn.steps.order_by("seq")]
    assert {"financial_calculator", "market_data"} <= set(nodes)
    assert nodes.count("guardrail_check") == 1  # both tools joined before one check
    with checkpointer() as saver:
        history = list(
            build_graph(checkpointer=saver).get_state_history({"configurable": {"thread_id": turn.thread_id}})
        )
    assert any(set(h.next) == {"financial_calculator", "market_data"} for h in history)
    final = history[0].values
    assert sorted(r["node"] for r in final["results"]) == ["financial_calculator", "market_data"]  # reducer kept both
    assert turn.verification["status"] == "verified"
    assert any(c["kind"] == "calc" and c["value"] == 4.0 for c in turn.claims)


def test_cancel_a_running_turn(transactional_db: Any, analyst: Any) -> None:
    with fake_llm_server() as claude, override_settings(ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=claude.url):
        claude.delay = 1.0  # the planner's model call is slow: the user cancels meanwhile
        claude.default = (200, anthropic_tool_use("calculate_financial_metric", {"expression": "1+2"}))
        turn = new_turn(analyst, "Which themes should our team watch this quarter?")

        def run() -> None:
            try:
                chat_turn_run(turn_id=turn.pk)
            finally:
                connections.close_all()  # this thread's session, or the test database cannot be dropped

        runner = threading.Thread(target=run)
        runner.start()
        wait_for(turn.pk, {"running"})
        time.sleep(0.3)
        chat_turn_cancel(user=analyst, turn_id=turn.pk)
        runner.join(30)
    turn.refresh_from_db()
    assert turn.status == "cancelled"
    assert turn.answer == ""
    assert [s.node for s in turn.steps.order_by("seq")].count("planner") == 1  # never planned again
    assert len(claude.requests) == 1
    assert thread_state(turn.thread_id)["memory"] == []  # a cancelled turn is not remembered


def test_cancel_a_queued_turn_is_skipped_by_the_worker(db: Any, analyst: Any) -> None:
    turn = new_turn(analyst, "What is 2+2?")
    chat_turn_cancel(user=analyst, turn_id=turn.pk)
    assert chat_turn_run(turn_id=turn.pk) == "skipped"
    turn.refresh_from_db()
    assert turn.status == "cancelled" and not turn.steps.exists()


@pytest.mark.worker
def test_escalation_decision_resumes_in_the_worker(celery_worker: Any, analyst: Any, reviewer: Any) -> None:
    # Empty library, web search disabled: the worker escalates and pauses.
    turn = chat_message_post(user=analyst, question="What did the MPC minutes say about zorblax quantum tariffs?")
    turn = wait_for(turn.pk, {"escalated", "done", "failed"})
    assert turn.status == "escalated", turn.error
    task_id = turn.review_task_id
    assert task_id
    review_task_decide(
        user=reviewer,
        task_id=task_id,
        outcome="edit",
        edited={"answer": "The minutes do not discuss tariffs; see the August 2024 statement."},
    )
    turn = wait_for(turn.pk, {"done", "failed"})
    assert turn.status == "done"
    assert turn.answered_by == "reviewer"
    assert turn.answer == "The minutes do not discuss tariffs; see the August 2024 statement."
    assert turn.steps.filter(node="human_review").exists()
    # The resume ran on the conversation's thread and finished the paused turn.
    task = ReviewTask.objects.get(pk=task_id)
    assert task.thread_id == turn.thread_id == f"chat-{turn.conversation_id}"
    # The next question in the conversation still runs, on the same thread, remembering the
    # reviewer's answer and with none of the escalated turn's tool results.
    follow = chat_message_post(user=analyst, question="What is 2+2?", conversation_id=turn.conversation_id)
    follow = wait_for(follow.pk, {"done", "failed", "escalated"})
    assert follow.status == "done" and follow.index == 2
    assert follow.thread_id == turn.thread_id
    # deliver marks the turn done in the database, then returns the memory entry that the graph
    # checkpoints as the node ends: a loaded machine reads the status a moment before the entry.
    deadline = time.monotonic() + 10
    while len(thread_state(turn.thread_id)["memory"]) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    state = thread_state(turn.thread_id)
    assert [(m["turn_id"], m["answer"]) for m in state["memory"]] == [
        (turn.pk, "The minutes do not discuss tariffs; see the August 2024 statement."),
        (follow.pk, render_text(follow.answer, follow.claims)),
    ]
    assert [r["node"] for r in state["results"]] == ["financial_calculator"]
    assert not follow.guardrail_events


def done_turn(conversation: Conversation, index: int, question: str) -> Turn:
    """Run one turn in this (the test's) process, as a worker would."""
    turn = Turn.objects.create(
        conversation=conversation, index=index, question=question, thread_id=conversation.thread_id
    )
    assert chat_turn_run(turn_id=turn.pk) == "done"
    return turn


@pytest.mark.worker
def test_conversation_continues_in_another_process_from_the_checkpoint(celery_worker: Any, analyst: Any) -> None:
    # Two turns in this process; the follow-up in the worker process, on a fresh checkpointer
    # connection, with the Turn rows erased: only the checkpointed memory can resolve "those two".
    conversation = Conversation.objects.create(owner=analyst, title="restart")
    done_turn(conversation, 1, "What is 2+2?")
    done_turn(conversation, 2, "What is 10*3?")
    Turn.objects.filter(conversation=conversation).update(
        question="(erased)", resolved_question="(erased)", answer="", claims=[], figures=[]
    )
    follow = chat_message_post(
        user=analyst, question="What is the percentage change between those two?", conversation_id=conversation.pk
    )
    follow = wait_for(follow.pk, {"done", "failed", "escalated"})
    assert follow.status == "done", follow.error
    assert follow.resolved_question.startswith("pct_change(4, 30)")
    assert follow.steps.get(node="memory_resolver").inputs["memory_source"] == "checkpoint"
    # (30 − 4) / 4 × 100, by hand.
    assert [c["value"] for c in follow.claims if c["kind"] == "calc"] == [650.0]
