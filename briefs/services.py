"""Writes for morning briefs: start a run, open its review, deliver it, end it.

Executing a run (building and driving the graph) lives in ``briefs.runs``: the graph's store
calls the functions here, so this module never imports the graph or the task that runs it."""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.utils import timezone

from briefs.agent.state import GRAPH_NAME
from briefs.claims import BriefDraft, Claim
from briefs.delivery import brief_deliver as brief_deliver  # the deliver node's write, kept here by name
from briefs.models import SLOT_CONSTRAINT, Brief, BriefRun
from briefs.renderings import Rendered, render_brief, review_payload
from core.audit import audit_record
from core.roles import ADMIN, ANALYST, has_role
from core.tasks import enqueue
from portfolios.models import Watchlist
from reviews.models import ReviewTask
from reviews.services import review_task_request

logger = logging.getLogger(__name__)
RUN_EXECUTE_TASK = "briefs.tasks.brief_run_execute"  # the Celery task that calls briefs.runs.brief_run_execute


class RunAlreadyActive(Exception):
    """A watchlist already has a queued, running or awaiting-review run."""

    def __init__(self, run: BriefRun | None) -> None:
        self.run = run
        what = f"run #{run.pk} is {run.get_status_display().lower()}" if run else "a run is already active"
        super().__init__(f"A brief for this watchlist is already in progress ({what}). Wait for it to finish.")


class SlotAlreadyRan(Exception):
    """The watchlist already has a run for this schedule slot (beat sent the slot again)."""

    def __init__(self, run: BriefRun | None, slot: dt.datetime) -> None:
        self.run, self.slot = run, slot
        super().__init__(f"The brief for the slot {slot.isoformat()} was already started (run #{run and run.pk}).")


def _active_run(watchlist_id: int) -> BriefRun | None:
    return BriefRun.objects.filter(watchlist_id=watchlist_id, status__in=BriefRun.ACTIVE).first()


def _violated_constraint(exc: IntegrityError) -> str:
    diag = getattr(exc.__cause__, "diag", None)
    return str(getattr(diag, "constraint_name", "") or "")


def brief_run_start(
    *, user: Any, watchlist_id: int, trigger: str = BriefRun.Trigger.BUTTON, slot: dt.datetime | None = None
) -> BriefRun:
    """Queue a run for a watchlist the user may see. One active run per watchlist is enforced by
    the partial unique index: concurrent starts get :class:`RunAlreadyActive`, never a second run.
    A scheduled run names its ``slot``; a second start for the same slot gets :class:`SlotAlreadyRan`."""
    from portfolios.selectors import watchlist_get

    if trigger not in BriefRun.Trigger.values:
        raise ValidationError({"trigger": "Unknown trigger."})
    if trigger != BriefRun.Trigger.SCHEDULE and not has_role(user, ANALYST, ADMIN):
        raise PermissionDenied("Only analysts and admins run briefs.")
    watchlist = watchlist_get(user=user, watchlist_id=watchlist_id)  # Http404 when not visible
    if not watchlist.tickers:
        raise ValidationError({"watchlist": "This watchlist has no tickers; add some before running a brief."})
    try:
        with transaction.atomic():
            run = BriefRun.objects.create(
                watchlist=watchlist,
                requested_by=user if getattr(user, "is_authenticated", False) else None,
                trigger=trigger,
                tickers=list(watchlist.tickers),
                slot=slot,
            )
            after: dict[str, Any] = {"trigger": trigger, "tickers": run.tickers}
            if slot is not None:
                after["slot"] = slot.isoformat()
            audit_record(actor=user, action="brief_run.start", subject=run, after=after)
            transaction.on_commit(partial(_enqueue_execute_flagging, run))
    except IntegrityError as exc:
        # Both indexes may refuse the row (the slot's run is still active): the slot is the reason.
        slot_run = BriefRun.objects.filter(watchlist=watchlist, slot=slot).first() if slot else None
        if slot is not None and (_violated_constraint(exc) == SLOT_CONSTRAINT or slot_run is not None):
            raise SlotAlreadyRan(slot_run, slot) from None
        raise RunAlreadyActive(_active_run(watchlist.pk)) from None
    return run


def _enqueue_execute(run_id: int) -> bool:
    # By name (core.tasks.enqueue): the task runs the graph, whose store calls back into this module.
    return enqueue(RUN_EXECUTE_TASK, run_id)


def _enqueue_execute_flagging(run: BriefRun) -> None:
    # The queue down: the run is saved and queued; the start answers so, and the sweep sends it.
    run.queue_unavailable = _enqueue_execute(run.pk) is False  # type: ignore[attr-defined]


def brief_runs_sweep(*, now: dt.datetime | None = None) -> dict[str, int]:
    """Send again the runs a lost message or a dead worker left behind (a beat task, every
    ``BRIEF_SWEEP_SECONDS``): queued for longer than ``BRIEF_RUN_REQUEUE_AFTER_SECONDS``, or running
    with no step for ``BRIEF_RUN_RECOVER_AFTER_SECONDS`` — its worker died, and the broker would only
    redeliver the unacknowledged message after its visibility timeout (an hour). Safe to repeat: the
    runner claims a run atomically, so a duplicate message does nothing."""
    now = now or timezone.now()
    queued_before = now - dt.timedelta(seconds=settings.BRIEF_RUN_REQUEUE_AFTER_SECONDS)
    silent_since = now - dt.timedelta(seconds=settings.BRIEF_RUN_RECOVER_AFTER_SECONDS)
    lost = BriefRun.objects.filter(status=BriefRun.Status.QUEUED, created_at__lt=queued_before)
    stuck = BriefRun.objects.filter(status=BriefRun.Status.RUNNING, started_at__lt=silent_since).exclude(
        steps__created_at__gte=silent_since
    )
    lost_ids, stuck_ids = list(lost.values_list("pk", flat=True)), list(stuck.values_list("pk", flat=True))
    sent = {run_id for run_id in [*lost_ids, *stuck_ids] if _enqueue_execute(run_id)}
    return {"requeued": len(sent.intersection(lost_ids)), "resumed": len(sent.intersection(stuck_ids))}


# --- review ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _GateBrief:
    """The brief as the gate sees it: parsed from the graph state and rendered once."""

    draft: BriefDraft
    claims: list[Claim]
    verification: dict[str, Any]
    rendered: Rendered
    as_of: dt.date | None
    errors: list[Any]
    partial: bool

    @property
    def ok(self) -> bool:
        return bool(self.verification.get("ok"))


def _gate_brief(state: dict[str, Any], watchlist: str) -> _GateBrief:
    draft = BriefDraft.model_validate(state["draft"])
    claims = [Claim.model_validate(c) for c in state.get("claims") or []]
    verification = state.get("verification") or {}
    errors = state.get("errors") or []
    return _GateBrief(
        draft=draft,
        claims=claims,
        verification=verification,
        rendered=render_brief(draft, claims, verification, watchlist),
        as_of=draft.dateline.as_of if draft.dateline else max((c.as_of for c in claims), default=None),
        errors=errors,
        partial=draft.partial,
    )


def brief_open_for_review(*, state: dict[str, Any], gate_round: int) -> tuple[int, int]:
    """Save (or update) the run's brief and open its review task; safe to repeat."""
    run = BriefRun.objects.select_related("watchlist").get(pk=state["run_id"])
    gate = _gate_brief(state, run.watchlist.name)
    with transaction.atomic():
        brief, created = _brief_save(run, gate)
        task = _brief_review_task(run, brief, gate, note=state.get("gate_note", ""), gate_round=gate_round)
        changed = BriefRun.objects.filter(pk=run.pk, status=BriefRun.Status.RUNNING).update(
            status=BriefRun.Status.AWAITING_REVIEW, partial=gate.partial, errors=gate.errors
        )
        if created or changed:
            audit_record(
                actor=None, action="brief.review_requested", subject=brief, after={"task": task.pk, "verified": gate.ok}
            )
    return brief.pk, task.pk


def _brief_save(run: BriefRun, gate: _GateBrief) -> tuple[Brief, bool]:
    """One brief per run: a gate that runs again (resume, refused edit) updates it in place."""
    return Brief.objects.update_or_create(
        run=run,
        defaults={
            "watchlist": run.watchlist,
            "title": gate.rendered.title,
            "as_of": gate.as_of,
            "partial": gate.partial,
            "draft": gate.draft.model_dump(mode="json"),
            "claims": [c.model_dump(mode="json") for c in gate.claims],
            "verification": gate.verification,
            "body_text": gate.rendered.text,
            "body_html": gate.rendered.html,
        },
    )


def _brief_review_task(run: BriefRun, brief: Brief, gate: _GateBrief, *, note: str, gate_round: int) -> ReviewTask:
    """The brief_approval task of this gate round (idempotent per round); a failed verification
    is escalated: flagged in the title and raised in priority."""
    flags = ("ESCALATED: " if not gate.ok else "") + (
        "STALE DATA: " if gate.draft.dateline and gate.draft.dateline.stale else ""
    )
    title = flags + brief.title + (" (partial)" if gate.partial else "")
    return review_task_request(
        requested_by=run.requested_by,
        subject_owner=run.watchlist.owner,
        kind="brief_approval",
        title=title[:200],
        graph_name=GRAPH_NAME,
        thread_id=run.thread_id,
        payload=_review_payload(run, brief, gate, note=note),
        subject=brief,
        priority=30 if not gate.ok else 20,
        request_key=f"gate-{gate_round}",
    )


def _review_payload(run: BriefRun, brief: Brief, gate: _GateBrief, *, note: str) -> dict[str, Any]:
    """What the reviewer sees (``templates/reviews/kinds/_brief_approval.html``) and may edit."""
    context = {
        "watchlist": run.watchlist.name,
        "brief_id": brief.pk,
        "run_id": run.pk,
        "partial": gate.partial,
        "errors": gate.errors,
        "note": note,
        "summary": _verification_summary(gate),
    }
    return review_payload(
        draft=gate.draft, claims=gate.claims, verification=gate.verification, rendered=gate.rendered, context=context
    )


def _verification_summary(gate: _GateBrief) -> str:
    n_ok = sum(1 for c in gate.verification.get("checks", []) if c.get("verified"))
    summary = f"{n_ok} of {len(gate.claims)} figures recomputed from the stored bars and matched."
    if gate.verification.get("problems"):
        summary += " Problems: " + "; ".join(gate.verification["problems"][:5])
    return summary + (" Escalated after one regeneration." if not gate.ok else "")


# --- delivery and endings ----------------------------------------------------------------------
def brief_record_decision(*, brief_id: int, decision: dict[str, Any], draft: dict[str, Any] | None) -> None:
    """Keep the reviewer's decision (and an accepted edit) on the brief."""
    updates: dict[str, Any] = {
        "decided_by": decision.get("reviewer") or "",
        "decided_at": timezone.now(),
        "decision_reason": decision.get("reason") or "",
    }
    if draft is not None:
        brief = Brief.objects.select_related("watchlist").get(pk=brief_id)
        parsed = BriefDraft.model_validate(draft)
        claims = [Claim.model_validate(c) for c in brief.claims]
        rendered = render_brief(parsed, claims, brief.verification, brief.watchlist.name)
        updates.update(draft=draft, body_text=rendered.text, body_html=rendered.html, title=rendered.title)
    Brief.objects.filter(pk=brief_id).update(**updates)


def _finish_status(state: dict[str, Any]) -> BriefRun.Status:
    stop, outcome = state.get("stop"), state.get("outcome")
    if stop == "budget_abort":
        return BriefRun.Status.BUDGET_ABORT
    if stop == "iteration_cap":
        return BriefRun.Status.ITERATION_CAP
    return {"blocked": BriefRun.Status.BLOCKED, "no_data": BriefRun.Status.NO_DATA}.get(
        outcome or "", BriefRun.Status.REJECTED
    )


def _no_data_note(errors: list[dict[str, Any]]) -> str:
    """Why there is nothing to brief, ticker by ticker, as a person reads it."""
    reasons = [
        f"{e.get('ticker') or 'a worker'}: {e.get('message') or e.get('error')}"
        for e in errors
        if e.get("source") == "market" and not e.get("context")
    ]
    return "No data: no figure could be computed for any ticker on the watchlist, so there is nothing to brief. " + (
        "; ".join(reasons) if reasons else "The market data agent returned nothing."
    )


def run_finish(*, state: dict[str, Any]) -> None:
    """End a run that delivers nothing, with the reason on the run and in the audit log; a run
    with no data also tells the watchlist's owner."""
    status = _finish_status(state)
    notes = {
        BriefRun.Status.BUDGET_ABORT: (
            f"Stopped: the run exceeded its budget ({state.get('tokens', 0)} tokens, "
            f"${state.get('cost_usd', 0.0):.4f})."
        ),
        BriefRun.Status.ITERATION_CAP: f"Stopped at the cap of {settings.BRIEF_MAX_ITERATIONS} supervisor iterations.",
        BriefRun.Status.BLOCKED: "Approved, but some figures did not verify: nothing was sent.",
        BriefRun.Status.NO_DATA: _no_data_note(state.get("errors") or []),
        BriefRun.Status.REJECTED: _rejection_note(state.get("decision") or {}),
    }
    with transaction.atomic():
        run = BriefRun.objects.select_for_update().select_related("watchlist__owner").get(pk=state["run_id"])
        if run.finished_at is not None:
            return
        run.status, run.finished_at, run.note = status, timezone.now(), notes[status][:500]
        run.errors = state.get("errors") or []
        run.save(update_fields=["status", "finished_at", "note", "errors"])
        if state.get("brief_id"):
            brief_status = Brief.Status.BLOCKED if status == BriefRun.Status.BLOCKED else Brief.Status.REJECTED
            Brief.objects.filter(pk=state["brief_id"]).update(status=brief_status)
        after: dict[str, Any] = {"note": run.note}
        if status == BriefRun.Status.NO_DATA:
            after["owner_notified"] = _tell_owner_no_data(run)
        audit_record(actor=None, action=f"brief_run.{status}", subject=run, after=after)


def _tell_owner_no_data(run: BriefRun) -> bool:
    """Email the watchlist's owner that this run has no brief, and why (through the configured mail
    backend: SMTP, or files under var/mail in the demo). Returns whether the message went out."""
    owner = run.watchlist.owner
    if not owner.email:
        return False
    link = f"{settings.SITE_URL.rstrip('/')}/briefs/runs/{run.pk}/"
    message = EmailMultiAlternatives(
        f"[AlphaDesk] No brief for {run.watchlist.name}: no data",
        f"{run.note}\n\nNothing went to a reviewer and nothing was sent. The run: {link}\n",
        None,
        [owner.email],
    )
    try:
        message.send(fail_silently=False)
    except OSError as exc:
        logger.warning("no-data notice for run %s failed: %s", run.pk, exc)
        return False
    return True


def _rejection_note(decision: dict[str, Any]) -> str:
    reason = str(decision.get("reason") or "")
    if decision.get("outcome") in {"expire", "cancel"}:
        return f"The review was {decision['outcome']}d without approval: {reason}"
    return f"Rejected by {decision.get('reviewer') or 'the reviewer'}: {reason}"


def watchlist_for_schedule(watchlist_id: int) -> Watchlist | None:
    return Watchlist.objects.select_related("owner").filter(pk=watchlist_id, brief_enabled=True).first()
