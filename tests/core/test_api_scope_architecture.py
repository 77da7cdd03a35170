"""Issue 49, finding 1: every API view the URL conf routes checks sign-in and the token's ``api``
scope before its own area check, through core.permissions.api_permissions. A view that set its own
``permission_classes`` used to replace DRF's defaults and drop the scope check; this test fails
for any such view, so the hole cannot come back by accident. Public endpoints are named here."""

from __future__ import annotations

import inspect
from typing import Any

from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.views import APIView

from core.permissions import BASE_API_PERMISSIONS, TokenHasApiScope, api_permissions
from core.roles import HasArea

# The load balancer's probes: no sign-in, by design (core/apis.py).
PUBLIC_VIEWS = {"core.apis.HealthApi", "core.apis.HealthLiveApi"}


def _routed_api_views() -> dict[str, type[APIView]]:
    from tests.security.routes import all_routes

    found: dict[str, type[APIView]] = {}
    for route in all_routes():
        callback = inspect.unwrap(route.callback)  # login_required wraps the docs page
        view = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
        if isinstance(view, type) and issubclass(view, APIView):
            found[route.pattern] = view
    return found


def _name(view: type) -> str:
    return f"{view.__module__}.{view.__qualname__}"


def scope_check_missing(view: type[APIView]) -> bool:
    """True when ``view`` does not start with sign-in and the api-scope check."""
    classes = tuple(view.permission_classes)
    return classes[: len(BASE_API_PERMISSIONS)] != BASE_API_PERMISSIONS


def test_the_walk_finds_the_api_views() -> None:
    views = _routed_api_views()
    # A control for the walk itself: the areas' views and the schema are all there.
    assert views["api/v1/research/documents"].__name__ == "DocumentListCreateApi"
    assert views["api/v1/briefs/runs"].__name__ == "BriefRunListCreateApi"
    assert views["api/v1/portfolios"].__name__ == "PortfolioListCreateApi"
    assert views["api/schema/"].__name__ == "SpectacularAPIView"
    assert views["api/docs/"].__name__ == "SpectacularSwaggerSplitView"
    assert len(views) == 33  # every api/v1 route, the schema and its docs page


def test_every_routed_api_view_checks_the_token_scope() -> None:
    missing = sorted(
        f"{pattern} ({_name(view)})"
        for pattern, view in _routed_api_views().items()
        if _name(view) not in PUBLIC_VIEWS and scope_check_missing(view)
    )
    assert missing == []


def test_the_public_views_are_exactly_the_health_probes() -> None:
    public = {_name(v): list(v.permission_classes) for v in _routed_api_views().values() if _name(v) in PUBLIC_VIEWS}
    assert public == {name: [AllowAny] for name in PUBLIC_VIEWS}


def test_the_check_flags_a_view_that_names_only_its_area() -> None:
    # The bug of issue 49, rebuilt: an area check alone replaces the defaults.
    class OnlyArea(APIView):
        permission_classes = [HasArea.for_area("research")]

    class Composed(APIView):
        permission_classes = api_permissions(HasArea.for_area("research"))

    class Defaults(APIView):
        pass

    assert scope_check_missing(OnlyArea) is True
    assert scope_check_missing(Composed) is False
    assert scope_check_missing(Defaults) is False  # DEFAULT_PERMISSION_CLASSES name the same two
    assert Composed.permission_classes[:2] == [IsAuthenticated, TokenHasApiScope]


def test_no_api_module_lists_permissions_by_hand() -> None:
    # Source-level companion: permission_classes is assigned only from the helpers (or AllowAny for
    # the named public views), so a new view copies a safe pattern.
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    allowed_calls = {"api_permissions", "area_api_permissions"}
    bad: list[str] = []
    apps = ["core", "reviews", "portfolios", "research", "briefs", "evaluation", "mcp_bridge", "home", "config"]
    for path in (p for app in apps for p in (root / app).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Assign):
                continue
            if not any(isinstance(t, ast.Name) and t.id == "permission_classes" for t in node.targets):
                continue
            value: Any = node.value
            ok = isinstance(value, ast.Name) or (
                isinstance(value, ast.Call) and getattr(value.func, "id", "") in allowed_calls
            )
            if isinstance(value, ast.List) and [getattr(e, "id", "") for e in value.elts] == ["AllowAny"]:
                ok = True
            if not ok:
                bad.append(f"{path.relative_to(root)}:{node.lineno}")
    assert bad == []
