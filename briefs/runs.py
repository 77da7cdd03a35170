"""Execute a queued brief run: claim it, then drive the morning-brief graph to its gate or its end.

This is the one module that builds and runs the graph, and it sits *above* the graph in the
import layering: ``tasks → runs → agent.graph → agent.nodes → agent.store → services``. The
graph's persistence (the brief, the review task, delivery, the ending) stays in ``services``,
which never imports the graph or this module, so the briefs modules import one another without
a cycle. ``agent/`` holds what the graph is made of; this module is who runs it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import timezone

from briefs.agent.graph import build_graph
from briefs.models import BriefRun
from core.audit import audit_record
from core.checkpoint import checkpointer


def brief_run_execute(*, run_id: int) -> str:
    """Run the graph of a queued run until it pauses at the gate or ends. Idempotent: only a
    queued run is claimed, so a redelivered message does nothing."""
    claimed = BriefRun.objects.filter(pk=run_id, status=BriefRun.Status.QUEUED).update(
        status=BriefRun.Status.RUNNING, started_at=timezone.now()
    )
    if not claimed:
        return "skipped"
    run = BriefRun.objects.select_related("watchlist").get(pk=run_id)
    state = _initial_state(run)
    try:
        with checkpointer() as saver:
            build_graph(checkpointer=saver).invoke(state, {"configurable": {"thread_id": run.thread_id}})
    except Exception as exc:
        BriefRun.objects.filter(pk=run_id).update(
            status=BriefRun.Status.FAILED, finished_at=timezone.now(), note=repr(exc)[:500]
        )
        audit_record(actor=None, action="brief_run.failed", subject=run, after={"error": repr(exc)[:300]})
        raise
    return str(BriefRun.objects.values_list("status", flat=True).get(pk=run_id))


def _initial_state(run: BriefRun) -> dict[str, Any]:
    from portfolios.selectors import benchmark_for

    return {
        "run_id": run.pk,
        "user_id": run.watchlist.owner_id,  # data scope = the watchlist owner's, whoever pressed RUN
        "watchlist_id": run.watchlist_id,
        "watchlist_name": run.watchlist.name,
        "tickers": list(run.tickers),
        # The lead compares with the market: ^NSEI for a mostly Indian list, else SPY (BRIEF_BENCHMARK overrides).
        "benchmark": settings.BRIEF_BENCHMARK or benchmark_for(list(run.tickers)),
        # The day the brief is for, in the site's time zone: staleness is counted against it.
        "brief_date": timezone.localdate(run.created_at).isoformat(),
    }
