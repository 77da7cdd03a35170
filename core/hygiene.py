"""Input and output hygiene at the edge (issue 49, findings 2 and 3).

Input: control characters (NUL and the rest of C0, and DEL; tab, line feed and carriage return
stay, since text areas send them) in a query string, a form field or a JSON string are refused
with a 400 before any view runs. PostgreSQL cannot store NUL in text, so ``?q=a%00b`` used to reach
a query and crash with a 500; no field of ours has a use for the others.

Output: :func:`csv_safe` is OWASP's rule against formula injection, applied by every CSV export."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse

CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
REFUSAL = "The request contains a control character (such as NUL); remove it and send the request again."


def _has_control(values: Iterable[str]) -> bool:
    return any(CONTROL.search(value) for value in values)


def _json_strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _json_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _json_strings(item)


def _form_strings(query: Any) -> Iterable[str]:
    for key, values in query.lists():
        yield key
        yield from values


def request_has_control_characters(request: HttpRequest) -> bool:
    """True when the query string, a form field or a JSON string holds a control character."""
    if _has_control(_form_strings(request.GET)):
        return True
    content_type = request.META.get("CONTENT_TYPE", "")
    if request.method in {"GET", "HEAD", "OPTIONS"}:
        return False
    if content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        return _has_control(_form_strings(request.POST))  # uploaded files' bytes are not fields
    if content_type.startswith("application/json") or content_type.endswith("+json"):
        try:
            body = json.loads(request.body)
        except ValueError:
            return False  # not JSON: the parser answers 400 with its own reason
        return _has_control(_json_strings(body))
    return False


class ControlCharacterMiddleware:
    """400 for a request carrying a control character (JSON under ``/api/``, text elsewhere)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request_has_control_characters(request):
            if request.path.startswith("/api/"):
                return JsonResponse({"error": "invalid_input", "detail": REFUSAL}, status=400)
            return HttpResponse(REFUSAL, status=400, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


# OWASP (CSV injection): a cell starting with one of these is read as a formula by spreadsheets.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: Any) -> Any:
    """``value`` for a CSV cell: text starting with a formula character gets a leading ``'`` so a
    spreadsheet shows it as text. Non-text values (numbers, None) pass unchanged."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def csv_safe_row(values: Iterable[Any]) -> list[Any]:
    return [csv_safe(value) for value in values]
