"""The authorization matrix: every route of the URL conf — and, for the API, every method its
OpenAPI schema lists — asked by five roles {anonymous, analyst B, reviewer, admin, analyst A (the
owner of every object in the world)} → the status each must get, written in EXPECTED by hand from
the role table in docs/architecture.md (Research, Briefs, Evaluation: everyone; Portfolios: analysts and admins;
Reviews: reviewers and admins; Django admin: admins) and the rule that another user's private
object is a 404, never a 403 (its existence is not revealed).

A route without an expectation fails the test, so a new route cannot ship unexamined. Every HTML
answer is also checked for the Content-Security-Policy (tests/security/test_headers.py)."""

from __future__ import annotations

import json
import os
from functools import cache
from typing import Any

import pytest
from django.test import Client

from tests.security.routes import ROLES, Route, all_routes, build_world, concrete_path
from tests.security.test_headers import assert_page_is_csp_clean

pytestmark = pytest.mark.slow  # every route for every role: a sweep, not a unit

# Page routes that only take POST (the matrix posts an empty form to them).
POST_ONLY = {
    "research:upload",
    "research:document-delete",
    "research-chat:ask",
    "research-chat:turn-cancel",
    "briefs:run-start",
    "portfolios:portfolio_delete",
    "portfolios:watchlist_delete",
    "reviews:decide",
    "api-token-revoke",
    "account_logout",
}


@cache
def _schema_methods() -> dict[str, list[str]]:
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    return {
        path: [m.upper() for m in ops if m in {"get", "post", "put", "patch", "delete"}] for path, ops in paths.items()
    }


def _schema_path(route: Route) -> str:
    import re

    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route.pattern)


def matrix_cases() -> list[tuple[str, str, str]]:
    """(route name, pattern, method) for every route and method."""
    cases: list[tuple[str, str, str]] = []
    for route in all_routes():
        if route.pattern.startswith("api/v1/"):
            methods = _schema_methods().get(_schema_path(route))
            assert methods, f"{route.pattern} is routed but missing from the API schema"
        else:
            methods = ["POST"] if route.name in POST_ONLY else ["GET"]
        cases.extend((route.name, route.pattern, method) for method in methods)
    return cases


def _ask(client: Client, method: str, path: str, api: bool) -> Any:
    if method == "GET":
        return client.get(path)
    if api:
        return client.generic(method, path, data=json.dumps({}), content_type="application/json")
    return client.generic(method, path, data="", content_type="application/x-www-form-urlencoded")


def _observe(route: Route, method: str) -> list[int]:
    world = build_world()
    path = concrete_path(route, world.ids)
    statuses = []
    for role in ROLES:
        client = Client(raise_request_exception=False)
        if role != "anon":
            client.force_login(world.users[role])
        response = _ask(client, method, path, route.pattern.startswith("api/"))
        statuses.append(response.status_code)
        if response.get("Content-Type", "").startswith("text/html") and response.status_code == 200:
            assert_page_is_csp_clean(response)
    return statuses


_ROUTES = {r.pattern: r for r in all_routes()} if os.environ.get("DJANGO_SETTINGS_MODULE") else {}


@pytest.mark.django_db
def test_every_route_has_an_expectation() -> None:
    from tests.security.matrix_expected import EXPECTED

    cases = {(pattern, method) for _, pattern, method in matrix_cases()}
    assert cases - set(EXPECTED) == set(), "routes without an expected row"
    assert set(EXPECTED) - cases == set(), "expected rows for routes that no longer exist"


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "pattern", "method"), matrix_cases() if _ROUTES else [])
def test_route_answers_each_role_as_expected(name: str, pattern: str, method: str) -> None:
    from tests.security.matrix_expected import EXPECTED

    observed = _observe(_ROUTES[pattern], method)
    if os.environ.get("MATRIX_DUMP"):
        with open(os.environ["MATRIX_DUMP"], "a") as out:
            out.write(json.dumps([pattern, method, observed]) + "\n")
        return
    row = EXPECTED[(pattern, method)]
    expected = [{int(code) for code in cell.split("|")} for cell in row.split()]
    wrong = {role: got for role, got, allowed in zip(ROLES, observed, expected, strict=True) if got not in allowed}
    assert not wrong, f"{method} /{pattern} ({name}): got {wrong}, expected {row} ({', '.join(ROLES)})"
