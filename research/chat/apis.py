"""REST API for the research chat: ``POST /api/v1/chat``, turn polling and cancel, ``GET /api/v1/trace/{id}``."""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

from django.urls import reverse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import queue_unavailable_response
from core.permissions import area_api_permissions
from core.tasks import queue_unavailable
from research.agent.verify.claims import render_text
from research.chat.models import TraceStep, Turn
from research.chat.selectors import trace_get, turn_get
from research.chat.services import chat_message_post, chat_turn_cancel

_permissions = area_api_permissions("research")
MAX_WAIT_SECONDS = 30.0


class ChatPostSerializer(serializers.Serializer):
    question = serializers.CharField(max_length=2000, allow_blank=False, trim_whitespace=True)
    conversation_id = serializers.UUIDField(required=False, allow_null=True)
    wait = serializers.FloatField(
        required=False,
        default=0.0,
        min_value=0.0,
        max_value=MAX_WAIT_SECONDS,
        help_text="Seconds to wait for the answer before returning (0 = return at once with a poll URL)",
    )


def turn_json(turn: Turn, request: Request | None = None) -> dict[str, Any]:
    poll = reverse("api-chat-turn", args=[turn.pk])
    return {
        "id": turn.pk,
        "conversation_id": str(turn.conversation_id),
        "index": turn.index,
        "question": turn.question,
        "resolved_question": turn.resolved_question,
        "status": turn.status,
        "restarts": turn.restarts,  # a worker died while answering; the sweep sent it again
        "answer": render_text(turn.answer, turn.claims),
        "answer_template": turn.answer,
        "answered_by": turn.answered_by,
        "claims": turn.claims,
        "citations": turn.citations,
        "verification": turn.verification,
        "plan_path": turn.plan_path,
        "llm_calls": turn.llm_calls,
        "confidence": turn.confidence,
        "guardrail_events": turn.guardrail_events,
        "review_task_id": turn.review_task_id,
        "latency_ms": turn.latency_ms,
        "poll_url": request.build_absolute_uri(poll) if request else poll,
        "trace_url": reverse("api-chat-trace", args=[turn.conversation_id]),
    }


def step_json(step: TraceStep) -> dict[str, Any]:
    return {
        "seq": step.seq,
        "node": step.node,
        "tool": step.tool,
        "inputs": step.inputs,
        "outputs": step.outputs,
        "note": step.note,
        "latency_ms": step.latency_ms,
        "input_tokens": step.input_tokens,
        "output_tokens": step.output_tokens,
        "cost_usd": step.cost_usd,
        "confidence": step.confidence,
        "guardrail_events": step.guardrail_events,
    }


_TurnOut = inline_serializer("ChatTurn", {"id": serializers.IntegerField(), "status": serializers.CharField()})


class ChatPostApi(APIView):
    permission_classes = _permissions

    @extend_schema(
        request=ChatPostSerializer, responses={200: _TurnOut, 202: _TurnOut, 503: _TurnOut}, tags=["research"]
    )
    def post(self, request: Request) -> Response:
        data = ChatPostSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        turn = chat_message_post(
            user=request.user,
            question=data.validated_data["question"],
            conversation_id=data.validated_data.get("conversation_id"),
        )
        if queue_unavailable(turn):  # saved; the sweep sends it when the queue is back
            return queue_unavailable_response(turn_json(turn, request))
        deadline = time.monotonic() + data.validated_data["wait"]
        while time.monotonic() < deadline:
            turn.refresh_from_db()
            if not turn.is_active:
                break
            time.sleep(0.05)
        done = not turn.is_active
        return Response(turn_json(turn, request), status=status.HTTP_200_OK if done else status.HTTP_202_ACCEPTED)


class ChatTurnGetApi(APIView):
    permission_classes = _permissions

    @extend_schema(responses={200: _TurnOut}, tags=["research"])
    def get(self, request: Request, turn_id: int) -> Response:
        turn = turn_get(user=request.user, turn_id=turn_id)
        body = turn_json(turn, request)
        body["steps"] = [step_json(s) for s in turn.steps.order_by("seq", "pk")]
        return Response(body)


class ChatTurnCancelApi(APIView):
    permission_classes = _permissions

    @extend_schema(request=None, responses={200: _TurnOut}, tags=["research"])
    def post(self, request: Request, turn_id: int) -> Response:
        return Response(turn_json(chat_turn_cancel(user=request.user, turn_id=turn_id), request))


class ChatTraceGetApi(APIView):
    permission_classes = _permissions

    @extend_schema(
        responses={200: inline_serializer("ChatTrace", {"conversation_id": serializers.UUIDField()})},
        tags=["research"],
    )
    def get(self, request: Request, conversation_id: UUID) -> Response:
        trace = trace_get(user=request.user, conversation_id=conversation_id)
        return Response(
            {
                "conversation_id": str(trace["conversation"].pk),
                "title": trace["conversation"].title,
                "totals": trace["totals"],
                "turns": [
                    {**turn_json(t, request), "steps": [step_json(s) for s in t.steps.all()]} for t in trace["turns"]
                ],
            }
        )
