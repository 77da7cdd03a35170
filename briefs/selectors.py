"""Reads for briefs, always scoped: analysts see runs and briefs of watchlists they may see;
reviewers and admins see every brief (they approve them)."""

from __future__ import annotations

import difflib
from typing import Any

from django.db.models import QuerySet
from django.http import Http404

from briefs.models import Brief, BriefDelivery, BriefRun
from core.exceptions import ApplicationError
from core.roles import ADMIN, REVIEWER, has_role
from portfolios.models import Watchlist


def _watchlists(user: Any) -> QuerySet[Watchlist]:
    if has_role(user, REVIEWER, ADMIN):
        return Watchlist.objects.all()
    from portfolios.selectors import watchlist_list

    try:
        return watchlist_list(user=user)
    except Exception:  # a user without the portfolios area sees no watchlists
        return Watchlist.objects.none()


def watchlist_list(*, user: Any) -> QuerySet[Watchlist]:
    return _watchlists(user).order_by("name", "id")


def watchlist_get(*, user: Any, watchlist_id: int) -> Watchlist:
    try:
        return _watchlists(user).get(pk=watchlist_id)
    except (Watchlist.DoesNotExist, ValueError, TypeError):
        raise Http404("No such watchlist.") from None


def run_list(*, user: Any, watchlist_id: int | None = None) -> QuerySet[BriefRun]:
    qs = BriefRun.objects.filter(watchlist__in=_watchlists(user)).select_related("watchlist", "requested_by")
    return qs.filter(watchlist_id=watchlist_id) if watchlist_id is not None else qs


def run_get(*, user: Any, run_id: int) -> BriefRun:
    try:
        return run_list(user=user).get(pk=run_id)
    except BriefRun.DoesNotExist:
        raise Http404("No such run.") from None


def brief_list(*, user: Any, watchlist_id: int | None = None) -> QuerySet[Brief]:
    qs = Brief.objects.filter(watchlist__in=_watchlists(user)).select_related("watchlist", "run")
    return qs.filter(watchlist_id=watchlist_id) if watchlist_id is not None else qs


def brief_get(*, user: Any, brief_id: int) -> Brief:
    try:
        return brief_list(user=user).select_related("delivery").get(pk=brief_id)
    except Brief.DoesNotExist:
        raise Http404("No such brief.") from None


def brief_previous_approved(*, brief: Brief) -> Brief | None:
    return (
        Brief.objects.filter(
            watchlist_id=brief.watchlist_id, status=Brief.Status.APPROVED, created_at__lt=brief.created_at
        )
        .order_by("-created_at")
        .first()
    )


def brief_diff(*, brief: Brief) -> tuple[Brief | None, list[str]]:
    """Unified diff of the plain text against the previous approved brief of the watchlist."""
    previous = brief_previous_approved(brief=brief)
    if previous is None:
        return None, []
    lines = difflib.unified_diff(
        previous.body_text.splitlines(),
        brief.body_text.splitlines(),
        f"brief #{previous.pk}",
        f"brief #{brief.pk}",
        lineterm="",
    )
    return previous, list(lines)


def delivery_get(*, user: Any, brief_id: int) -> tuple[Brief, BriefDelivery]:
    """A visible brief and what was sent (or archived) for it; 404 when nothing was delivered yet."""
    brief = brief_get(user=user, brief_id=brief_id)
    delivery = getattr(brief, "delivery", None)
    if delivery is None:
        raise Http404("This brief has not been delivered.")
    return brief, delivery


def instrument_kinds(*, user: Any, symbols: set[str]) -> dict[str, str]:
    """Symbol → instrument kind (an index is priced in points), for showing a run's figures."""
    from portfolios.selectors import instruments_describe

    try:
        described = instruments_describe(user=user, symbols=sorted(s for s in symbols if s))
    except ApplicationError:  # a viewer without market access still sees the run, in currencies
        return {}
    return {symbol: info.kind for symbol, info in described.items()}
