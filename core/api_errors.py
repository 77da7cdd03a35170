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
from django.db import InterfaceError, OperationalError
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.exceptions import ApplicationError
from core.tasks import QUEUE_DOWN_NOTICE

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
    "storage_unavailable": 503,  # the file store (bucket) is unreachable: core/storage.py
}
# Whether what was sent is saved is not known when something unexpected fails, so neither answer
# promises it; a client reads the resource again before sending twice.
INTERNAL_ERROR_DETAIL = (
    "Something went wrong on our side; the error was logged. "
    "Check whether your change was saved before sending it again."
)
DATABASE_DOWN_DETAIL = (
    "The database is unavailable right now; what you sent may not have been saved. Try again in a minute."
)
# Seconds a client waits before trying again after a 503 (a sweep runs every minute).
RETRY_AFTER_SECONDS = "60"


def internal_error_body() -> dict[str, str]:
    return {"error": "internal_error", "detail": INTERNAL_ERROR_DETAIL}


def queue_unavailable_response(body: dict[str, Any]) -> Response:
    """The answer to a write whose row is saved while the work queue could not take its task: 503
    with the saved resource, so a client neither retries (the sweep sends it) nor thinks it ran."""
    answer = {**body, "error": "queue_unavailable", "detail": QUEUE_DOWN_NOTICE, "notice": QUEUE_DOWN_NOTICE}
    return Response(answer, status=503, headers={"Retry-After": RETRY_AFTER_SECONDS})


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
    if isinstance(exc, OperationalError | InterfaceError):
        logger.warning("database unavailable in %s: %s", type(context.get("view")).__name__, exc)
        body = {"error": "database_unavailable", "detail": DATABASE_DOWN_DETAIL}
        return Response(body, status=503, headers={"Retry-After": RETRY_AFTER_SECONDS})
    response = drf_exception_handler(exc, context)
    if response is None:
        view = context.get("view")
        logger.exception("unhandled error in %s", type(view).__name__ if view else "an API view", exc_info=exc)
        return Response(internal_error_body(), status=500)
    return response
