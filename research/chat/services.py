"""Writes for the research chat: post a message (a turn, run by Celery on commit), cancel a turn."""

from __future__ import annotations

import logging
from datetime import timedelta
from functools import partial
from typing import Any
from uuid import UUID

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F, Max

from core.audit import audit_record
from core.roles import can_access
from core.tasks import enqueue, enqueue_flagging
from research.chat.models import Conversation, Turn
from research.chat.selectors import conversation_get, turn_get

MAX_QUESTION_CHARS = 2000
CHAT_TURN_TASK = "research.chat_turn_run"  # the Celery task (research/tasks.py) that calls chat_turn_run
logger = logging.getLogger(__name__)


def _enqueue(turn_id: int) -> bool:
    """Send the turn to the workers; False when the broker (Redis) is unreachable. The turn stays
    queued in the database either way, and :func:`chat_turns_sweep` sends it again later."""
    return enqueue(CHAT_TURN_TASK, turn_id)  # by name: the task calls back into this module


def _enqueue_or_flag(turn: Turn) -> None:
    # The page and the API tell the analyst when the queue was down (the question is saved).
    enqueue_flagging(turn, CHAT_TURN_TASK, turn.pk)


def chat_message_post(*, user: Any, question: str, conversation_id: UUID | str | None = None) -> Turn:
    """Create a turn for ``question`` (and a conversation when none is given); the agent run is
    enqueued when the transaction commits."""
    if not can_access(user, "research"):
        raise PermissionDenied("Your role does not give access to research chat.")
    text = (question or "").strip()
    if not text:
        raise ValidationError({"question": "Type a question."})
    if len(text) > MAX_QUESTION_CHARS:
        raise ValidationError({"question": f"Keep questions under {MAX_QUESTION_CHARS} characters."})
    with transaction.atomic():
        if conversation_id:
            conversation = conversation_get(user=user, conversation_id=conversation_id)
            if conversation.owner_id != user.pk:
                raise PermissionDenied("Only the owner can continue a conversation.")
            Conversation.objects.select_for_update().filter(pk=conversation.pk).first()
            if conversation.turns.filter(status__in=Turn.ACTIVE).exists():
                raise ValidationError({"question": "Wait for the current answer (or cancel it) before asking again."})
            # The conversation's thread is paused at the reviewer's interrupt: a new turn on it would
            # discard that pause, so the conversation waits for the decision.
            if conversation.turns.filter(status=Turn.Status.ESCALATED).exists():
                raise ValidationError(
                    {"question": "A reviewer is answering the last question; ask again once it is decided."}
                )
        else:
            conversation = Conversation.objects.create(owner=user, title=text[:120])
        index = (conversation.turns.aggregate(m=Max("index"))["m"] or 0) + 1
        turn = Turn.objects.create(
            conversation=conversation, index=index, question=text, thread_id=conversation.thread_id
        )
        conversation.save(update_fields=["updated_at"])
        transaction.on_commit(partial(_enqueue_or_flag, turn))
    return turn


def _withdraw_escalation(turn: Turn, user: Any) -> None:
    """Cancel the review task of an escalated turn (the paused run is resumed with the cancel and
    ends the turn cancelled). Also the way out when a reviewer's answer failed to resume."""
    from reviews.models import ReviewTask
    from reviews.services import review_task_close

    task = ReviewTask.objects.filter(pk=turn.review_task_id).first() if turn.review_task_id else None
    if task is not None and task.state == ReviewTask.State.PENDING:
        if review_task_close(task=task, outcome="cancel", reason="Withdrawn by the analyst.", actor=user):
            return
        task.refresh_from_db()
    if task is not None and task.resume_state != ReviewTask.ResumeState.FAILED:
        raise ValidationError({"turn": "A reviewer has already decided: the answer is on its way."})


def chat_turn_cancel(*, user: Any, turn_id: int) -> Turn:
    """Ask a queued or running turn to stop (the graph checks the flag between steps), or withdraw
    an escalated one from the review inbox, which frees the conversation for the next question."""
    turn = turn_get(user=user, turn_id=turn_id)
    if turn.conversation.owner_id != user.pk:
        raise PermissionDenied("Only the owner can cancel a turn.")
    with transaction.atomic():
        turn = Turn.objects.select_for_update().get(pk=turn.pk)
        if turn.status == Turn.Status.ESCALATED:
            _withdraw_escalation(turn, user)
            turn.cancel_requested = True
            turn.status = Turn.Status.CANCELLED
            turn.save(update_fields=["cancel_requested", "status"])
            audit_record(
                actor=user,
                action="chat_turn.withdraw",
                subject=turn,
                before={"status": Turn.Status.ESCALATED},
                after={"status": turn.status, "review_task": turn.review_task_id},
            )
            return turn
        if not turn.is_active:
            raise ValidationError({"turn": f"This turn is already {turn.status}."})
        before = turn.status
        turn.cancel_requested = True
        if turn.status == Turn.Status.QUEUED:
            turn.status = Turn.Status.CANCELLED  # the worker will find it cancelled and skip it
        turn.save(update_fields=["cancel_requested", "status"])
        audit_record(
            actor=user,
            action="chat_turn.cancel",
            subject=turn,
            before={"status": before},
            after={"status": turn.status},
        )
    return turn


def chat_turn_run(*, turn_id: int) -> str:
    """Run the agent for one turn on its conversation's checkpointer thread (the Celery task calls
    this). Idempotent: only a queued turn runs."""
    from django.utils import timezone

    from core.checkpoint import checkpointer
    from research.agent.graph import GRAPH_NAME, build_graph
    from research.agent.state import turn_input

    claimed = Turn.objects.filter(pk=turn_id, status=Turn.Status.QUEUED).update(
        status=Turn.Status.RUNNING, started_at=timezone.now()
    )
    if not claimed:
        return "skipped"
    turn = Turn.objects.select_related("conversation").get(pk=turn_id)
    # The thread is the conversation: memory carries over in the checkpoint, per-turn channels are
    # reset by the input. (A turn queued before that change keeps the thread it was given.)
    state = turn_input(
        turn_id=turn.pk,
        user_id=turn.conversation.owner_id,
        thread_id=turn.thread_id or turn.conversation.thread_id,
        question=turn.question,
    )
    config: dict[str, Any] = {
        "configurable": {"thread_id": state["thread_id"]},
        "run_name": GRAPH_NAME,
        "tags": ["alphadesk", GRAPH_NAME],
        "metadata": {"turn_id": turn.pk, "conversation_id": str(turn.conversation_id)},
        "recursion_limit": 4 * settings.AGENT_MAX_TOOL_DEPTH + 12,
    }
    try:
        with checkpointer() as saver:
            result = build_graph(checkpointer=saver).invoke(state, config)
    except Exception as exc:
        Turn.objects.filter(pk=turn_id).update(
            status=Turn.Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000], finished_at=timezone.now()
        )
        raise
    if "__interrupt__" in result:
        return "escalated"
    return str(Turn.objects.get(pk=turn_id).status)


def chat_turns_sweep(*, now: Any = None) -> dict[str, int]:
    """Send again what a fault left behind (Celery beat runs this every CHAT_SWEEP_SECONDS):
    turns still queued after CHAT_REQUEUE_AFTER_SECONDS (the broker was down when they were
    posted, or the message was lost), and turns "running" for longer than CHAT_RUNNING_STALE_SECONDS
    (their worker died: the redelivered message found them claimed and skipped them). Safe to run
    at any time: a turn runs only once it is claimed from queued."""
    from django.utils import timezone

    now = now or timezone.now()
    stale = Turn.objects.filter(
        status=Turn.Status.RUNNING, started_at__lt=now - timedelta(seconds=settings.CHAT_RUNNING_STALE_SECONDS)
    )
    reset = stale.update(status=Turn.Status.QUEUED, restarts=F("restarts") + 1)
    waiting = Turn.objects.filter(
        status=Turn.Status.QUEUED, created_at__lt=now - timedelta(seconds=settings.CHAT_REQUEUE_AFTER_SECONDS)
    ).values_list("pk", flat=True)
    sent = sum(1 for turn_id in waiting if _enqueue(turn_id))
    return {"requeued": sent, "reset_from_running": reset}
