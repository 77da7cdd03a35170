"""OpenAPI description of our token authentication (drf-spectacular extension)."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "core.authentication.ApiTokenAuthentication"
    name = "ApiToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal API token (Settings → API tokens) with the 'api' scope: `Bearer adk_…`.",
        }


# --- hardening: error responses in the schema (issue 17, finding 8) --------------------------
ERROR_SCHEMA = {
    "type": "object",
    "description": "An error: `detail` says what went wrong in words; `error` is a stable code where one applies "
    "(e.g. invalid_input, conflict, too_large, internal_error); a 400 from a form lists messages per field.",
    "properties": {"detail": {}, "error": {"type": "string"}},
    "additionalProperties": True,
}
_ERROR_REF = {"$ref": "#/components/schemas/Error"}
_DESCRIPTIONS = {
    "400": "The input is not valid; the body says which field and why.",
    "401": "Not signed in: no, an invalid, an expired or a revoked token (or no session).",
    "403": "Signed in, but the token lacks the scope or the role does not open this area.",
    "404": "No such object, or it belongs to someone else (the two are not told apart).",
    "409": "Conflicts with the current state (e.g. the active-token limit).",
    "413": "The request body is over the limit.",
    "415": "The body is not in a content type this operation takes.",
    "429": "Too many requests for this user or token; `Retry-After` says when to try again.",
}


def _error_codes(path: str, method: str, operation: dict[str, Any]) -> set[str]:
    codes: set[str] = set()
    authenticated = bool(operation.get("security")) and {} not in operation["security"]
    if authenticated:
        codes |= {"401", "403", "429"}
    has_body = "requestBody" in operation
    if has_body or any(p.get("in") == "query" for p in operation.get("parameters", [])):
        codes.add("400")
    if has_body or method in {"post", "put", "patch", "delete"}:
        codes |= {"400", "413"}
    if has_body and "application/json" not in operation["requestBody"].get("content", {}):
        codes.add("415")  # e.g. the upload takes multipart only
    if "{" in path or (authenticated and has_body):
        codes.add("404")  # the object in the path, or one the body names (a watchlist, a conversation)
    return codes


def document_error_responses(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: every operation lists the error statuses it can answer
    (401/403/429 behind authentication, 400/413 with a body or query, 404 with a path id), each
    with the shared ``Error`` body, unless the view documented its own."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            for code in sorted(_error_codes(path, method, operation)):
                entry = responses.setdefault(code, {"description": _DESCRIPTIONS[code]})
                entry.setdefault("content", {"application/json": {"schema": _ERROR_REF}})
    return result


# Python's str.strip() (DRF's trim_whitespace) removes what JSON Schema's \s does not (\x1c-\x1f,
# \x85): a non-empty text must contain a character that survives it.
NOT_BLANK = r"[^\s\x1c-\x1f\x85]"


class AlphaDeskAutoSchema(AutoSchema):
    """drf-spectacular's schema, saying what DRF refuses: a text field that may not be blank gets
    ``minLength: 1`` and a non-space ``pattern``; a list that may not be empty ``minItems: 1``."""

    def _map_serializer_field(self, field: Any, direction: Any, bypass_extensions: bool = False) -> dict[str, Any]:
        result: dict[str, Any] = super()._map_serializer_field(field, direction, bypass_extensions)
        if field.read_only:
            return result
        if isinstance(field, serializers.CharField) and not isinstance(field, serializers.ChoiceField):
            plain = result.get("type") == "string" and "format" not in result and "enum" not in result
            if plain and not field.allow_blank:
                result.setdefault("minLength", 1)
                if field.trim_whitespace:
                    result.setdefault("pattern", NOT_BLANK)
        if isinstance(field, serializers.ListField) and not field.allow_empty and result.get("type") == "array":
            result.setdefault("minItems", 1)
        return result
