"""REST API for evaluations: ``POST /api/v1/evaluate`` (runs in Celery; 202 with the run id, a
poll URL and progress), ``GET /api/v1/evaluate`` and ``GET``/``DELETE /api/v1/evaluate/{id}``."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import queue_unavailable_response
from core.permissions import area_api_permissions
from core.tasks import queue_unavailable
from evaluation import selectors, services, suites
from evaluation.models import EvalCaseResult, EvalRun
from evaluation.runner import ENGINES

_permissions = area_api_permissions("evaluation")


class EvaluateSerializer(serializers.Serializer[Any]):
    suite = serializers.ChoiceField(choices=suites.SUITE_NAMES)
    engine = serializers.ChoiceField(choices=ENGINES, default="deterministic")
    tags = serializers.ListField(child=serializers.CharField(max_length=40), required=False, max_length=20)


class ProgressSerializer(serializers.Serializer[Any]):
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    percent = serializers.IntegerField()
    current = serializers.CharField()


class RunSerializer(serializers.ModelSerializer[EvalRun]):
    poll_url = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()

    class Meta:
        model = EvalRun
        fields = [
            *("id", "suite", "engine", "tags", "status", "trigger", "total", "done", "passed", "progress"),
            *("metrics", "summary", "judge", "gate_ok", "error", "created_at", "started_at", "finished_at", "poll_url"),
        ]

    def get_poll_url(self, run: EvalRun) -> str:
        request = self.context.get("request")
        path = reverse("api-evaluate-detail", args=[run.pk])
        return request.build_absolute_uri(path) if request else path

    def get_progress(self, run: EvalRun) -> dict[str, Any]:
        return {"done": run.done, "total": run.total, "percent": run.progress_pct, "current": run.current}


class CaseSerializer(serializers.ModelSerializer[EvalCaseResult]):
    trace_url = serializers.SerializerMethodField()

    class Meta:
        model = EvalCaseResult
        fields = [
            *("id", "case_id", "case_version", "variant", "tags", "source", "inputs", "expected", "actual"),
            *("verdicts", "llm_verdicts", "measures", "outcome", "reason", "latency_ms", "trace_url"),
        ]

    def get_trace_url(self, case: EvalCaseResult) -> str:
        return reverse("evaluation:case", args=[case.pk])


class RunDetailSerializer(RunSerializer):
    cases = CaseSerializer(many=True, read_only=True)

    class Meta(RunSerializer.Meta):
        fields = [*RunSerializer.Meta.fields, "cases"]


class EvaluateApi(APIView):
    permission_classes = _permissions

    @extend_schema(
        responses=RunSerializer(many=True),
        parameters=[OpenApiParameter("suite", str, enum=list(suites.SUITE_NAMES), required=False)],
        tags=["evaluation"],
    )
    def get(self, request: Request) -> Response:
        suite = request.query_params.get("suite", "")
        if suite and suite not in suites.SUITE_NAMES:
            return Response({"suite": [f"Unknown suite {suite!r}."]}, status=status.HTTP_400_BAD_REQUEST)
        runs = selectors.run_list(user=request.user, suite=suite)[:50]
        return Response(RunSerializer(runs, many=True, context={"request": request}).data)

    @extend_schema(
        request=EvaluateSerializer,
        responses={
            202: RunSerializer,
            400: OpenApiResponse(description="unknown suite, engine or tag; an engine without its key"),
            409: OpenApiResponse(description="a run of this suite is already in progress"),
        },
        tags=["evaluation"],
    )
    def post(self, request: Request) -> Response:
        data = EvaluateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            run = services.eval_run_start(user=request.user, trigger=EvalRun.Trigger.API, **data.validated_data)
        except services.RunAlreadyActive as exc:
            return Response(
                {"error": "run_active", "message": str(exc), "active_run_id": exc.run.pk if exc.run else None},
                status=status.HTTP_409_CONFLICT,
            )
        body = RunSerializer(run, context={"request": request}).data
        if queue_unavailable(run):  # saved and queued; the sweep sends it when the queue is back
            return queue_unavailable_response(body)
        return Response(body, status=status.HTTP_202_ACCEPTED)


class EvaluateDetailApi(APIView):
    permission_classes = _permissions

    @extend_schema(responses=RunDetailSerializer, tags=["evaluation"])
    def get(self, request: Request, run_id: int) -> Response:
        run = selectors.run_get(user=request.user, run_id=run_id)
        return Response(RunDetailSerializer(run, context={"request": request}).data)

    @extend_schema(
        responses={204: None, 403: OpenApiResponse(description="only admins delete runs")}, tags=["evaluation"]
    )
    def delete(self, request: Request, run_id: int) -> Response:
        services.eval_run_delete(user=request.user, run=selectors.run_get(user=request.user, run_id=run_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
