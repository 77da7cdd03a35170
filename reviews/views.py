"""Reviewer inbox, task detail + decision, audit history and CSV export (thin views)."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import Any, cast

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.template.loader import select_template
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from core.htmx import HtmxHttpRequest
from core.hygiene import csv_safe_row
from core.models import AuditEvent
from core.roles import area_required
from core.tasks import QUEUE_DOWN_NOTICE, queue_unavailable
from reviews.filters import AuditEventFilter, ReviewTaskFilter
from reviews.models import ReviewTask
from reviews.selectors import audit_event_list, review_task_get, review_task_list
from reviews.services import ReviewAlreadyDecided, review_task_decide

PAGE_SIZE = 25
CSV_COLUMNS = [
    "id",
    "created_at",
    "actor",
    "action",
    "subject_type",
    "subject_id",
    "subject_label",
    "before",
    "after",
    "ip",
    "user_agent",
    "prev_hash",
    "row_hash",
]


@area_required("reviews")
@require_http_methods(["GET"])
def index(request: HtmxHttpRequest) -> HttpResponse:
    data = request.GET.copy()
    data.setdefault("state", ReviewTask.State.PENDING)  # the inbox opens on what waits
    filterset = ReviewTaskFilter(data, queryset=review_task_list(user=request.user), request=request)
    valid = filterset.is_valid()
    tasks = Paginator(filterset.qs if valid else ReviewTask.objects.none(), PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"filter": filterset, "tasks": tasks, "now": timezone.now(), "querystring": _querystring(request)}
    template = "reviews/index.html#task_table" if request.htmx else "reviews/index.html"
    return render(request, template, context, status=200 if valid else 400)


def _querystring(request: HttpRequest) -> str:
    params = request.GET.copy()
    params.pop("page", None)
    return params.urlencode()


def _detail_context(request: HttpRequest, task: ReviewTask, **extra: Any) -> dict[str, Any]:
    kind_template = select_template([f"reviews/kinds/_{task.kind}.html", "reviews/kinds/_generic.html"])
    editable = task.payload.get("editable") if isinstance(task.payload.get("editable"), dict) else {}
    user = request.user
    four_eyes = user.pk in {task.requested_by_id, task.subject_owner_id}
    return {
        "task": task,
        "payload": task.payload,
        "kind_template": kind_template,
        "editable": editable,
        "four_eyes": four_eyes,
        "decision": getattr(task, "decision", None),
        "now": timezone.now(),
        **extra,
    }


def _get_task(request: HttpRequest, task_id: int) -> ReviewTask:
    try:
        return review_task_get(user=request.user, task_id=task_id)
    except ReviewTask.DoesNotExist as exc:
        raise Http404("No such review task.") from exc


@area_required("reviews")
@require_http_methods(["GET"])
def detail(request: HttpRequest, task_id: int) -> HttpResponse:
    task = _get_task(request, task_id)
    return render(request, "reviews/detail.html", _detail_context(request, task))


@area_required("reviews")
@require_http_methods(["POST"])
def decide(request: HttpRequest, task_id: int) -> HttpResponse:
    task = _get_task(request, task_id)
    editable = task.payload.get("editable") if isinstance(task.payload.get("editable"), dict) else {}
    edited = {key: request.POST[f"edited-{key}"] for key in editable if f"edited-{key}" in request.POST}
    outcome = request.POST.get("outcome", "")
    try:
        decision = review_task_decide(
            user=request.user,
            task_id=task.pk,
            outcome=outcome,
            reason=request.POST.get("reason", ""),
            edited=edited,
            request=request,
        )
    except ReviewAlreadyDecided as exc:
        messages.warning(request, f"{exc} Your decision was not recorded.")
        return render(request, "reviews/detail.html", _detail_context(request, _get_task(request, task_id)), status=409)
    except PermissionDenied as exc:
        context = _detail_context(request, task, form_errors=[str(exc)], posted=request.POST)
        return render(request, "reviews/detail.html", context, status=403)
    except ValidationError as exc:
        errors = exc.message_dict
        form_errors = [m for key, msgs in errors.items() if key not in {"reason", "edited"} for m in msgs]
        context = _detail_context(request, task, errors=errors, form_errors=form_errors, posted=request.POST)
        return render(request, "reviews/detail.html", context, status=400)
    label = {"approve": "approved", "edit": "approved with your edits", "reject": "rejected"}[outcome]
    if queue_unavailable(decision):
        messages.warning(request, f"Task #{task.pk} {label}. {QUEUE_DOWN_NOTICE}")
    else:
        messages.success(request, f"Task #{task.pk} {label}. The paused run resumes now.")
    return redirect("reviews:index")


def _audit_filter(request: HttpRequest) -> AuditEventFilter:
    return AuditEventFilter(request.GET, queryset=audit_event_list(user=request.user))


@area_required("reviews")
@require_http_methods(["GET"])
def audit(request: HtmxHttpRequest) -> HttpResponse:
    filterset = _audit_filter(request)
    valid = filterset.is_valid()
    events = Paginator(filterset.qs if valid else AuditEvent.objects.none(), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    context = {"filter": filterset, "events": events, "querystring": _querystring(request)}
    template = "reviews/audit.html#event_table" if request.htmx else "reviews/audit.html"
    return render(request, template, context, status=200 if valid else 400)


class _Echo:
    """csv.writer needs a file; this one hands each line straight back for streaming."""

    def write(self, value: str) -> str:
        return value


@area_required("reviews")
@require_http_methods(["GET"])
def audit_export(request: HttpRequest) -> HttpResponse:
    filterset = _audit_filter(request)
    if not filterset.is_valid():
        return HttpResponse(f"Invalid filter: {filterset.errors.as_text()}", status=400, content_type="text/plain")
    writer = csv.writer(_Echo())

    def rows() -> Iterator[str]:
        yield writer.writerow(CSV_COLUMNS)
        for event in filterset.qs.order_by("id").iterator(chunk_size=2000):
            # Labels and names come from users (a portfolio named =HYPERLINK(...)): csv_safe_row.
            yield writer.writerow(
                csv_safe_row(
                    [
                        event.pk,
                        event.created_at.isoformat(),
                        event.actor_label,
                        event.action,
                        event.subject_type,
                        event.subject_id,
                        event.subject_label,
                        _json(event.before),
                        _json(event.after),
                        event.ip or "",
                        event.user_agent,
                        event.prev_hash,
                        event.row_hash,
                    ]
                )
            )

    response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="alphadesk-audit-{timezone.now():%Y%m%d-%H%M}.csv"'
    # area_required is typed for HttpResponse; a streaming response is what Django serves here.
    return cast(HttpResponse, response)


def _json(value: Any) -> str:
    import json

    return "" if value is None else json.dumps(value, sort_keys=True, default=str)
