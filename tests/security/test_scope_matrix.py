"""Issue 49, finding 1: every REST route × token scope (``api``, ``mcp``, both) × role, asked with
a real API token in the Authorization header (no session).

The expectations are the hand-written session rows of matrix_expected.py — a token with the
``api`` scope must get exactly what the same user gets signed in — and one rule for ``mcp``-only
tokens: 403 everywhere, except the public health probes. Before the fix an ``mcp`` token got 200,
201 or 204 from research and briefs. ``api/docs/`` is the browser page around the schema (it needs
a session and sends anyone else to the login page), so the walk asks ``api/schema/`` instead."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from django.test import Client

from tests.security.routes import Route, build_world, concrete_path
from tests.security.test_authorization_matrix import _ROUTES, matrix_cases

pytestmark = pytest.mark.slow  # every API route, three scopes, four roles

TOKEN_ROLES = ("b", "rev", "adm", "a")  # matrix_expected's columns after "anon", in its order
SCOPES = {"api": ["api"], "mcp": ["mcp"], "both": ["api", "mcp"]}
PUBLIC = {"api/v1/health", "api/v1/health/live"}


def rest_cases() -> list[tuple[str, str]]:
    return [
        (pattern, method)
        for _, pattern, method in matrix_cases()
        if pattern.startswith("api/v1/") or pattern == "api/schema/"
    ]


def expected_cell(pattern: str, method: str, scope: str, role: str) -> set[int]:
    from tests.security.matrix_expected import EXPECTED

    session_row = EXPECTED[(pattern, method)].split()[1:]  # drop anonymous
    session = {int(code) for code in session_row[TOKEN_ROLES.index(role)].split("|")}
    if scope == "mcp" and pattern not in PUBLIC:
        return {403}
    return session


def _observe(route: Route, method: str, scope: str) -> dict[str, int]:
    from core.services import api_token_create

    world = build_world()  # a fresh world per scope: the owner's DELETE must find its object
    path = concrete_path(route, world.ids)
    observed: dict[str, int] = {}
    for role in TOKEN_ROLES:
        raw = api_token_create(user=world.users[role], name=f"scope-{scope}", scopes=SCOPES[scope])[1]
        client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Bearer {raw}")
        if method == "GET":
            response: Any = client.get(path)
        else:
            response = client.generic(method, path, data=json.dumps({}), content_type="application/json")
        observed[role] = response.status_code
    return observed


@pytest.mark.django_db
def test_the_walk_covers_every_rest_route() -> None:
    cases = rest_cases()
    assert ("api/v1/research/documents", "POST") in cases
    assert ("api/v1/briefs/runs", "POST") in cases
    assert ("api/schema/", "GET") in cases
    assert len(cases) == 45  # the API schema's 44 operations and the schema itself


@pytest.mark.django_db
@pytest.mark.parametrize(("pattern", "method"), rest_cases() if _ROUTES else [])
def test_each_scope_and_role_gets_what_it_should(pattern: str, method: str) -> None:
    wrong: dict[str, dict[str, int]] = {}
    for scope in SCOPES:
        observed = _observe(_ROUTES[pattern], method, scope)
        bad = {r: got for r, got in observed.items() if got not in expected_cell(pattern, method, scope, r)}
        if bad:
            wrong[scope] = bad
        if os.environ.get("MATRIX_DUMP"):
            with open(os.environ["MATRIX_DUMP"], "a") as out:
                out.write(json.dumps([pattern, method, scope, observed]) + "\n")
    assert wrong == {}, f"{method} /{pattern}: unexpected {wrong} (roles {', '.join(TOKEN_ROLES)})"
