"""Reads for evaluation runs: lists, one run, its cases (filtered), the latest metrics per suite,
trends over runs, the diff between two runs and a case's trace. Everyone with the evaluation area
reads every run (the runs are the team's instrument, not anyone's private data)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404

from core.roles import can_access
from evaluation import metrics
from evaluation.models import EvalCaseResult, EvalRun


def _require(user: Any) -> None:
    if not can_access(user, "evaluation"):
        raise PermissionDenied("Your role does not give access to evaluation.")


def run_list(*, user: Any, suite: str = "") -> QuerySet[EvalRun]:
    _require(user)
    runs = EvalRun.objects.all()
    return runs.filter(suite=suite) if suite else runs


def run_get(*, user: Any, run_id: int) -> EvalRun:
    _require(user)
    run = EvalRun.objects.filter(pk=run_id).first()
    if run is None:
        raise Http404("No such evaluation run.")
    return run


def case_list(*, user: Any, run: EvalRun, tag: str = "", outcome: str = "") -> QuerySet[EvalCaseResult]:
    _require(user)
    cases = run.cases.all()
    if tag:
        cases = cases.filter(tags__contains=[tag])
    if outcome:
        cases = cases.filter(outcome=outcome)
    return cases


def case_get(*, user: Any, case_pk: int) -> EvalCaseResult:
    _require(user)
    case = EvalCaseResult.objects.select_related("run").filter(pk=case_pk).first()
    if case is None:
        raise Http404("No such case result.")
    return case


def latest_runs(*, user: Any) -> dict[str, EvalRun]:
    """The newest finished run of each suite."""
    _require(user)
    latest: dict[str, EvalRun] = {}
    for run in EvalRun.objects.filter(status=EvalRun.Status.DONE).order_by("-finished_at", "-pk"):
        latest.setdefault(run.suite, run)
    return latest


def latest_metrics(*, user: Any) -> dict[str, dict[str, Any]]:
    """Every metric over the latest finished run of each suite (what the dashboard's board shows)."""
    runs = latest_runs(user=user)
    records = [{**m, "suite": r.suite} for r in runs.values() for c in r.cases.all() for m in c.measures]
    return metrics.compute(records)


def trends(*, user: Any, limit: int = 30) -> dict[str, list[dict[str, Any]]]:
    """Per metric, its value in each finished run that measured it, oldest first."""
    _require(user)
    runs = list(EvalRun.objects.filter(status=EvalRun.Status.DONE).order_by("-finished_at")[:limit])[::-1]
    out: dict[str, list[dict[str, Any]]] = {m.key: [] for m in metrics.REGISTRY}
    for run in runs:
        for key, row in (run.metrics or {}).items():
            if key in out and row.get("value") is not None and run.finished_at is not None:
                out[key].append(
                    {"run": run.pk, "suite": run.suite, "t": run.finished_at.timestamp(), "value": row["value"]}
                )
    return out


def run_diff(*, user: Any, base: EvalRun, head: EvalRun) -> list[dict[str, Any]]:
    """The cases whose outcome changed between two runs (matched on case id and variant)."""
    _require(user)
    before = {(c.case_id, c.variant): c for c in base.cases.all()}
    changed = []
    for case in head.cases.all():
        old = before.get((case.case_id, case.variant))
        if old is None or old.outcome != case.outcome:
            changed.append({"case": case, "before": old.outcome if old else "absent", "after": case.outcome})
    return changed


def case_trace(*, user: Any, case: EvalCaseResult) -> list[dict[str, Any]]:
    """The agent's trace steps behind a case result (chat turns, or the brief run's steps)."""
    _require(user)
    trace = case.trace or {}
    if trace.get("kind") == "chat":
        from research.chat.models import TraceStep

        steps = TraceStep.objects.filter(turn_id__in=trace.get("turn_ids", [])).order_by("turn_id", "seq")
        return [
            {
                "turn": s.turn_id,
                "node": s.node,
                "tool": s.tool,
                "note": s.note,
                "latency_ms": s.latency_ms,
                "inputs": s.inputs,
                "outputs": s.outputs,
                "events": s.guardrail_events,
            }
            for s in steps
        ]
    if trace.get("kind") == "brief":
        from briefs.models import BriefStep

        return [
            {
                "turn": trace["run_id"],
                "node": s.node,
                "tool": s.tool,
                "note": s.error,
                "latency_ms": s.latency_ms,
                "inputs": s.inputs,
                "outputs": s.outputs,
                "events": [],
            }
            for s in BriefStep.objects.filter(run_id=trace.get("run_id")).order_by("pk")
        ]
    return []
