"""The brief graph on real Postgres with the snapshot data and a local RSS server: reducers in a
real parallel superstep, the numeral-free schema, tamper → one regeneration → escalation,
partial briefs, the iteration cap, the budget abort, prompt injection, review edits, delivery."""

from __future__ import annotations

import threading
import time
from typing import Any
from unittest import mock

import pytest
from django.core import mail
from django.db.models import F
from pydantic import ValidationError

from briefs.agent.nodes import Plan
from briefs.claims import BriefSection
from tests.briefs.conftest import INJECTION, rss

pytestmark = pytest.mark.django_db(transaction=True)


def _run(watchlist: Any, analyst: Any, planner: Any = None) -> Any:
    """Create a run and execute it in this process (the graph runs until the gate or the end)."""
    from briefs.agent.graph import build_graph
    from briefs.models import BriefRun
    from briefs.runs import _initial_state
    from core.checkpoint import checkpointer

    run = BriefRun.objects.create(
        watchlist=watchlist, requested_by=analyst, trigger="api", tickers=list(watchlist.tickers), status="running"
    )
    state = _initial_state(run)
    with checkpointer() as saver:
        graph = build_graph(checkpointer=saver, planner=planner)
        graph.invoke(state, {"configurable": {"thread_id": run.thread_id}})
        values = graph.get_state({"configurable": {"thread_id": run.thread_id}}).values
    run.refresh_from_db()
    return run, values


def _decide(task_id: int, reviewer: Any, outcome: str, **kw: Any) -> None:
    from reviews.services import review_task_decide, review_task_resume_run

    # The resume runs here, in-process. Outside a test transaction the decision's commit hook would
    # publish it at once, and a worker another test left running would resume the run concurrently.
    with mock.patch("reviews.services._enqueue_resume"):
        review_task_decide(user=reviewer, task_id=task_id, outcome=outcome, **kw)
    review_task_resume_run(task_id=task_id)  # the worker's job, done here in-process


def test_numeral_free_schema() -> None:
    with pytest.raises(ValidationError, match="bare numeral"):
        BriefSection(ticker="INFY.NS", narrative="The stock rose 5% on the day.")
    with pytest.raises(ValidationError, match="bare numeral"):
        BriefSection(ticker="INFY.NS", narrative="rose {{c3}} to ٥")  # any script's digits
    assert BriefSection(ticker="INFY.NS", narrative="rose {{c3}}").narrative == "rose {{c3}}"


def test_both_agents_writes_survive_the_parallel_superstep(watchlist: Any, analyst: Any, feeds: Any) -> None:
    from briefs.models import BriefStep

    feeds.overrides["HDFCBANK.NS"] = rss([])  # the news agent writes an error ...
    watchlist.tickers = [*watchlist.tickers[:4], "NOPE.NS"]  # ... and so does the data agent
    watchlist.save()
    run, values = _run(watchlist, analyst)
    # Both workers ran in the same superstep (one supervisor step before, one after).
    nodes = list(BriefStep.objects.filter(run=run).values_list("node", flat=True))
    assert nodes[0] == "supervisor" and nodes.count("supervisor") == 2
    # The benchmark (^NSEI for an Indian list) rides along as context for the lead.
    assert set(values["prices"]) == {"RELIANCE.NS", "INFY.NS", "TCS.NS", "HDFCBANK.NS", "^NSEI"}
    assert not values.get("bars")  # the verifier reads the stored bars itself: no series in the checkpoint
    assert set(values["sentiment"]) == {"RELIANCE.NS", "INFY.NS", "TCS.NS", "HDFCBANK.NS", "NOPE.NS", "^NSEI"}
    errors = {(e["ticker"], e["source"], e["error"]) for e in values["errors"]}
    assert errors == {("NOPE.NS", "market", "unknown_ticker"), ("HDFCBANK.NS", "news", "no_news")}
    assert values["worker_status"] == {"data_agent": "done", "news_agent": "done"}
    assert values["attempts"] == {"data_agent": 1, "news_agent": 1}
    assert values["iterations"] == 2
    assert run.status == "awaiting_review" and run.partial
    assert values["verification"]["ok"] is True  # what was retrieved is verified; the rest is marked partial


def test_unknown_ticker_dead_network_and_empty_feed_give_a_partial_brief(
    watchlist: Any, analyst: Any, feeds: Any, settings: Any
) -> None:
    from briefs.models import Brief

    feeds.overrides["TCS.NS"] = rss([])  # empty feed
    feeds.overrides["INFY.NS"] = 503  # both feeds of INFY down
    watchlist.tickers = ["RELIANCE.NS", "INFY.NS", "TCS.NS", "ZZZZ.NS"]
    watchlist.save()
    run, values = _run(watchlist, analyst)
    errors = {(e["ticker"], e["error"]) for e in values["errors"]}
    assert ("ZZZZ.NS", "unknown_ticker") in errors
    assert ("INFY.NS", "provider_unavailable") in errors
    assert ("TCS.NS", "no_news") in errors
    brief = Brief.objects.get(run=run)
    assert brief.partial and run.partial and run.status == "awaiting_review"
    assert "PARTIAL BRIEF" in brief.body_text
    assert "Market data for this ticker could not be retrieved" in brief.body_text
    # A dead network for every feed: still a brief, still partial.
    run.status = "rejected"  # end the first run: one active run per watchlist
    run.save()
    settings.BRIEF_NEWS_FEEDS = ["http://127.0.0.1:9/{symbol}.xml"]
    watchlist.tickers = ["RELIANCE.NS"]
    watchlist.save()
    run2, values2 = _run(watchlist, analyst)
    assert run2.partial and {e["error"] for e in values2["errors"]} == {"provider_unavailable"}


def test_tampered_claim_is_caught_regenerated_once_then_escalated(
    watchlist: Any, analyst: Any, reviewer: Any, feeds: Any, settings: Any
) -> None:
    from briefs.models import Brief, BriefStep
    from core.tools import call_tool
    from portfolios.models import PriceBar
    from reviews.models import ReviewTask

    settings.BRIEF_EMAIL_ENABLED = True
    watchlist.tickers = ["RELIANCE.NS", "INFY.NS"]
    watchlist.save()
    quote = call_tool("compute_metrics", {"ticker": "RELIANCE.NS"}, user=analyst)  # the tool path caches the series
    assert quote.ok
    # The stored close moves by one cent behind the cache's back: the tool now reports a stale figure.
    last = PriceBar.objects.filter(instrument__symbol="RELIANCE.NS").order_by("-date").first()
    assert last is not None
    PriceBar.objects.filter(pk=last.pk).update(close=F("close") + 0.01)
    run, values = _run(watchlist, analyst)
    nodes = list(BriefStep.objects.filter(run=run).values_list("node", flat=True))
    assert nodes.count("verifier") == 2 and nodes.count("regenerate") == 1 and nodes.count("writer") == 2
    checks = {(c["ticker"], c["metric"]): c for c in values["verification"]["checks"]}
    bad = checks[("RELIANCE.NS", "last_close")]
    assert not bad["verified"] and bad["recomputed"] - bad["value"] == pytest.approx(0.01, abs=1e-6)
    assert all(c["verified"] for (t, _), c in checks.items() if t == "INFY.NS")
    task = ReviewTask.objects.get(thread_id=run.thread_id)
    assert task.title.startswith("ESCALATED") and task.payload["verification"]["status"] == "failed"
    brief = Brief.objects.get(run=run)
    assert "[unverified]" in brief.body_text  # a wrong number is never rendered
    # Approving an escalated brief sends nothing: the figures did not verify.
    _decide(task.pk, reviewer, "approve")
    run.refresh_from_db()
    assert run.status == "blocked" and mail.outbox == []


def test_supervisor_that_never_finishes_stops_at_the_cap(watchlist: Any, analyst: Any, feeds: Any) -> None:
    watchlist.tickers = ["RELIANCE.NS"]
    watchlist.save()
    run, values = _run(watchlist, analyst, planner=lambda state: Plan(workers=["news_agent"]))
    assert run.status == "iteration_cap" and values["stop"] == "iteration_cap"
    assert values["iterations"] == 15 and run.iterations == 15
    assert not hasattr(run, "brief") or run.brief is None


def test_budget_abort(watchlist: Any, analyst: Any, feeds: Any, settings: Any) -> None:
    settings.BRIEF_BUDGET_TOKENS = 10_000
    spend = Plan(workers=["data_agent", "news_agent"], tokens=6_000, cost_usd=0.02)
    run, values = _run(watchlist, analyst, planner=lambda state: spend)
    assert run.status == "budget_abort" and values["stop"] == "budget_abort"
    assert values["tokens"] == 12_000 and run.tokens == 12_000
    assert "budget" in run.note


def test_prompt_injection_in_a_headline_changes_nothing(
    watchlist: Any, analyst: Any, reviewer: Any, feeds: Any, settings: Any
) -> None:
    from briefs.models import BriefDelivery, BriefStep
    from reviews.models import ReviewTask

    settings.BRIEF_EMAIL_ENABLED = True
    feeds.overrides["RELIANCE.NS"] = rss([INJECTION, "Reliance shares rise on strong refining margins"])
    run, values = _run(watchlist, analyst)
    tickers_called = {s.inputs.get("ticker") for s in BriefStep.objects.filter(run=run).exclude(tool="")}
    assert tickers_called == {*watchlist.tickers, "^NSEI"}  # the list and its benchmark: no TSLA, nothing else
    assert sorted(s["ticker"] for s in values["draft"]["sections"]) == sorted(watchlist.tickers)
    quoted = [h["text"] for s in values["draft"]["sections"] for h in s["headlines"]]
    assert INJECTION in quoted  # quoted verbatim as data, nothing more
    task = ReviewTask.objects.get(thread_id=run.thread_id)
    _decide(task.pk, reviewer, "approve")
    delivery = BriefDelivery.objects.get(brief__run=run)
    assert delivery.recipients == ["desk@example.test", "pm@example.test"]
    assert len(mail.outbox) == 1 and sorted(mail.outbox[0].to) == ["desk@example.test", "pm@example.test"]
    assert "TSLA" not in "".join(s.inputs.get("ticker", "") for s in BriefStep.objects.filter(run=run))


def test_reviewer_edit_is_revalidated(watchlist: Any, analyst: Any, reviewer: Any, feeds: Any, settings: Any) -> None:
    from briefs.models import Brief, BriefDelivery
    from reviews.models import ReviewTask

    settings.BRIEF_EMAIL_ENABLED = False  # archived, not emailed
    watchlist.tickers = ["RELIANCE.NS", "INFY.NS"]
    watchlist.save()
    run, _ = _run(watchlist, analyst)
    first = ReviewTask.objects.get(thread_id=run.thread_id, request_key="gate-0")
    body = first.payload["editable"]["body"]
    assert "{{c" not in body and "⟦c" in body  # the reviewer edits rendered text with figure chips
    lead_end = body.index("\n\n## ")
    _decide(first.pk, reviewer, "edit", edited={"body": body[:lead_end] + " Jumped 5% today." + body[lead_end:]})
    second = ReviewTask.objects.get(thread_id=run.thread_id, request_key="gate-1")
    assert "bare numeral" in second.payload["note"]
    run.refresh_from_db()
    assert run.status == "awaiting_review"
    edited = body[:lead_end] + " A strong session for the list." + body[lead_end:]
    _decide(second.pk, reviewer, "edit", edited={"body": edited})
    run.refresh_from_db()
    brief = Brief.objects.get(run=run)
    assert run.status == "archived" and "not emailed" in run.note
    assert brief.status == "approved" and "A strong session for the list." in " ".join(brief.body_text.split())
    assert BriefDelivery.objects.get(brief=brief).emailed is False and mail.outbox == []


def test_twenty_concurrent_runs_give_exactly_one_active(watchlist: Any, analyst: Any) -> None:
    from briefs import services
    from briefs.models import BriefRun

    barrier = threading.Barrier(20)
    outcomes: list[str] = []

    def press() -> None:
        from django.db import connection

        try:
            barrier.wait()
            services.brief_run_start(user=analyst, watchlist_id=watchlist.pk)
            outcomes.append("started")
        except services.RunAlreadyActive as exc:
            assert "already in progress" in str(exc)
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=press) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["refused"] * 19 + ["started"]
    assert BriefRun.objects.filter(watchlist=watchlist, status__in=BriefRun.ACTIVE).count() == 1
    # The winner's message may reach a session worker: ending the run now makes its task a no-op, and
    # a run the worker already took is waited for, so the database is not flushed under its feet.
    BriefRun.objects.filter(watchlist=watchlist, status="queued").update(status="failed")
    deadline = time.monotonic() + 60
    while BriefRun.objects.filter(watchlist=watchlist, status="running").exists() and time.monotonic() < deadline:
        time.sleep(0.2)


def test_reject_and_smtp_failure_end_the_run_without_sending(
    watchlist: Any, analyst: Any, reviewer: Any, feeds: Any, settings: Any
) -> None:
    from briefs.models import Brief, BriefDelivery
    from reviews.models import ReviewTask

    watchlist.tickers = ["INFY.NS"]
    watchlist.save()
    run, _ = _run(watchlist, analyst)
    _decide(ReviewTask.objects.get(thread_id=run.thread_id).pk, reviewer, "reject", reason="Too thin today")
    run.refresh_from_db()
    assert run.status == "rejected" and "Too thin today" in run.note and reviewer.email in run.note
    assert Brief.objects.get(run=run).status == "rejected" and not BriefDelivery.objects.filter(brief__run=run).exists()

    # SMTP configured but unreachable: archived with the error, the run ends (not stuck active).
    settings.BRIEF_EMAIL_ENABLED = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2
    run2, _ = _run(watchlist, analyst)
    _decide(ReviewTask.objects.get(thread_id=run2.thread_id).pk, reviewer, "approve")
    run2.refresh_from_db()
    delivery = BriefDelivery.objects.get(brief__run=run2)
    assert run2.status == "failed" and "Email failed" in run2.note
    assert not delivery.emailed and delivery.sent_at is None and delivery.text.startswith("Morning brief: India")
