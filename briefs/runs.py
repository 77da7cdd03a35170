"""Execute a queued brief run: claim it, then drive the morning-brief graph to its gate or its end.

This is the one module that builds and runs the graph, and it sits *above* the graph in the
import layering: ``tasks → runs → agent.graph → agent.nodes → agent.store → services``. The
graph's persistence (the brief, the review task, delivery, the ending) stays in ``services``,
which never imports the graph or this module, so the briefs modules import one another without
a cycle. ``agent/`` holds what the graph is made of; this module is who runs it.

Durability. The graph checkpoints after every superstep, and the step log is written as each node
ends, but those commits do not wait for the disk (``synchronous_commit = off``: a commit costs
~0.1 ms instead of a ~4 ms fsync here). Nothing durable is given up for it: the writes that matter
— the run's start, the brief and its review task at the gate, the run's ending — commit
synchronously, and a synchronous commit flushes every earlier write with it; when the graph
pauses or ends, :func:`_flush` makes the last checkpoint durable too. Only a crash of the database
server itself, mid-run, could lose the last fraction of a second of checkpoints and steps.

Recovery. A worker that dies mid-run leaves the run ``running`` and its message unacknowledged;
Celery redelivers it (``task_acks_late``, ``task_reject_on_worker_lost``) and
:func:`brief_run_execute` resumes the graph from its last checkpoint once the run has been
silent for ``BRIEF_RUN_RECOVER_AFTER_SECONDS`` — the finished supersteps are not run again.
``BRIEF_CHECKPOINT_DURABILITY=exit`` checkpoints only when the run pauses or ends (fewer writes, a
faster run); what it gives up is exactly that: a run whose worker died starts again from the
beginning (its tool calls are repeated, and the crashed attempt's steps stay in the log).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.utils import timezone
from psycopg import Connection

from briefs.agent.graph import build_graph
from briefs.durability import relaxed_commit
from briefs.models import BriefRun
from core.audit import audit_record
from core.checkpoint import checkpointer


def _claim(run_id: int) -> str:
    """``start`` (queued → running), ``resume`` (a running run silent too long — no step, no start —
    whose worker died), or ``""`` (someone else has it)."""
    now = timezone.now()
    with relaxed_commit():
        if BriefRun.objects.filter(pk=run_id, status=BriefRun.Status.QUEUED).update(
            status=BriefRun.Status.RUNNING, started_at=now
        ):
            return "start"
    silent_since = now - dt.timedelta(seconds=settings.BRIEF_RUN_RECOVER_AFTER_SECONDS)
    silent = (
        BriefRun.objects.filter(pk=run_id, status=BriefRun.Status.RUNNING, started_at__lt=silent_since)
        .exclude(steps__created_at__gte=silent_since)
        .update(started_at=now)
    )
    return "resume" if silent else ""


def brief_run_execute(*, run_id: int) -> str:
    """Run the graph of a queued run until it pauses at the gate or ends. Idempotent: only a queued
    run is started, and only a run silent for too long is resumed, so a duplicate message does nothing."""
    claimed = _claim(run_id)
    if not claimed:
        return "skipped"
    run = BriefRun.objects.select_related("watchlist").get(pk=run_id)
    config: Any = {"configurable": {"thread_id": run.thread_id}}
    try:
        with checkpointer() as saver:
            conn = saver.conn  # core.checkpoint gives the saver one connection of its own, never a pool
            assert isinstance(conn, Connection)
            conn.execute("SET synchronous_commit TO off")
            # Resume from the last checkpoint; with none (durability "exit", or a crash before the
            # first superstep ended) the run starts again from the beginning.
            resumable = claimed == "resume" and saver.get_tuple(config) is not None
            state = None if resumable else _initial_state(run)
            build_graph(checkpointer=saver).invoke(state, config, durability=settings.BRIEF_CHECKPOINT_DURABILITY)
            _flush(conn)
    except Exception as exc:
        BriefRun.objects.filter(pk=run_id).update(
            status=BriefRun.Status.FAILED, finished_at=timezone.now(), note=repr(exc)[:500]
        )
        audit_record(actor=None, action="brief_run.failed", subject=run, after={"error": repr(exc)[:300]})
        raise
    if claimed == "resume":
        where = "last checkpoint" if resumable else "the beginning (no checkpoint)"
        audit_record(actor=None, action="brief_run.recovered", subject=run, after={"from": where})
    return str(BriefRun.objects.values_list("status", flat=True).get(pk=run_id))


def _flush(conn: Connection[Any]) -> None:
    """Make every earlier (asynchronous) commit durable: a synchronous commit flushes the log up to
    itself, and ``txid_current()`` gives this one a commit record to flush."""
    conn.execute("SET synchronous_commit TO on")
    conn.execute("SELECT pg_catalog.txid_current()")


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
