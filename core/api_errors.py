"""API errors are always JSON: the DRF exception handler for errors raised in API views, and
:class:`core.middleware.ApiErrorMiddleware` for what happens outside them (unknown URLs, bodies
over the limit, a crash below DRF).

Shapes: DRF's own (``{"detail": ...}`` or field messages) for 4xx; a domain
:class:`~core.exceptions.ApplicationError` becomes ``{"error": code, "detail": message}`` with a
fitting status; anything unexpected a logged 500 ``{"error": "internal_error", "detail": ...}``.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import (
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.exceptions import ApplicationError

logger = logging.getLogger("core.api")

#: Status of a domain error code at the API edge; any other code is a 400 (the input is wrong).
APPLICATION_ERROR_STATUS = {
    "forbidden": 403,
    "not_found": 404,
    "unknown_ticker": 404,
    "no_data": 404,
    "conflict": 409,
    "too_large": 413,
    "provider_unavailable": 503,
}
INTERNAL_ERROR_DETAIL = "Something went wrong on our side; the error was logged. Nothing you sent was lost."


def internal_error_body() -> dict[str, str]:
    return {"error": "internal_error", "detail": INTERNAL_ERROR_DETAIL}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RequestDataTooBig | TooManyFieldsSent | TooManyFilesSent):
        return Response({"error": "too_large", "detail": str(exc) or "The request is too large."}, status=413)
    if isinstance(exc, SuspiciousOperation):
        return Response({"error": "invalid_input", "detail": "The request is malformed."}, status=400)
    if isinstance(exc, DjangoValidationError):
        detail: Any = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
        exc = ValidationError(detail)
    if isinstance(exc, ApplicationError):
        body = {"error": exc.code, "detail": exc.message, **({"details": exc.details} if exc.details else {})}
        return Response(body, status=APPLICATION_ERROR_STATUS.get(exc.code, 400))
    response = drf_exception_handler(exc, context)
    if response is None:
        view = context.get("view")
        logger.exception("unhandled error in %s", type(view).__name__ if view else "an API view", exc_info=exc)
        return Response(internal_error_body(), status=500)
    return response
