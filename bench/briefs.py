"""Morning briefs: a 5-ticker brief (RELIANCE, INFY, TCS, HDFCBANK, SBIN) on the deterministic engine
and the shipped snapshot data, from RUN (``brief_run_start``) to waiting at the review gate, with the
Celery task executed eagerly in-process (the queue hop is not timed), the Postgres checkpointer, the
step log, the audit writes and the full recompute of every claim included.

Three configurations, RUNS warm runs each; the first also reports the first (cold) run in this
process (modules imported beforehand, so imports are not counted):
- news ``captures``, checkpoints ``async``: the demo's defaults — news from the RSS capture shipped in
  ``data/news``, a checkpoint after every superstep (mid-run recovery);
- news ``feeds``: the same capture served by a loopback HTTP server as every ticker's two feeds (what
  the earlier measurements used);
- checkpoints ``exit``: a checkpoint only when the run pauses (BRIEF_CHECKPOINT_DURABILITY=exit).
Per run: SQL statements on every Django connection (the graph's worker threads included), the
checkpoint rows and bytes the run left, and the wall time of each graph node. Each run is then
cancelled through the review service so the next may start (one active run per watchlist).
Set ``BENCH_BRIEFS_RUNS`` for fewer or more warm runs (default 20).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import statistics
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench._briefs_probe import NODE_NAMES, NodeTimer, QueryCounter, checkpoint_footprint
from bench._common import median_p95

ROOT = Path(__file__).resolve().parents[1]
FEED = ROOT / "tests" / "briefs" / "fixtures" / "rss" / "thehindu_business_economy_rss_2025-04-03.xml"
TICKERS = ["RELIANCE.NS", "INFY.NS", "TCS.NS", "HDFCBANK.NS", "SBIN.NS"]
RUNS = int(os.environ.get("BENCH_BRIEFS_RUNS", "20"))


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


@dataclass
class _Sample:
    ms: float
    queries: int
    checkpoint_rows: int
    checkpoint_bytes: int
    nodes: dict[str, float]
    verified: int
    claims: int
    by_table: dict[str, int] = field(default_factory=dict)
    cpu_ms: float = 0.0  # this process's CPU time (all threads) during the run: the load-independent cost
    node_cpu: dict[str, float] = field(default_factory=dict)


@dataclass
class _Config:
    news: str  # BRIEF_NEWS_SOURCE
    durability: str = "async"  # BRIEF_CHECKPOINT_DURABILITY
    cold: _Sample | None = None
    warm: list[_Sample] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"news {self.news}, checkpoints {self.durability}"


def _one_run(user: Any, watchlist_id: int, counter: QueryCounter, timer: NodeTimer) -> _Sample:
    from briefs.models import Brief, BriefRun
    from briefs.services import brief_run_start
    from reviews.models import ReviewTask
    from reviews.services import review_task_close

    timer.take()  # forget what came before this run
    with counter.counting():
        started, cpu = time.perf_counter(), time.process_time()
        run = brief_run_start(user=user, watchlist_id=watchlist_id)  # eager: runs to the gate before returning
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    queries, by_table = counter.count, dict(counter.by_table)
    nodes, node_cpu = timer.take()
    run.refresh_from_db()
    assert run.status == BriefRun.Status.AWAITING_REVIEW, (run.status, run.note)
    checks = Brief.objects.get(run=run).verification["checks"]
    rows, size = checkpoint_footprint(run.thread_id)
    task = ReviewTask.objects.get(thread_id=run.thread_id, request_key="gate-0")
    review_task_close(task=task, outcome="cancel", reason="benchmark")
    verified = sum(1 for c in checks if c["verified"])
    return _Sample(elapsed * 1000, queries, rows, size, nodes, verified, len(checks), by_table, cpu * 1000, node_cpu)


def _serve_feed() -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Feed)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _configure(config: _Config, port: int) -> None:
    from django.conf import settings

    settings.BRIEF_EMAIL_ENABLED = False
    settings.BRIEF_NEWS_SOURCE = config.news  # ignored by code that predates the setting (always feeds)
    settings.BRIEF_CHECKPOINT_DURABILITY = config.durability  # likewise
    settings.BRIEF_NEWS_FEEDS = [
        f"http://127.0.0.1:{port}/yahoo/{{symbol}}.xml",
        f"http://127.0.0.1:{port}/google/{{symbol}}.xml",
    ]


def _warm_imports() -> None:
    """Import what a run imports lazily, so the cold run measures work, not imports."""
    names = (
        "langgraph.checkpoint.postgres", "langgraph.types", "core.llm", "portfolios.selectors", "briefs.tasks",
        "briefs.runs", "briefs.agent.graph", "briefs.agent.store", "briefs.agent.engine", "briefs.agent.llm_news",
        "briefs.agent.llm_writer", "briefs.services",
        # modules of the current code (an earlier checkout, measured for comparison, lacks them)
        "briefs.renderings", "briefs.markup", "briefs.news_captures", "briefs.render_html",
    )  # fmt: skip
    for name in names:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    from core.tools import registry

    registry()


def _measure(config: _Config, user: Any, watchlist_id: int, counter: QueryCounter, timer: NodeTimer) -> None:
    if config.cold is None:
        config.cold = _one_run(user, watchlist_id, counter, timer)
    for _ in range(RUNS):
        config.warm.append(_one_run(user, watchlist_id, counter, timer))


def _row(what: str, n: int, median: Any, p95: Any = "", queries: Any = "", checkpoint: str = "") -> dict[str, Any]:
    return {"what": what, "n": n, "median_ms": median, "p95_ms": p95, "queries": queries, "checkpoint": checkpoint}


def _critical_path(nodes: dict[str, float]) -> float:
    """Node time on the critical path: the two workers share a superstep, so only the slower counts."""
    workers = max(nodes.get("data_agent", 0.0), nodes.get("news_agent", 0.0))
    return workers + sum(ms for node, ms in nodes.items() if node not in {"data_agent", "news_agent"})


def _footprint(rows: float, size: float) -> str:
    return f"{round(rows)} rows · {size / 1024:.0f} KB"


def _rows(config: _Config, with_cold: bool) -> list[dict[str, Any]]:
    warm = config.warm
    median, p95 = median_p95([s.ms for s in warm], digits=1)
    what = f"5-ticker brief, RUN → waiting at gate ({config.label})"
    rows = []
    if with_cold and config.cold is not None:
        c = config.cold
        rows.append(_row(f"{what}, first run in a fresh process (target ≤ 600 ms)", 1, round(c.ms, 1), "",
                         c.queries, _footprint(c.checkpoint_rows, c.checkpoint_bytes)))  # fmt: skip
        nodes = ", ".join(f"{n} {c.nodes[n]:.0f}" for n in NODE_NAMES if n in c.nodes)
        rows.append(_row(f"  … of which, per node (ms): {nodes}; CPU {c.cpu_ms:.0f} ms", 1, ""))
    footprint = _footprint(statistics.median(s.checkpoint_rows for s in warm),
                           statistics.median(s.checkpoint_bytes for s in warm))  # fmt: skip
    rows.append(_row(f"{what}, warm (target ≤ 100 ms)", len(warm), median, p95,
                     round(statistics.median(s.queries for s in warm)), footprint))  # fmt: skip
    for node in NODE_NAMES:
        values = [s.nodes.get(node, 0.0) for s in warm]
        if any(values):
            cpu = round(statistics.median(s.node_cpu.get(node, 0.0) for s in warm), 1)
            rows.append(_row(f"  … {node} (wall time of the node per run; its CPU time {cpu} ms)", len(values),
                             round(statistics.median(values), 1)))  # fmt: skip
    rows.append(_row("  … CPU time of this process per run (all threads; the database server's is not counted)",
                     len(warm), round(statistics.median(s.cpu_ms for s in warm), 1)))  # fmt: skip
    rest = [s.ms - _critical_path(s.nodes) for s in warm]
    rows.append(_row("  … outside the nodes (start, claim, graph, checkpoints, final flush)", len(rest),
                     round(statistics.median(rest), 1)))  # fmt: skip
    return rows


def _query_rows(config: _Config) -> list[dict[str, Any]]:
    sample = config.warm[len(config.warm) // 2]
    top = sorted(sample.by_table.items(), key=lambda kv: -kv[1])[:8]
    text = ", ".join(f"{k} ×{v}" for k, v in top)
    return [_row(f"  … statements of one warm run ({config.label}): {text}", 1, "", "", sample.queries)]


def _verified_row(configs: list[_Config]) -> dict[str, Any]:
    samples = [s for c in configs for s in ([c.cold] if c.cold else []) + c.warm]
    verified, total = sum(s.verified for s in samples), sum(s.claims for s in samples)
    share = f"{verified}/{total} = {100 * verified / max(total, 1):.1f} %"
    return _row(f"numeric claims verified across {len(samples)} runs (target 100 %)", total, share)


def run() -> list[dict[str, Any]]:
    from django.core.management import call_command

    from config.celery import app
    from core.services import user_ensure
    from portfolios.models import Watchlist

    call_command("migrate", verbosity=0)
    _warm_imports()
    counter, timer = QueryCounter(), NodeTimer()
    counter.install()
    timer.install()
    server = _serve_feed()
    app.conf.task_always_eager = True
    configs = [_Config("captures"), _Config("feeds"), _Config("captures", "exit")]
    try:
        user, _ = user_ensure(email="bench@alphadesk.local", roles=["analyst"], password=None)
        watchlist, _ = Watchlist.objects.update_or_create(owner=user, name="Bench five", defaults={"tickers": TICKERS})
        for config in configs:
            _configure(config, server.server_address[1])
            _measure(config, user, watchlist.pk, counter, timer)
    finally:
        app.conf.task_always_eager = False
        server.shutdown()
        server.server_close()
    rows: list[dict[str, Any]] = []
    for i, config in enumerate(configs):
        rows += _rows(config, with_cold=i == 0) + _query_rows(config)
    rows.append(_verified_row(configs))
    return rows
