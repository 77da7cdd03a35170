"""Every route of the URL conf (and every method the API schema lists for API routes), made
concrete with the ids of a small world owned by analyst A: what the authorization matrix walks."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver

ROLES = ("anon", "b", "rev", "adm", "a")  # the order the matrix asks in: the owner last


@dataclass(frozen=True)
class Route:
    name: str  # namespace:name, or the pattern itself when unnamed
    pattern: str  # the URL pattern with its placeholders, e.g. api/v1/portfolios/<int:portfolio_id>
    callback: Any


def all_routes() -> list[Route]:
    found: list[Route] = []

    def walk(patterns: list[Any], prefix: str, namespace: str) -> None:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                inner = (
                    f"{namespace}:{entry.namespace}" if namespace and entry.namespace else entry.namespace or namespace
                )
                walk(entry.url_patterns, prefix + str(entry.pattern), inner or "")
            elif isinstance(entry, URLPattern):
                pattern = prefix + str(entry.pattern)
                name = f"{namespace}:{entry.name}" if namespace and entry.name else entry.name or ""
                found.append(Route(name=name or pattern, pattern=pattern, callback=entry.callback))

    walk(get_resolver().url_patterns, "", "")
    return found


@dataclass
class World:
    users: dict[str, Any]
    ids: dict[str, str]


def _users(tag: str) -> dict[str, Any]:
    from core.services import user_ensure

    def make(key: str, *roles: str, staff: bool = False) -> Any:
        return user_ensure(email=f"{key}-{tag}@example.test", roles=list(roles), password=None, staff=staff)[0]

    return {
        "a": make("a", "analyst"),
        "b": make("b", "analyst"),
        "rev": make("rev", "reviewer"),
        "adm": make("adm", "admin", "analyst", "reviewer", staff=True),
    }


def _research_objects(a: Any, tag: str) -> dict[str, str]:
    from django.core.files.base import ContentFile

    from research.chat.models import Conversation, Turn
    from research.models import Document

    document = Document.objects.create(
        owner=a,
        visibility=Document.Visibility.PRIVATE,
        title="Notes",
        kind="txt",
        filename="notes.txt",
        file=ContentFile(b"Private notes.", name="notes.txt"),
        size_bytes=14,
        content_hash=tag.ljust(64, "0"),
        status="ready",
    )
    conversation = Conversation.objects.create(owner=a, title="Repo rate")
    turn = Turn.objects.create(conversation=conversation, index=1, question="What is the repo rate?", status="done")
    return {"document_id": str(document.pk), "conversation_id": str(conversation.pk), "turn_id": str(turn.pk)}


def _portfolio_objects(a: Any, tag: str) -> dict[str, str]:
    from briefs.models import Brief, BriefRun
    from portfolios.models import Holding, Portfolio, Watchlist
    from reviews.services import review_task_request

    portfolio = Portfolio.objects.create(owner=a, name=f"Private {tag}")
    Holding.objects.create(portfolio=portfolio, ticker="INFY.NS", weight=1.0)
    watchlist = Watchlist.objects.create(owner=a, name=f"Watch {tag}", tickers=["INFY.NS"])
    run = BriefRun.objects.create(watchlist=watchlist, requested_by=a, trigger="button", status="done")
    # The smallest draft the brief page renders: a title, an empty lead and no sections.
    draft = {"title": "Brief", "summary": "", "sections": []}
    brief = Brief.objects.create(run=run, watchlist=watchlist, title="Brief", draft=draft, body_text="", body_html="")
    task = review_task_request(
        requested_by=a,
        subject_owner=a,
        kind="brief_approval",
        title="Brief",
        graph_name="review_probe",
        thread_id=f"t-{tag}",
        payload={"brief": {"title": "Brief"}, "claims": [], "editable": {"body": ""}},
    )
    return {
        "portfolio_id": str(portfolio.pk),
        "watchlist_id": str(watchlist.pk),
        "run_id": str(run.pk),
        "brief_id": str(brief.pk),
        "task_id": str(task.pk),
    }


def build_world() -> World:
    """Analyst A owns a private portfolio, watchlist, document, conversation with a finished turn,
    a brief run and its brief, a review task and an API token; B, a reviewer and an admin exist."""
    from core.services import api_token_create

    tag = uuid.uuid4().hex[:6]
    users = _users(tag)
    a = users["a"]
    token = api_token_create(user=a, name="matrix")[0]
    ids = {
        **_research_objects(a, tag),
        **_portfolio_objects(a, tag),
        "token_id": str(token.pk),
        "symbol": "INFY.NS",
        "object_id": "999999",
        "app_label": "core",
        "url": "no-such-page/",
        "uidb36": "zz",
        "key": "nokey",
    }
    return World(users=users, ids=ids)


_PLACEHOLDER = re.compile(r"<(?:\w+:)?(\w+)>")
_REGEX_GROUP = re.compile(r"\(\?P<(\w+)>[^)]*\)")


def concrete_path(route: Route, ids: dict[str, str]) -> str:
    """The route's URL with the world's ids (unknown admin objects get an id that does not exist)."""
    path = route.pattern
    if path.startswith("admin/^") or "(?P<" in path:
        path = path.replace("^", "").replace("$", "")
        path = _REGEX_GROUP.sub(lambda m: ids.get(m.group(1), "0"), path)
    path = _PLACEHOLDER.sub(lambda m: ids.get(m.group(1), "0"), path)
    return "/" + path
