"""DRF endpoints for brief runs and briefs (thin: services and selectors do the work)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from briefs import selectors, services
from briefs.models import Brief, BriefRun
from core.api_errors import queue_unavailable_response
from core.permissions import area_api_permissions
from core.tasks import queue_unavailable

_permissions = area_api_permissions("briefs")


class BriefRunSerializer(serializers.ModelSerializer[BriefRun]):
    watchlist = serializers.CharField(source="watchlist.name", read_only=True)
    brief_id = serializers.SerializerMethodField()

    class Meta:
        model = BriefRun
        fields = [
            *("id", "watchlist_id", "watchlist", "trigger", "status", "tickers", "partial", "errors"),
            *("iterations", "tokens", "cost_usd", "note", "created_at", "started_at", "finished_at", "brief_id"),
        ]

    def get_brief_id(self, run: BriefRun) -> int | None:
        brief = getattr(run, "brief", None)
        return brief.pk if brief is not None else None


class BriefSerializer(serializers.ModelSerializer[Brief]):
    class Meta:
        model = Brief
        fields = ["id", "run_id", "watchlist_id", "status", "title", "as_of", "partial", "draft", "claims",
                  "verification", "body_text", "decided_by", "decided_at", "created_at"]  # fmt: skip


class RunStartSerializer(serializers.Serializer[Any]):
    watchlist_id = serializers.IntegerField(min_value=1)


class BriefRunListCreateApi(APIView):
    permission_classes = _permissions

    @extend_schema(responses=BriefRunSerializer(many=True))
    def get(self, request: Request) -> Response:
        runs = selectors.run_list(user=request.user)[:100]
        return Response(BriefRunSerializer(runs, many=True).data)

    @extend_schema(
        request=RunStartSerializer,
        responses={202: BriefRunSerializer, 409: OpenApiResponse(description="a run is already active")},
    )
    def post(self, request: Request) -> Response:
        data = RunStartSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            run = services.brief_run_start(
                user=request.user, watchlist_id=data.validated_data["watchlist_id"], trigger=BriefRun.Trigger.API
            )
        except services.RunAlreadyActive as exc:
            return Response(
                {"error": "run_active", "message": str(exc), "active_run_id": exc.run.pk if exc.run else None},
                status=status.HTTP_409_CONFLICT,
            )
        if queue_unavailable(run):  # saved and queued; the sweep sends it when the queue is back
            return queue_unavailable_response(BriefRunSerializer(run).data)
        return Response(BriefRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


class BriefRunDetailApi(APIView):
    permission_classes = _permissions

    @extend_schema(responses=BriefRunSerializer)
    def get(self, request: Request, run_id: int) -> Response:
        return Response(BriefRunSerializer(selectors.run_get(user=request.user, run_id=run_id)).data)


class BriefListApi(APIView):
    permission_classes = _permissions

    @extend_schema(responses=BriefSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(BriefSerializer(selectors.brief_list(user=request.user)[:100], many=True).data)


class BriefDetailApi(APIView):
    permission_classes = _permissions

    @extend_schema(responses=BriefSerializer)
    def get(self, request: Request, brief_id: int) -> Response:
        return Response(BriefSerializer(selectors.brief_get(user=request.user, brief_id=brief_id)).data)
