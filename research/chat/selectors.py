"""Reads for the research chat, always scoped to what the user may see."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.db.models import Q, QuerySet, Sum
from django.http import Http404

from core.audit import audit_cross_user_read
from core.roles import ADMIN, has_role
from research.agent.dialogue.memory import memory_entry
from research.agent.verify.claims import render_text
from research.chat.models import Conversation, TraceStep, Turn


def conversation_list(*, user: Any, query: str = "") -> QuerySet[Conversation]:
    """The user's conversations, newest first; ``query`` matches the title or any question asked."""
    qs = Conversation.objects.filter(owner=user)
    query = query.strip()
    if query:
        matching = Turn.objects.filter(question__icontains=query).values("conversation_id")
        qs = qs.filter(Q(title__icontains=query) | Q(pk__in=matching))
    return qs.order_by("-updated_at")


def conversation_get(*, user: Any, conversation_id: UUID | str) -> Conversation:
    """The owner's conversation (admins may read any, for support); 404 otherwise."""
    qs = Conversation.objects.all() if has_role(user, ADMIN) else Conversation.objects.filter(owner=user)
    try:
        conversation = qs.get(pk=conversation_id)
    except (Conversation.DoesNotExist, ValueError, TypeError) as exc:
        raise Http404("No such conversation.") from exc
    if conversation.owner_id != user.pk:  # an admin reading someone else's: audited (issue 17)
        audit_cross_user_read(actor=user, subject=conversation, owner_id=conversation.owner_id)
    return conversation


def turn_get(*, user: Any, turn_id: int) -> Turn:
    turn = Turn.objects.select_related("conversation").filter(pk=turn_id).first()
    if turn is None:
        raise Http404("No such turn.")
    conversation_get(user=user, conversation_id=turn.conversation_id)
    return turn


def turn_memory(*, turn_id: int, size: int) -> list[dict[str, Any]]:
    """The sliding window rebuilt from Turn rows: the last ``size`` answered turns before
    ``turn_id``. Only a fallback — the window lives in the conversation's checkpointed graph state;
    this seeds it for a conversation whose thread has no memory yet (one started before thread =
    conversation)."""
    turn = Turn.objects.get(pk=turn_id)
    earlier = Turn.objects.filter(
        conversation_id=turn.conversation_id, index__lt=turn.index, status=Turn.Status.DONE
    ).order_by("-index")[:size]
    return [
        memory_entry(
            turn_id=t.pk,
            question=t.question,
            resolved=t.resolved_question,
            answer=render_text(t.answer, t.claims),
            figures=t.figures,
            subjects=t.subjects,
            documents=[c["document_id"] for c in t.citations if c.get("document_id")],
        )
        for t in reversed(list(earlier))
    ]


def turn_node_path(turn: Turn) -> list[str]:
    """The graph nodes a turn went through, in order, from its trace steps. Two nodes write no step
    of their own at those moments, so the turn's status stands in: a paused turn sits at
    ``human_review``; a finished one (done or cancelled by the graph) went through ``deliver``."""
    path = [s.node for s in turn.steps.all()]
    if not path:
        return []
    if turn.status == Turn.Status.ESCALATED and "human_review" not in path:
        path.append("human_review")
    if turn.status in (Turn.Status.DONE, Turn.Status.CANCELLED):
        path.append("deliver")
    return path


def trace_get(*, user: Any, conversation_id: UUID | str) -> dict[str, Any]:
    conversation = conversation_get(user=user, conversation_id=conversation_id)
    turns = list(conversation.turns.prefetch_related("steps").order_by("index"))
    totals = TraceStep.objects.filter(turn__conversation=conversation).aggregate(
        input_tokens=Sum("input_tokens"), output_tokens=Sum("output_tokens"), cost_usd=Sum("cost_usd")
    )
    no_llm = sum(1 for t in turns if t.plan_path not in {"llm", "fallback", ""})
    return {
        "conversation": conversation,
        "turns": turns,
        "totals": {
            "turns": len(turns),
            "steps": sum(len(t.steps.all()) for t in turns),
            "input_tokens": totals["input_tokens"] or 0,
            "output_tokens": totals["output_tokens"] or 0,
            "cost_usd": round(totals["cost_usd"] or 0.0, 6),
            "llm_calls": sum(t.llm_calls for t in turns),
            "fast_path_share": round(no_llm / len(turns), 3) if turns else None,
        },
    }
