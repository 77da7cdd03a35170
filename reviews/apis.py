from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import queue_unavailable_response
from core.permissions import area_api_permissions
from core.tasks import queue_unavailable
from reviews.filters import ReviewTaskFilter
from reviews.models import ReviewTask
from reviews.selectors import review_task_get, review_task_list
from reviews.serializers import (
    ReviewDecideSerializer,
    ReviewDecisionSerializer,
    ReviewTaskDetailSerializer,
    ReviewTaskSerializer,
)
from reviews.services import ReviewAlreadyDecided, review_task_decide

_REVIEWS = area_api_permissions("reviews")


def _task_or_404(request: Request, task_id: int) -> ReviewTask:
    try:
        return review_task_get(user=request.user, task_id=task_id)
    except ReviewTask.DoesNotExist as exc:
        raise NotFound("No such review task.") from exc


class ReviewTaskListApi(APIView):
    """Review tasks a reviewer can act on: pending by default; filter by state, kind, requester, age."""

    permission_classes = _REVIEWS

    @extend_schema(
        parameters=[
            OpenApiParameter("state", str, enum=ReviewTask.State.values, description="Default: pending"),
            OpenApiParameter("kind", str, enum=ReviewTask.Kind.values),
            OpenApiParameter("requester", int, description="User id of the requester"),
            OpenApiParameter("age", str, enum=["1h", "24h", "older", "overdue"]),
            OpenApiParameter("sort", str, enum=["due", "-due", "created", "-created", "priority", "-priority"]),
        ],
        responses=ReviewTaskSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        data = request.query_params.copy()
        data.setdefault("state", ReviewTask.State.PENDING)
        filterset = ReviewTaskFilter(data, queryset=review_task_list(user=request.user), request=request)
        if not filterset.is_valid():
            raise ValidationError(filterset.errors)
        paginator = LimitOffsetPagination()
        page: list[ReviewTask] | None = paginator.paginate_queryset(filterset.qs, request, view=self)
        serializer = ReviewTaskSerializer(page, many=True, context={"request": request})
        return paginator.get_paginated_response(serializer.data)


class ReviewTaskDetailApi(APIView):
    """One review task with its payload (the context the reviewer sees) and its decision."""

    permission_classes = _REVIEWS

    @extend_schema(responses={200: ReviewTaskDetailSerializer, 404: OpenApiResponse(description="No such task")})
    def get(self, request: Request, task_id: int) -> Response:
        task = _task_or_404(request, task_id)
        return Response(ReviewTaskDetailSerializer(task, context={"request": request}).data)


class ReviewTaskDecideApi(APIView):
    """Approve, edit or reject a pending task. Four-eyes applies; reject needs a reason; the first
    decision wins and later ones get 409 with who decided."""

    permission_classes = _REVIEWS

    @extend_schema(
        request=ReviewDecideSerializer,
        responses={
            201: ReviewDecisionSerializer,
            400: OpenApiResponse(description="Invalid decision (e.g. reject without reason)"),
            403: OpenApiResponse(description="Not a reviewer, or four-eyes rule"),
            404: OpenApiResponse(description="No such task"),
            409: OpenApiResponse(description="Already decided"),
        },
    )
    def post(self, request: Request, task_id: int) -> Response:
        task = _task_or_404(request, task_id)
        payload = ReviewDecideSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        data: dict[str, Any] = payload.validated_data
        try:
            decision = review_task_decide(
                user=request.user,
                task_id=task.pk,
                outcome=data["outcome"],
                reason=data.get("reason", ""),
                edited=data.get("edited"),
                request=request._request,
            )
        except ReviewAlreadyDecided as exc:
            return Response(
                {
                    "detail": str(exc),
                    "state": exc.task.state,
                    "decided_by": exc.task.decided_by.get_username() if exc.task.decided_by else None,
                },
                status=status.HTTP_409_CONFLICT,
            )
        if queue_unavailable(decision):  # recorded; the run resumes when the queue is back
            return queue_unavailable_response(ReviewDecisionSerializer(decision).data)
        return Response(ReviewDecisionSerializer(decision).data, status=status.HTTP_201_CREATED)
