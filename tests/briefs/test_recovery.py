"""Mid-run recovery: a run whose worker died after the data and news agents finished is resumed from
its last checkpoint by the redelivered message — the agents are not run again — and a duplicate
message for a run that is alive does nothing."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db.models import F
from django.utils import timezone

from briefs.agent.nodes import Plan, rules_planner

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_run_that_lost_its_worker_resumes_from_its_last_checkpoint(watchlist: Any, analyst: Any) -> None:
    from briefs import runs
    from briefs.agent.graph import build_graph
    from briefs.models import BriefRun, BriefStep
    from core.checkpoint import checkpointer
    from core.models import AuditEvent

    watchlist.tickers = ["RELIANCE.NS", "INFY.NS"]
    watchlist.save()
    run = BriefRun.objects.create(watchlist=watchlist, requested_by=analyst, trigger="api", tickers=watchlist.tickers)
    assert runs._claim(run.pk) == "start"
    calls: list[int] = []

    def dies_after_the_workers(state: Any) -> Plan:
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("the worker process died")  # what the graph sees of a crash
        return rules_planner(state)

    with checkpointer() as saver, pytest.raises(RuntimeError, match="died"):
        graph = build_graph(checkpointer=saver, planner=dies_after_the_workers)
        graph.invoke(runs._initial_state(run), {"configurable": {"thread_id": run.thread_id}})
    tools_before = list(BriefStep.objects.filter(run=run).exclude(tool="").values_list("tool", "inputs"))
    assert len(tools_before) == 6  # metrics and news for two names and the benchmark
    run.refresh_from_db()
    assert run.status == "running"

    # A duplicate message while the run may still be alive: nothing happens.
    assert runs.brief_run_execute(run_id=run.pk) == "skipped"
    # Time passes with no step: the worker is gone; the redelivered message resumes the run.
    ten_minutes = dt.timedelta(minutes=10)
    BriefStep.objects.filter(run=run).update(created_at=F("created_at") - ten_minutes)
    BriefRun.objects.filter(pk=run.pk).update(started_at=timezone.now() - ten_minutes)
    assert runs.brief_run_execute(run_id=run.pk) == "awaiting_review"
    tools_after = list(BriefStep.objects.filter(run=run).exclude(tool="").values_list("tool", "inputs"))
    assert tools_after == tools_before  # the agents' finished superstep was not run again
    nodes = list(BriefStep.objects.filter(run=run).values_list("node", flat=True))
    assert nodes.count("supervisor") == 2 and nodes.count("writer") == 1 and nodes.count("verifier") == 1
    assert AuditEvent.objects.filter(action="brief_run.recovered").count() == 1
    assert runs.brief_run_execute(run_id=run.pk) == "skipped"  # and only once


def test_with_exit_durability_a_crashed_run_starts_again_from_the_beginning(
    watchlist: Any, analyst: Any, settings: Any
) -> None:
    """The policy change BRIEF_CHECKPOINT_DURABILITY=exit gives up exactly this: no checkpoint
    until the gate, so the redelivered message repeats the run's tool calls."""
    from briefs import runs
    from briefs.agent.graph import build_graph
    from briefs.models import BriefRun, BriefStep
    from core.checkpoint import checkpointer
    from core.models import AuditEvent

    settings.BRIEF_CHECKPOINT_DURABILITY = "exit"
    watchlist.tickers = ["INFY.NS"]
    watchlist.save()
    run = BriefRun.objects.create(watchlist=watchlist, requested_by=analyst, trigger="api", tickers=watchlist.tickers)
    assert runs._claim(run.pk) == "start"
    calls: list[int] = []

    def dies_after_the_workers(state: Any) -> Plan:
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("the worker process died")
        return rules_planner(state)

    config: Any = {"configurable": {"thread_id": run.thread_id}}
    with checkpointer() as saver, pytest.raises(RuntimeError, match="died"):
        build_graph(checkpointer=saver, planner=dies_after_the_workers).invoke(
            runs._initial_state(run), config, durability="exit"
        )
    with checkpointer() as saver:
        # An exception lets LangGraph write its exit checkpoint; a killed process writes nothing.
        saver.delete_thread(run.thread_id)
        assert saver.get_tuple(config) is None
    first = BriefStep.objects.filter(run=run).exclude(tool="").count()
    assert first == 4  # metrics and news for INFY.NS and the benchmark
    ten_minutes = dt.timedelta(minutes=10)
    BriefStep.objects.filter(run=run).update(created_at=F("created_at") - ten_minutes)
    BriefRun.objects.filter(pk=run.pk).update(started_at=timezone.now() - ten_minutes)
    assert runs.brief_run_execute(run_id=run.pk) == "awaiting_review"
    assert BriefStep.objects.filter(run=run).exclude(tool="").count() == 2 * first  # the tool calls again
    event = AuditEvent.objects.get(action="brief_run.recovered")
    assert event.after == {"from": "the beginning (no checkpoint)"}


def test_the_sweep_sends_again_only_lost_and_silent_runs(analyst: Any, settings: Any) -> None:
    from unittest import mock

    from briefs.models import BriefRun, BriefStep
    from briefs.services import RUN_EXECUTE_TASK, brief_runs_sweep
    from portfolios.services import watchlist_create

    settings.BRIEF_RUN_REQUEUE_AFTER_SECONDS, settings.BRIEF_RUN_RECOVER_AFTER_SECONDS = 120, 120
    now, old = timezone.now(), timezone.now() - dt.timedelta(minutes=5)

    def run(name: str, status: str, *, created: dt.datetime = now, started: dt.datetime | None = None) -> int:
        watchlist = watchlist_create(user=analyst, name=name, tickers=["INFY.NS"])
        made = BriefRun.objects.create(watchlist=watchlist, tickers=["INFY.NS"], status=status, started_at=started)
        BriefRun.objects.filter(pk=made.pk).update(created_at=created)
        return made.pk

    lost = run("Lost message", "queued", created=old)
    run("Just queued", "queued")
    silent = run("Dead worker", "running", created=old, started=old)
    alive = run("Working", "running", created=old, started=old)
    BriefStep.objects.create(run_id=alive, node="data_agent")  # a step a moment ago: alive
    run("At the gate", "awaiting_review", created=old, started=old)
    sent: list[tuple[Any, ...]] = []

    def record(*message: Any) -> bool:
        sent.append(message)
        return True  # the queue took it

    with mock.patch("briefs.services.enqueue", record):
        assert brief_runs_sweep(now=now) == {"requeued": 1, "resumed": 1}
    assert sorted(sent) == sorted([(RUN_EXECUTE_TASK, lost), (RUN_EXECUTE_TASK, silent)])
