"""Brief pages (thin: services and selectors do the work)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_http_methods

from briefs import selectors, services
from briefs.claims import BriefDraft, Claim
from briefs.filters import BriefFilter
from briefs.models import Brief, BriefRun, BriefStep
from briefs.renderings import claim_rows, staleness
from briefs.steps import error_rows, step_rows
from core.htmx import HtmxHttpRequest
from core.roles import area_required
from core.tasks import QUEUE_DOWN_NOTICE, queue_unavailable


@area_required("briefs")
@require_http_methods(["GET"])
def index(request: HttpRequest) -> HttpResponse:
    watchlists = selectors.watchlist_list(user=request.user)
    filterset = BriefFilter(request.GET, queryset=selectors.brief_list(user=request.user), watchlists=watchlists)
    valid = filterset.is_valid()
    briefs = Paginator(filterset.qs if valid else Brief.objects.none(), PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"watchlists": watchlists, "briefs": briefs, "brief_filter": filterset, "query": _query(request, "page")}
    return render(request, "briefs/index.html", context, status=200 if valid else 400)


PAGE_SIZE = 25


def _query(request: HttpRequest, *drop: str) -> str:
    params = request.GET.copy()
    for name in drop:
        params.pop(name, None)
    return params.urlencode()


def _watchlist_context(request: HttpRequest, watchlist_id: int) -> dict[str, object]:
    watchlist = selectors.watchlist_get(user=request.user, watchlist_id=watchlist_id)
    runs = selectors.run_list(user=request.user, watchlist_id=watchlist.pk)
    briefs = selectors.brief_list(user=request.user, watchlist_id=watchlist.pk)
    return {
        "watchlist": watchlist,
        "runs": Paginator(runs, PAGE_SIZE).get_page(request.GET.get("runs_page")),
        "briefs": Paginator(briefs, PAGE_SIZE).get_page(request.GET.get("page")),
        "runs_query": _query(request, "runs_page"),
        "query": _query(request, "page"),
    }


@area_required("briefs")
@require_http_methods(["GET"])
def watchlist_detail(request: HttpRequest, watchlist_id: int) -> HttpResponse:
    return render(request, "briefs/watchlist.html", _watchlist_context(request, watchlist_id))


@area_required("briefs")
@require_http_methods(["POST"])
def run_start(request: HttpRequest, watchlist_id: int) -> HttpResponse:
    try:
        run = services.brief_run_start(user=request.user, watchlist_id=watchlist_id, trigger=BriefRun.Trigger.BUTTON)
    except services.RunAlreadyActive as exc:
        context = {**_watchlist_context(request, watchlist_id), "error": str(exc), "active_run": exc.run}
        return render(request, "briefs/watchlist.html", context, status=409)
    except (ValidationError, PermissionDenied) as exc:
        message = "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
        context = {**_watchlist_context(request, watchlist_id), "error": message}
        return render(
            request, "briefs/watchlist.html", context, status=400 if isinstance(exc, ValidationError) else 403
        )
    if queue_unavailable(run):
        messages.warning(request, QUEUE_DOWN_NOTICE)
    return redirect("briefs:run", run_id=run.pk)


def _symbols(run: BriefRun, steps: list[BriefStep]) -> set[str]:
    return {*run.tickers, *(str(s.inputs.get("ticker", "")) for s in steps if s.inputs)}


@area_required("briefs")
@require_http_methods(["GET"])
def run_detail(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    run = selectors.run_get(user=request.user, run_id=run_id)
    steps = list(run.steps.all())
    context = {
        "run": run,
        "steps": step_rows(steps, selectors.instrument_kinds(user=request.user, symbols=_symbols(run, steps))),
        "errors": error_rows(run.errors or []),
        "brief": getattr(run, "brief", None),
    }
    if request.htmx:
        return render(request, "briefs/run.html#run_progress", context)
    return render(request, "briefs/run.html", context)


@area_required("briefs")
@require_http_methods(["GET"])
def brief_detail(request: HttpRequest, brief_id: int) -> HttpResponse:
    brief = selectors.brief_get(user=request.user, brief_id=brief_id)
    previous, diff = selectors.brief_diff(brief=brief)
    draft = BriefDraft.model_validate(brief.draft)
    claims = [Claim.model_validate(c) for c in brief.claims]
    context = {
        "brief": brief,
        "claims": claim_rows(claims, brief.verification),
        "stale": staleness(draft),
        "previous": previous,
        "diff": diff,
        "delivery": getattr(brief, "delivery", None),
    }
    return render(request, "briefs/brief.html", context)


@area_required("briefs")
@require_http_methods(["GET"])
def delivery_detail(request: HttpRequest, brief_id: int) -> HttpResponse:
    """What was sent (or archived): subject, recipients, the email as sent, and its plain text."""
    brief, delivery = selectors.delivery_get(user=request.user, brief_id=brief_id)
    return render(request, "briefs/delivered.html", {"brief": brief, "delivery": delivery})


@area_required("briefs")
@require_http_methods(["GET"])
@xframe_options_sameorigin
def delivery_email(request: HttpRequest, brief_id: int) -> HttpResponse:
    """The archived email HTML exactly as sent, framed by the delivered page. It carries only
    inline styles, so its own policy allows those and nothing else (no scripts, no remote loads)."""
    _, delivery = selectors.delivery_get(user=request.user, brief_id=brief_id)
    response = HttpResponse(delivery.html, content_type="text/html; charset=utf-8")
    response["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'; base-uri 'none'"
    )
    response["X-Content-Type-Options"] = "nosniff"
    return response
