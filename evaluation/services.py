"""Writes for evaluation runs: start one (one at a time per suite), delete one (admins only).

Runs are executed by ``evaluation.runner.execute`` — in Celery (enqueued on commit) for the page
and the API, in the foreground for ``manage.py evaluate``.
"""

from __future__ import annotations

import datetime as dt
from functools import partial
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.audit import audit_record
from core.roles import ADMIN, can_access, has_role
from core.tasks import enqueue
from evaluation import suites
from evaluation.models import EvalRun
from evaluation.runner import ENGINES, EngineUnavailable, engine_settings


class RunAlreadyActive(Exception):
    """The suite already has a queued or running evaluation."""

    def __init__(self, run: EvalRun | None) -> None:
        self.run = run
        what = f"run #{run.pk} is {run.status}" if run else "a run is active"
        super().__init__(f"An evaluation of this suite is already in progress ({what}). Wait for it to finish.")


RUN_EXECUTE_TASK = "evaluation.run_execute"  # evaluation/tasks.py; the runner claims a queued run once


def _enqueue(run_id: int) -> bool:
    return enqueue(RUN_EXECUTE_TASK, run_id)


def _enqueue_flagging(run: EvalRun) -> None:
    # The queue down: the run is saved and queued; the start answers so, and the sweep sends it.
    run.queue_unavailable = _enqueue(run.pk) is False  # type: ignore[attr-defined]


def eval_runs_sweep(*, now: dt.datetime | None = None) -> int:
    """Send again runs still queued ``EVALUATION_REQUEUE_AFTER_SECONDS`` after they were started (the
    broker was down, or lost the message); beat runs this with the other sweeps. Safe to repeat:
    the runner claims a queued run once."""
    before = (now or timezone.now()) - dt.timedelta(seconds=settings.EVALUATION_REQUEUE_AFTER_SECONDS)
    waiting = EvalRun.objects.filter(status=EvalRun.Status.QUEUED, created_at__lt=before).exclude(
        trigger=EvalRun.Trigger.COMMAND
    )
    return sum(1 for run_id in waiting.values_list("pk", flat=True) if _enqueue(run_id))


def _clean(suite: str, engine: str, tags: list[str] | None) -> list[str]:
    if suite not in suites.ALL_SUITE_NAMES:
        raise ValidationError({"suite": f"Unknown suite {suite!r}; choose from {', '.join(suites.ALL_SUITE_NAMES)}."})
    if engine not in ENGINES:
        raise ValidationError({"engine": f"Unknown engine {engine!r}; choose from {', '.join(ENGINES)}."})
    try:
        engine_settings(engine)
    except EngineUnavailable as exc:
        raise ValidationError({"engine": str(exc)}) from None
    tags = sorted({t.strip() for t in tags or [] if t.strip()})
    unknown = [t for t in tags if not suites.known_selector(suite, t)]
    if unknown:
        raise ValidationError({"tags": f"No case of the {suite} suite carries or is called {', '.join(unknown)}."})
    return tags


def _release_abandoned(suite: str) -> None:
    """A run whose worker died stays 'running' for ever; after EVALUATION_STALE_MINUTES it is
    marked failed so the suite can run again."""
    limit = timezone.now() - dt.timedelta(minutes=settings.EVALUATION_STALE_MINUTES)
    EvalRun.objects.filter(suite=suite, status__in=EvalRun.ACTIVE, created_at__lt=limit).update(
        status=EvalRun.Status.FAILED, error="Abandoned: no result within the time limit.", finished_at=timezone.now()
    )


def eval_run_start(
    *, user: Any, suite: str, engine: str = "deterministic", tags: list[str] | None = None, trigger: str = "api"
) -> EvalRun:
    """Queue a run of ``suite``; the run executes in Celery when the transaction commits, except
    for the command, which executes it itself."""
    if user is not None and not can_access(user, "evaluation"):
        raise PermissionDenied("Your role does not give access to evaluation.")
    tags = _clean(suite, engine, tags)
    _release_abandoned(suite)
    try:
        with transaction.atomic():
            run = EvalRun.objects.create(
                suite=suite, engine=engine, tags=tags, trigger=trigger, requested_by=user, total=0
            )
            audit_record(actor=user, action="evaluation.start", subject=run, after={"suite": suite, "engine": engine})
            if trigger != EvalRun.Trigger.COMMAND:
                transaction.on_commit(partial(_enqueue_flagging, run))
    except IntegrityError:
        raise RunAlreadyActive(EvalRun.objects.filter(suite=suite, status__in=EvalRun.ACTIVE).first()) from None
    return run


def eval_run_delete(*, user: Any, run: EvalRun) -> None:
    """Delete a run and its case results (admins only; audited)."""
    if not has_role(user, ADMIN):
        raise PermissionDenied("Only admins delete evaluation runs.")
    audit_record(actor=user, action="evaluation.delete", subject=run, before={"suite": run.suite, "status": run.status})
    run.delete()
