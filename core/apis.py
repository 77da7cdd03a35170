from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.health import health_report
from core.models import ApiToken
from core.roles import user_roles
from core.selectors import api_token_list
from core.serializers import (
    ApiTokenCreatedSerializer,
    ApiTokenCreateSerializer,
    ApiTokenSerializer,
    MeSerializer,
)
from core.services import api_token_create, api_token_revoke

_HealthSerializer = inline_serializer(
    "Health",
    {
        "status": serializers.ChoiceField(choices=["ok", "degraded"]),
        "components": serializers.DictField(),
        "llm_mode": serializers.ChoiceField(choices=["anthropic", "gemini", "deterministic"]),
        "market_data": serializers.CharField(),
    },
)


class HealthApi(APIView):
    """Readiness of every component: 200 when all are up, 503 with details otherwise. The Celery
    ping is cached for ``HEALTH_CELERY_CACHE_SECONDS``."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes: list[Any] = []  # load balancers poll it; it is cheap now

    @extend_schema(responses={200: _HealthSerializer, 503: _HealthSerializer}, auth=[])
    def get(self, request: Request) -> Response:
        healthy, report = health_report()
        return Response(report, status=status.HTTP_200_OK if healthy else status.HTTP_503_SERVICE_UNAVAILABLE)


class HealthLiveApi(APIView):
    """Liveness: the process serves requests. No database, Redis or Celery: cheap enough to poll."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes: list[Any] = []

    @extend_schema(
        responses={200: inline_serializer("Live", {"status": serializers.ChoiceField(choices=["ok"])})}, auth=[]
    )
    def get(self, request: Request) -> Response:
        return Response({"status": "ok"})


class MeApi(APIView):
    @extend_schema(responses=MeSerializer)
    def get(self, request: Request) -> Response:
        user = request.user
        return Response({"id": user.pk, "email": getattr(user, "email", ""), "roles": sorted(user_roles(user))})


class ApiTokenListCreateApi(APIView):
    @extend_schema(responses=ApiTokenSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(ApiTokenSerializer(api_token_list(user=request.user), many=True).data)

    @extend_schema(
        request=ApiTokenCreateSerializer,
        responses={
            201: ApiTokenCreatedSerializer,
            403: OpenApiResponse(description="A token may not create a token with a scope it lacks"),
            409: OpenApiResponse(description="The user already has API_TOKEN_MAX_ACTIVE_PER_USER active tokens"),
        },
    )
    def post(self, request: Request) -> Response:
        payload = ApiTokenCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        parent = request.auth if isinstance(request.auth, ApiToken) else None
        token, raw = api_token_create(
            user=request.user, request=request._request, parent=parent, **payload.validated_data
        )
        data = ApiTokenSerializer(token).data | {"token": raw}
        return Response(data, status=status.HTTP_201_CREATED)


class ApiTokenRevokeApi(APIView):
    @extend_schema(request=None, responses={200: ApiTokenSerializer, 404: OpenApiResponse(description="No such token")})
    def post(self, request: Request, token_id: int) -> Response:
        try:
            token = api_token_revoke(user=request.user, token_id=token_id, request=request._request)
        except DjangoPermissionDenied as exc:
            raise NotFound("No such token.") from exc
        return Response(ApiTokenSerializer(token).data)
