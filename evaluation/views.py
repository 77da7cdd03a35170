"""Evaluation pages: the dashboard (run button, live progress, latest metrics against targets,
trends), a run's cases (filters by tag and outcome), a case's drill-down to the agent's trace,
and the diff between two runs. Thin: selectors read, services write."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from core.htmx import HtmxHttpRequest
from core.roles import ADMIN, area_required, has_role
from core.tasks import QUEUE_DOWN_NOTICE, queue_unavailable
from evaluation import metrics, selectors, services, suites
from evaluation.models import EvalCaseResult, EvalRun
from evaluation.runner import ENGINES


def _board(latest: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for group in metrics.GROUPS:
        for m in (m for m in metrics.REGISTRY if m.group == group):
            row = latest.get(m.key, {})
            rows.append({"metric": m, "row": row, "status": {True: "ok", False: "bad", None: "none"}[row.get("ok")]})
    return rows


@area_required("evaluation")
@require_http_methods(["GET"])
def index(request: HtmxHttpRequest) -> HttpResponse:
    suite = request.GET.get("suite", "")
    suite = suite if suite in suites.SUITE_NAMES else ""
    runs = list(selectors.run_list(user=request.user, suite=suite)[:30])
    active = [r for r in runs if r.is_active]
    if request.htmx and request.GET.get("part") == "active":
        return render(request, "evaluation/index.html#active_runs", {"active": active})
    latest = selectors.latest_metrics(user=request.user)
    trend = selectors.trends(user=request.user)
    charts = [
        {"key": m.key, "name": m.name, "unit": m.unit, "target": m.target, "points": trend[m.key]}
        for m in metrics.REGISTRY
    ]
    return render(
        request,
        "evaluation/index.html",
        {
            "runs": runs,
            "active": active,
            "board": _board(latest),
            "latest_runs": selectors.latest_runs(user=request.user),
            "charts": charts,
            "suite_names": suites.SUITE_NAMES,
            "engines": ENGINES,
            "suite": suite,
            "tags": {name: suites.all_tags(name) for name in suites.SUITE_NAMES},
        },
    )


@area_required("evaluation")
@require_http_methods(["POST"])
def run_start(request: HtmxHttpRequest) -> HttpResponse:
    tags = [t for t in request.POST.getlist("tags") if t]
    try:
        run = services.eval_run_start(
            user=request.user,
            suite=request.POST.get("suite", ""),
            engine=request.POST.get("engine", "deterministic"),
            tags=tags,
            trigger=EvalRun.Trigger.BUTTON,
        )
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("evaluation:index")
    except services.RunAlreadyActive as exc:
        messages.error(request, str(exc))
        return redirect(reverse("evaluation:run", args=[exc.run.pk]) if exc.run else "evaluation:index")
    if queue_unavailable(run):
        messages.warning(request, QUEUE_DOWN_NOTICE)
    return redirect("evaluation:run", run_id=run.pk)


@area_required("evaluation")
@require_http_methods(["GET"])
def run_detail(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    run = selectors.run_get(user=request.user, run_id=run_id)
    tag, outcome = request.GET.get("tag", ""), request.GET.get("outcome", "")
    outcome = outcome if outcome in EvalCaseResult.Outcome.values else ""
    context = {
        "run": run,
        "cases": selectors.case_list(user=request.user, run=run, tag=tag, outcome=outcome),
        "tag": tag,
        "outcome": outcome,
        "run_tags": sorted({t for c in run.cases.all() for t in c.tags}),
        "board": _board(run.metrics or {}),
        "can_delete": has_role(request.user, ADMIN),
        "others": selectors.run_list(user=request.user, suite=run.suite).exclude(pk=run.pk).filter(status="done")[:20],
    }
    if request.htmx and request.GET.get("part") == "progress":
        response = render(request, "evaluation/run.html#progress", context)
        if not run.is_active:
            response["HX-Refresh"] = "true"  # finished: load the whole page with its results
        return response
    if request.htmx and request.GET.get("part") == "cases":
        return render(request, "evaluation/run.html#case_table", context)
    return render(request, "evaluation/run.html", context)


@area_required("evaluation")
@require_http_methods(["POST"])
def run_delete(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    run = selectors.run_get(user=request.user, run_id=run_id)
    services.eval_run_delete(user=request.user, run=run)
    messages.success(request, f"Evaluation run #{run_id} deleted.")
    return redirect("evaluation:index")


def verdict_lines(v: dict[str, Any]) -> list[dict[str, Any]]:
    """The judge's verdicts on a turn as sentences for a person (ok: True/False/None)."""
    if not v:
        return []
    lines = [
        {
            "text": f"Ended {v.get('outcome')}" + ("" if v.get("outcome_ok") else ", not as expected"),
            "ok": v.get("outcome_ok"),
        },
        {
            "text": "Expected figures stated"
            if not v.get("figures_missing")
            else "Missing expected figure(s): " + ", ".join(v["figures_missing"]),
            "ok": not v.get("figures_missing"),
        },
        {
            "text": "Expected document cited" if v.get("document_ok") else "Expected document not cited",
            "ok": v.get("document_ok"),
        },
        {"text": "Expected page cited" if v.get("page_ok") else "No expected page cited", "ok": v.get("page_ok")},
    ]
    if v.get("tool_ok") is not None:
        lines.append({"text": "Expected tool ran" if v["tool_ok"] else "Expected tool did not run", "ok": v["tool_ok"]})
    if v.get("citations_total"):
        ok = v["citations_ok"] == v["citations_total"]
        lines.append(
            {
                "text": f"Citations resolving to their stored passage: {v['citations_ok']} of {v['citations_total']}",
                "ok": ok,
            }
        )
    if v.get("figures_shown"):
        ok = v["figures_traced"] == v["figures_shown"]
        lines.append(
            {"text": f"Figures traced to stored evidence: {v['figures_traced']} of {v['figures_shown']}", "ok": ok}
        )
    if v.get("faithful") is not None:
        lines.append(
            {
                "text": "Quotes verbatim in the passages this turn retrieved"
                if v["faithful"]
                else "A quote is not in the retrieved passages",
                "ok": v["faithful"],
            }
        )
    return lines


@area_required("evaluation")
@require_http_methods(["GET"])
def case_detail(request: HtmxHttpRequest, case_pk: int) -> HttpResponse:
    case = selectors.case_get(user=request.user, case_pk=case_pk)
    turns = []
    actual = (case.actual or {}).get("turns") or []
    for i, turn in enumerate(actual):
        key = f"turn {i + 1}"
        turns.append(
            {
                "n": i + 1,
                "ask": (case.inputs.get("turns") or [""] * len(actual))[i],
                "expect": (case.expected.get("turns") or [{}] * len(actual))[i],
                "actual": turn,
                "verdicts": case.verdicts.get(key, {}),
                "lines": verdict_lines(case.verdicts.get(key, {})),
                "llm": case.llm_verdicts.get(key),
            }
        )
    return render(
        request,
        "evaluation/case.html",
        {"case": case, "turns": turns, "steps": selectors.case_trace(user=request.user, case=case)},
    )


@area_required("evaluation")
@require_http_methods(["GET"])
def run_diff(request: HtmxHttpRequest) -> HttpResponse:
    try:
        base = selectors.run_get(user=request.user, run_id=int(request.GET.get("base", "0")))
        head = selectors.run_get(user=request.user, run_id=int(request.GET.get("head", "0")))
    except ValueError:
        messages.error(request, "Choose two runs to compare.")
        return redirect("evaluation:index")
    changed = selectors.run_diff(user=request.user, base=base, head=head)
    rows = [
        {"metric": m, "base": (base.metrics or {}).get(m.key, {}), "head": (head.metrics or {}).get(m.key, {})}
        for m in metrics.REGISTRY
    ]
    return render(request, "evaluation/diff.html", {"base": base, "head": head, "changed": changed, "rows": rows})
