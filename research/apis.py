"""REST API for the document library and search (thin: services, selectors and the tool do the work)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import queue_unavailable_response
from core.permissions import area_api_permissions
from core.tasks import queue_unavailable
from core.tools import call_tool
from research.document_details import document_details_update
from research.selectors import document_get, document_list
from research.serializers import (
    DocumentDetailsSerializer,
    DocumentSerializer,
    DocumentUploadResultSerializer,
    DocumentUploadSerializer,
    UploadedDocumentSerializer,
)
from research.services import UploadFile, document_delete, document_upload

_permissions = area_api_permissions("research")

_SearchSerializer = inline_serializer(
    "DocumentSearch",
    {
        "query": serializers.CharField(),
        "top_k": serializers.IntegerField(required=False, default=5, min_value=1, max_value=50),
        "filters": serializers.DictField(
            required=False, help_text="doc_types, issuers, tags, document_ids, date_from, date_to"
        ),
    },
)


class DocumentListCreateApi(APIView):
    permission_classes = _permissions
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        responses=DocumentSerializer(many=True),
        parameters=[OpenApiParameter("status", str, description="queued, processing, done or failed")],
    )
    def get(self, request: Request) -> Response:
        docs = document_list(user=request.user, status=request.query_params.get("status", ""))[:500]
        return Response(DocumentSerializer(docs, many=True).data)

    @extend_schema(
        request={"multipart/form-data": DocumentUploadSerializer},
        responses={
            201: DocumentUploadResultSerializer,
            200: DocumentUploadResultSerializer,
            400: OpenApiResponse(description="No file accepted"),
            503: OpenApiResponse(description="Saved; the work queue is down and ingestion starts when it is back"),
        },
    )
    def post(self, request: Request) -> Response:
        raw: Any = request.data  # a QueryDict for multipart bodies
        keys = (
            "title",
            "issuer",
            "doc_type",
            "doc_date",
            "period_start",
            "period_end",
            "fiscal_period",
            "tags",
            "visibility",
        )
        fields = {key: raw.get(key) for key in keys}
        fields = {key: value for key, value in fields.items() if value is not None}
        payload = DocumentUploadSerializer(data={**fields, "files": request.FILES.getlist("files")})
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        if len(data["files"]) > settings.RESEARCH_MAX_FILES_PER_UPLOAD:
            raise serializers.ValidationError(
                {"files": f"At most {settings.RESEARCH_MAX_FILES_PER_UPLOAD} files per upload."}
            )
        result = document_upload(
            user=request.user,
            files=[UploadFile.from_upload(f) for f in data["files"]],
            visibility=data["visibility"],
            title=data["title"],
            issuer=data["issuer"],
            doc_type=data["doc_type"],
            doc_date=data["doc_date"],
            period_start=data["period_start"],
            period_end=data["period_end"],
            fiscal_period=data["fiscal_period"],
            tags=data["tags"].split(","),
            request=request._request,
        )
        body = {
            "created": UploadedDocumentSerializer(
                result.created, many=True, context={"proposals": result.proposals}
            ).data,
            "duplicates": DocumentSerializer(result.duplicates, many=True).data,
            "rejected": [{"filename": name, "reason": reason} for name, reason in result.rejected],
        }
        if queue_unavailable(*result.created, *result.duplicates):  # saved; the sweep sends it later
            return queue_unavailable_response(body)
        code: int
        if result.created:
            code = status.HTTP_201_CREATED
        elif result.duplicates:
            code = status.HTTP_200_OK
        else:
            code = status.HTTP_400_BAD_REQUEST
        return Response(body, status=code)


class DocumentDetailApi(APIView):
    permission_classes = _permissions

    @extend_schema(responses={200: DocumentSerializer, 404: OpenApiResponse(description="No such document")})
    def get(self, request: Request, document_id: int) -> Response:
        return Response(DocumentSerializer(self._get(request, document_id)).data)

    @extend_schema(
        responses={
            204: None,
            403: OpenApiResponse(description="Not the owner"),
            404: OpenApiResponse(description="No such document"),
        }
    )
    def delete(self, request: Request, document_id: int) -> Response:
        document = self._get(request, document_id)
        try:
            document_delete(user=request.user, document=document, request=request._request)
        except DjangoPermissionDenied as exc:
            raise PermissionDenied(str(exc)) from exc
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        request=DocumentDetailsSerializer,
        responses={
            200: DocumentSerializer,
            400: OpenApiResponse(description="A field is not valid (each named with its reason); nothing was changed"),
            403: OpenApiResponse(description="Not the owner (or a reference document and not an admin)"),
            404: OpenApiResponse(description="No such document"),
        },
        description="Confirm or correct a document's details — those proposed at upload from its cover "
        "page (company, form, fiscal period, period, filing date) or any other. Send only the fields to change.",
    )
    def patch(self, request: Request, document_id: int) -> Response:
        document = self._get(request, document_id)
        payload = DocumentDetailsSerializer(data=request.data, partial=True)
        payload.is_valid(raise_exception=True)
        try:
            updated = document_details_update(
                user=request.user, document=document, changes=dict(payload.validated_data), request=request._request
            )
        except DjangoPermissionDenied as exc:
            raise PermissionDenied(str(exc)) from exc
        return Response(DocumentSerializer(updated).data)

    @staticmethod
    def _get(request: Request, document_id: int) -> Any:
        from django.http import Http404

        try:
            return document_get(user=request.user, document_id=document_id)
        except Http404 as exc:
            raise NotFound("No such document.") from exc


class DocumentSearchApi(APIView):
    """Hybrid search; the same code path (and output) as the ``search_financial_documents`` tool."""

    permission_classes = _permissions
    parser_classes = [JSONParser]

    @extend_schema(
        request=_SearchSerializer,
        responses={
            200: OpenApiResponse(description="Passages with citations"),
            400: OpenApiResponse(description="Invalid query"),
        },
    )
    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise serializers.ValidationError({"detail": "Send a JSON object with a query."})
        outcome = call_tool("search_financial_documents", request.data, user=request.user)
        if not outcome.ok:
            assert outcome.error is not None
            code: int = status.HTTP_403_FORBIDDEN if outcome.error.error == "forbidden" else status.HTTP_400_BAD_REQUEST
            if outcome.error.error == "internal_error":
                code = status.HTTP_500_INTERNAL_SERVER_ERROR
            return Response(outcome.as_dict(), status=code)
        return Response(outcome.as_dict())
