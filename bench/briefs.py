"""Morning briefs: a 5-ticker brief (RELIANCE, INFY, TCS, HDFCBANK, SBIN) on the deterministic engine
and the shipped snapshot data, from RUN (``brief_run_start``) to waiting at the review gate, with the
Celery task executed eagerly in-process (the queue hop is not timed) and the news agent reading the
shipped RSS capture from a local HTTP server. 20 warm runs (target ≤ 3 s each) plus the first (cold)
run; the share of numeric claims the verifier recomputed and matched across all runs (target 100 %).
Each run is then cancelled through the review service so the next may start (one active per watchlist).
"""

from __future__ import annotations

import statistics
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench._common import median_p95

FEED = (
    Path(__file__).resolve().parents[1]
    / "tests"
    / "briefs"
    / "fixtures"
    / "rss"
    / "thehindu_business_economy_rss_2025-04-03.xml"
)
TICKERS = ["RELIANCE.NS", "INFY.NS", "TCS.NS", "HDFCBANK.NS", "SBIN.NS"]
RUNS = 20
NODES = ("supervisor", "data_agent", "news_agent", "writer", "verifier")  # reported in this order


class _Feed(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = FEED.read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _one_run(user: Any, watchlist_id: int) -> tuple[float, int, int, dict[str, float]]:
    from briefs.models import Brief, BriefRun, BriefStep
    from briefs.services import brief_run_start
    from reviews.models import ReviewTask
    from reviews.services import review_task_close

    started = time.perf_counter()
    run = brief_run_start(user=user, watchlist_id=watchlist_id)  # eager: runs to the gate before returning
    elapsed = time.perf_counter() - started
    run.refresh_from_db()
    assert run.status == BriefRun.Status.AWAITING_REVIEW, (run.status, run.note)
    brief = Brief.objects.get(run=run)
    checks = brief.verification["checks"]
    by_node: dict[str, float] = {}
    for node, ms in BriefStep.objects.filter(run=run).values_list("node", "latency_ms"):
        by_node[node] = by_node.get(node, 0.0) + ms
    task = ReviewTask.objects.get(thread_id=run.thread_id, request_key="gate-0")
    review_task_close(task=task, outcome="cancel", reason="benchmark")
    return elapsed, sum(1 for c in checks if c["verified"]), len(checks), by_node


@dataclass
class _Measured:
    """What the cold run and the RUNS warm runs measured."""

    cold_s: float
    verified: int  # numeric claims the verifier matched, over all runs (cold included)
    total: int  # numeric claims checked, over all runs (cold included)
    warm_ms: list[float] = field(default_factory=list)
    node_ms: dict[str, list[float]] = field(default_factory=dict)  # per node, one sum per warm run


def _serve_feed() -> ThreadingHTTPServer:
    """The shipped RSS capture on a loopback port, so the news agent never leaves the machine."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Feed)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _point_briefs_at(port: int) -> None:
    """News from the local feed server, and no e-mail."""
    from django.conf import settings

    settings.BRIEF_NEWS_FEEDS = [
        f"http://127.0.0.1:{port}/yahoo/{{symbol}}.xml",
        f"http://127.0.0.1:{port}/google/{{symbol}}.xml",
    ]
    settings.BRIEF_EMAIL_ENABLED = False


def _measure() -> _Measured:
    """One cold run, then RUNS warm ones, of the five-ticker watchlist."""
    from core.services import user_ensure
    from portfolios.models import Watchlist

    user, _ = user_ensure(email="bench@alphadesk.local", roles=["analyst"], password=None)
    watchlist, _ = Watchlist.objects.update_or_create(owner=user, name="Bench five", defaults={"tickers": TICKERS})
    cold, verified, total, _ = _one_run(user, watchlist.pk)
    measured = _Measured(cold_s=cold, verified=verified, total=total)
    for _ in range(RUNS):
        elapsed, ok, n, by_node = _one_run(user, watchlist.pk)
        measured.warm_ms.append(elapsed * 1000)
        measured.verified, measured.total = measured.verified + ok, measured.total + n
        for node, ms in by_node.items():
            measured.node_ms.setdefault(node, []).append(ms)
    return measured


def _latency_rows(measured: _Measured) -> list[dict[str, Any]]:
    median, p95 = median_p95(measured.warm_ms, digits=1)
    return [
        {
            "what": "5-ticker brief, RUN → waiting at gate, first (cold) run",
            "n": 1,
            "median_ms": round(measured.cold_s * 1000, 1),
            "p95_ms": "",
        },
        {
            "what": "5-ticker brief, RUN → waiting at gate, warm (target ≤ 3 s)",
            "n": len(measured.warm_ms),
            "median_ms": median,
            "p95_ms": p95,
        },
    ]


def _node_rows(node_ms: dict[str, list[float]]) -> list[dict[str, Any]]:
    return [
        {
            "what": f"  … {node} (sum of its steps per run)",
            "n": len(node_ms[node]),
            "median_ms": round(statistics.median(node_ms[node]), 1),
            "p95_ms": "",
        }
        for node in NODES
        if node in node_ms
    ]


def _verified_row(verified: int, total: int) -> dict[str, Any]:
    return {
        "what": f"numeric claims verified across {RUNS + 1} runs (target 100 %)",
        "n": total,
        "median_ms": f"{verified}/{total} = {100 * verified / total:.1f} %",
        "p95_ms": "",
    }


def run() -> list[dict[str, Any]]:
    from django.core.management import call_command

    from config.celery import app

    call_command("migrate", verbosity=0)
    server = _serve_feed()
    _point_briefs_at(server.server_address[1])
    app.conf.task_always_eager = True
    try:
        measured = _measure()
    finally:
        app.conf.task_always_eager = False
        server.shutdown()
        server.server_close()
    rows = _latency_rows(measured) + _node_rows(measured.node_ms)
    rows.append(_verified_row(measured.verified, measured.total))
    return rows
