"""Reviews: decision latency (lock + conditional update + decision row + audit append), resume of a
paused graph on the Postgres checkpointer (in-process), inbox and audit page latency with many rows,
audit append and chain verification throughput, streamed CSV export. Warm, in-process, median/p95."""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any

N_TASKS = 500
N_DECISIONS = 100
N_AUDIT = 2000


def _stats(samples: list[float]) -> dict[str, Any]:
    ordered = sorted(samples)
    return {
        "n": len(ordered),
        "median_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
    }


def _time(fn: Callable[[], Any]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def run() -> list[dict[str, Any]]:
    from django.core.management import call_command
    from django.test import Client

    from core.audit import audit_chain_breaks, audit_record
    from core.models import AuditEvent
    from core.services import user_ensure
    from reviews.models import ReviewTask
    from reviews.probe_graph import GRAPH_NAME, probe_run_start, probe_run_state
    from reviews.services import (
        review_task_decide,
        review_task_request,
        review_task_resume_run,
    )

    call_command("migrate", verbosity=0)
    analyst, _ = user_ensure(email="bench-analyst@alphadesk.local", roles=["analyst"], password=None)
    reviewer, _ = user_ensure(email="bench-reviewer@alphadesk.local", roles=["reviewer"], password=None)
    payload = {"editable": {"body": "INFY closed at [c1]."}, "claims": [{"id": "c1", "value": "1,935.10"}]}

    def new_task(thread_id: str | None = None) -> ReviewTask:
        return review_task_request(
            requested_by=analyst,
            subject_owner=analyst,
            kind="brief_approval",
            title="bench",
            graph_name=GRAPH_NAME,
            thread_id=thread_id or f"bench-{uuid.uuid4()}",
            payload=payload,
        )

    rows: list[dict[str, Any]] = []
    request_ms = []
    tasks = []
    for _ in range(N_DECISIONS):
        started = time.perf_counter()
        tasks.append(new_task())
        request_ms.append((time.perf_counter() - started) * 1000)
    rows.append({"what": "review_task_request (insert + audit)", **_stats(request_ms)})
    decide_ms = []
    for task in tasks:
        started = time.perf_counter()
        review_task_decide(user=reviewer, task_id=task.pk, outcome="approve")
        decide_ms.append((time.perf_counter() - started) * 1000)
    rows.append({"what": "review_task_decide approve (lock, update, decision, audit)", **_stats(decide_ms)})

    start_ms, resume_ms = [], []
    for _ in range(20):
        started = time.perf_counter()
        thread_id = probe_run_start(title="bench")
        start_ms.append((time.perf_counter() - started) * 1000)
        task = new_task(thread_id)
        review_task_decide(user=reviewer, task_id=task.pk, outcome="approve")
        started = time.perf_counter()
        review_task_resume_run(task_id=task.pk)
        resume_ms.append((time.perf_counter() - started) * 1000)
        assert probe_run_state(thread_id)["values"]["result"] == "published"
    rows.append({"what": "probe graph run to interrupt (PostgresSaver)", **_stats(start_ms)})
    rows.append({"what": "resume paused graph with the decision (claim + invoke + audit)", **_stats(resume_ms)})

    pending = ReviewTask.objects.filter(state="pending").count()
    while pending < N_TASKS:
        new_task()
        pending += 1
    client = Client(HTTP_HOST="localhost")
    client.force_login(reviewer)
    client.get("/reviews/")
    inbox_ms = [_time(lambda: client.get("/reviews/")) for _ in range(30)]
    rows.append({"what": f"GET /reviews/ inbox ({pending} pending, page of 50)", **_stats(inbox_ms)})
    partial_ms = [_time(lambda: client.get("/reviews/?kind=brief_approval", HTTP_HX_REQUEST="true")) for _ in range(30)]
    rows.append({"what": "GET /reviews/ htmx partial (filtered)", **_stats(partial_ms)})

    append_ms = [_time(lambda: audit_record(actor=analyst, action="bench.append")) for _ in range(N_AUDIT)]
    rows.append({"what": "audit_record append (advisory lock + hash)", **_stats(append_ms)})
    total = AuditEvent.objects.count()
    audit_ms = [_time(lambda: client.get("/reviews/audit/")) for _ in range(30)]
    rows.append({"what": f"GET /reviews/audit/ ({total} events, page of 50)", **_stats(audit_ms)})

    started = time.perf_counter()
    breaks = list(audit_chain_breaks())
    verify_s = time.perf_counter() - started
    rows.append(
        {
            "what": f"verify_audit over {total} events ({len(breaks)} breaks)",
            "n": 1,
            "median_ms": round(verify_s * 1000, 1),
            "events_per_s": round(total / verify_s),
        }
    )
    started = time.perf_counter()
    response: Any = client.get("/reviews/audit/export.csv")
    size = sum(len(chunk) for chunk in response.streaming_content)
    export_s = time.perf_counter() - started
    rows.append(
        {
            "what": f"CSV export of {total} events ({size / 1e6:.1f} MB)",
            "n": 1,
            "median_ms": round(export_s * 1000, 1),
            "events_per_s": round(total / export_s),
        }
    )
    return rows
