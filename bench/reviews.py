"""Reviews: decision latency (lock + conditional update + decision row + audit append), resume of a
paused graph on the Postgres checkpointer (in-process), inbox and audit page latency with many rows,
audit append and chain verification throughput, streamed CSV export. Warm, in-process, median/p95."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bench._common import median_p95_columns

if TYPE_CHECKING:
    from django.test import Client

    from reviews.models import ReviewTask

N_TASKS = 500
N_DECISIONS = 100
N_AUDIT = 2000
GRAPH_RUNS = 20
PAGE_LOADS = 30
PAYLOAD = {"editable": {"body": "INFY closed at [c1]."}, "claims": [{"id": "c1", "value": "1,935.10"}]}


def _stats(samples: list[float]) -> dict[str, Any]:
    return {"n": len(samples), **median_p95_columns(samples)}


def _time(fn: Callable[[], Any]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def _users() -> tuple[Any, Any]:
    """Migrate, then (analyst, reviewer): the one asks for reviews, the other decides them."""
    from django.core.management import call_command

    from core.services import user_ensure

    call_command("migrate", verbosity=0)
    analyst, _ = user_ensure(email="bench-analyst@alphadesk.local", roles=["analyst"], password=None)
    reviewer, _ = user_ensure(email="bench-reviewer@alphadesk.local", roles=["reviewer"], password=None)
    return analyst, reviewer


def _new_task(analyst: Any, thread_id: str | None = None) -> ReviewTask:
    from reviews.probe_graph import GRAPH_NAME
    from reviews.services import review_task_request

    return review_task_request(
        requested_by=analyst,
        subject_owner=analyst,
        kind="brief_approval",
        title="bench",
        graph_name=GRAPH_NAME,
        thread_id=thread_id or f"bench-{uuid.uuid4()}",
        payload=PAYLOAD,
    )


def _request_tasks(analyst: Any) -> tuple[list[ReviewTask], dict[str, Any]]:
    """N_DECISIONS new tasks (to decide next) and the row timing their requests."""
    request_ms = []
    tasks = []
    for _ in range(N_DECISIONS):
        started = time.perf_counter()
        tasks.append(_new_task(analyst))
        request_ms.append((time.perf_counter() - started) * 1000)
    return tasks, {"what": "review_task_request (insert + audit)", **_stats(request_ms)}


def _decide_row(reviewer: Any, tasks: list[ReviewTask]) -> dict[str, Any]:
    from reviews.services import review_task_decide

    decide_ms = []
    for task in tasks:
        started = time.perf_counter()
        review_task_decide(user=reviewer, task_id=task.pk, outcome="approve")
        decide_ms.append((time.perf_counter() - started) * 1000)
    return {"what": "review_task_decide approve (lock, update, decision, audit)", **_stats(decide_ms)}


def _graph_rows(analyst: Any, reviewer: Any) -> list[dict[str, Any]]:
    """Run the probe graph to its interrupt, approve, and time the resume (both on PostgresSaver)."""
    from reviews.probe_graph import probe_run_start, probe_run_state
    from reviews.services import review_task_decide, review_task_resume_run

    start_ms, resume_ms = [], []
    for _ in range(GRAPH_RUNS):
        started = time.perf_counter()
        thread_id = probe_run_start(title="bench")
        start_ms.append((time.perf_counter() - started) * 1000)
        task = _new_task(analyst, thread_id)
        review_task_decide(user=reviewer, task_id=task.pk, outcome="approve")
        started = time.perf_counter()
        review_task_resume_run(task_id=task.pk)
        resume_ms.append((time.perf_counter() - started) * 1000)
        assert probe_run_state(thread_id)["values"]["result"] == "published"
    return [
        {"what": "probe graph run to interrupt (PostgresSaver)", **_stats(start_ms)},
        {"what": "resume paused graph with the decision (claim + invoke + audit)", **_stats(resume_ms)},
    ]


def _fill_inbox(analyst: Any) -> int:
    """Top the pending tasks up to N_TASKS (earlier runs leave some behind); returns how many are pending."""
    from reviews.models import ReviewTask

    pending = ReviewTask.objects.filter(state="pending").count()
    while pending < N_TASKS:
        _new_task(analyst)
        pending += 1
    return pending


def _reviewer_client(reviewer: Any) -> Client:
    from django.test import Client

    client = Client(HTTP_HOST="localhost")
    client.force_login(reviewer)
    return client


def _inbox_rows(client: Client, pending: int) -> list[dict[str, Any]]:
    client.get("/reviews/")  # warm-up, not timed
    inbox_ms = [_time(lambda: client.get("/reviews/")) for _ in range(PAGE_LOADS)]
    partial_ms = [
        _time(lambda: client.get("/reviews/?kind=brief_approval", HTTP_HX_REQUEST="true")) for _ in range(PAGE_LOADS)
    ]
    return [
        {"what": f"GET /reviews/ inbox ({pending} pending, page of 50)", **_stats(inbox_ms)},
        {"what": "GET /reviews/ htmx partial (filtered)", **_stats(partial_ms)},
    ]


def _append_row(analyst: Any) -> dict[str, Any]:
    from core.audit import audit_record

    append_ms = [_time(lambda: audit_record(actor=analyst, action="bench.append")) for _ in range(N_AUDIT)]
    return {"what": "audit_record append (advisory lock + hash)", **_stats(append_ms)}


def _audit_page_row(client: Client, total: int) -> dict[str, Any]:
    audit_ms = [_time(lambda: client.get("/reviews/audit/")) for _ in range(PAGE_LOADS)]
    return {"what": f"GET /reviews/audit/ ({total} events, page of 50)", **_stats(audit_ms)}


def _throughput_row(what: str, seconds: float, total: int) -> dict[str, Any]:
    """A single timed pass over all ``total`` audit events."""
    return {"what": what, "n": 1, "median_ms": round(seconds * 1000, 1), "events_per_s": round(total / seconds)}


def _verify_row(total: int) -> dict[str, Any]:
    from core.audit import audit_chain_breaks

    started = time.perf_counter()
    breaks = list(audit_chain_breaks())
    verify_s = time.perf_counter() - started
    return _throughput_row(f"verify_audit over {total} events ({len(breaks)} breaks)", verify_s, total)


def _export_row(client: Client, total: int) -> dict[str, Any]:
    started = time.perf_counter()
    response: Any = client.get("/reviews/audit/export.csv")
    size = sum(len(chunk) for chunk in response.streaming_content)  # the export streams: time it all
    export_s = time.perf_counter() - started
    return _throughput_row(f"CSV export of {total} events ({size / 1e6:.1f} MB)", export_s, total)


def run() -> list[dict[str, Any]]:
    from core.models import AuditEvent

    analyst, reviewer = _users()
    tasks, request_row = _request_tasks(analyst)
    rows = [request_row, _decide_row(reviewer, tasks)]
    rows += _graph_rows(analyst, reviewer)
    pending = _fill_inbox(analyst)
    client = _reviewer_client(reviewer)
    rows += _inbox_rows(client, pending)
    rows.append(_append_row(analyst))
    total = AuditEvent.objects.count()  # after the appends: the audit page and the passes cover them all
    rows.append(_audit_page_row(client, total))
    rows.append(_verify_row(total))
    rows.append(_export_row(client, total))
    return rows
