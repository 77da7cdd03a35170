"""The home page: what each role needs first, every item linking to its page."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from core.health import health_report
from core.roles import area_required, can_access
from home import selectors
from home.watchlists import watchlist_cards


@login_required
@require_http_methods(["GET"])
def index(request: HttpRequest) -> HttpResponse:
    user = request.user
    context: dict[str, Any] = {"now": timezone.now()}
    if can_access(user, "admin"):
        context["admin_counts"] = selectors.admin_counts()
    if can_access(user, "reviews"):
        context["review_queue"] = selectors.review_queue(user=user)
    if can_access(user, "portfolios"):
        context["watchlist_cards"] = watchlist_cards(user=user)
    if can_access(user, "briefs"):
        context["latest_briefs"] = selectors.latest_briefs(user=user)
    if can_access(user, "research"):
        context["conversations"] = selectors.recent_conversations(user=user)
        context["library"] = selectors.library_status(user=user)
    return render(request, "home/index.html", context)


@area_required("admin")
@require_http_methods(["GET"])
def health_panel(request: HttpRequest) -> HttpResponse:
    """The /api/v1/health components as a panel (loaded after the page: the Celery ping can take a second)."""
    healthy, report = health_report()
    return render(request, "home/index.html#health", {"healthy": healthy, "report": report})
