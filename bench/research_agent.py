"""Research agent (deterministic engine): turn latency from submit to answer through the real queue
with a warm Celery worker on the whole demo corpus (41 MPC minutes and the Annual Report, ~4,000
passages; the embedding cache makes loading it quick after the first time), per-node time, and the
share of turns planned without an LLM call on the analyst question fixture set
(tests/research/agent/analyst_questions.json). Targets: p50 ≤ 500 ms, p95 ≤ 1.5 s, share ≥ 70 %."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "tests" / "research" / "agent" / "analyst_questions.json"
ROUNDS = 3
# Multi-turn conversations exercising memory, retrieval, market data, portfolio and calculator.
CONVERSATIONS = [
    [
        "What policy repo rate did the MPC decide at its August 2024 meeting?",
        "And at the previous meeting?",
        "What is the percentage change between those two?",
    ],
    ["What was the CPI inflation projection for 2024-25 in the June 2024 minutes?", "and at the previous meeting?"],
    ["What is the current price of INFY?", "how does it compare with TCS?"],
    ["Analyse a portfolio of 40% INFY, 30% TCS and 30% HDFCBANK"],
    ["What is the CAGR from 100 to 180 over 5 years?", "What is (1523.2 - 1480.5) / 1480.5 * 100?"],
    ["Which MPC members voted to reduce the repo rate by 25 basis points?"],
    ["Compare the policy stance in the June 2024 and August 2024 MPC minutes"],
    # Issue 13: series moves, votes from the table, the Annual Report, horizons, saved portfolios.
    [
        "What did the MPC decide on the policy repo rate in June 2022?",
        "And at the following meeting?",
        "What is the percentage increase between those two rates?",
    ],
    ["How did the MPC members vote at the August 2024 meeting?", "And at the same meeting last year?"],
    ["What was the Reserve Bank's balance sheet size as a share of GDP at end-March 2024, per the annual report?"],
    ["How has INFY performed over the last year compared with TCS?"],
    ["How has my Bench India portfolio performed?"],
    ["What did the MPC decide at its October 2019 meeting?"],
]


def _pct(ordered: list[float], q: float) -> float:
    return round(ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))], 1)


def _start_worker() -> subprocess.Popen[bytes]:
    from django.conf import settings

    from config.celery import app

    env = {**os.environ, "DATABASE_URL": _db_url(), "REDIS_URL": settings.REDIS_URL, "PYTHONWARNINGS": "ignore"}
    log = (ROOT / "var" / "bench-celery.log").open("wb")
    proc = subprocess.Popen(  # noqa: S603 — our own interpreter and fixed arguments
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool",
            "solo",
            "--loglevel",
            "WARNING",
            "--hostname",
            f"bench-{os.getpid()}@%h",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if app.control.ping(timeout=0.5):
            return proc
    proc.terminate()
    raise RuntimeError("the Celery worker did not start")


def _db_url() -> str:
    from django.conf import settings

    return str(settings.DATABASE_URL)


def _ask(user: Any, question: str, conversation_id: Any) -> tuple[Any, float]:
    from research.chat.models import Turn
    from research.chat.services import chat_message_post

    started = time.perf_counter()
    turn = chat_message_post(user=user, question=question, conversation_id=conversation_id)
    while True:
        status = Turn.objects.filter(pk=turn.pk).values_list("status", flat=True).first()
        if status not in {"queued", "running"}:
            break
        time.sleep(0.005)
    return Turn.objects.get(pk=turn.pk), (time.perf_counter() - started) * 1000


@dataclass
class _Turns:
    """Every measured turn, in the order asked."""

    submit_ms: list[float] = field(default_factory=list)  # client: submit → answer read back
    server_ms: list[float] = field(default_factory=list)  # the turn's own latency_ms (0.0 when unset)
    statuses: dict[str, int] = field(default_factory=dict)
    turn_ids: list[int] = field(default_factory=list)


def _set_up() -> Any:
    """Migrate, load the whole demo corpus, and return the analyst who asks (with a saved portfolio)."""
    from django.core.management import call_command

    from core.services import user_ensure
    from portfolios.models import Portfolio
    from portfolios.services import portfolio_create

    call_command("migrate", verbosity=0)
    call_command("load_research_corpus", verbosity=0)  # every MPC minutes and the Annual Report
    user, _ = user_ensure(email="bench-chat@alphadesk.local", roles=["analyst"], password=None)
    if not Portfolio.objects.filter(owner=user, name="Bench India").exists():
        portfolio_create(
            user=user, name="Bench India", holdings=[("INFY.NS", 0.5), ("TCS.NS", 0.3), ("HDFCBANK.NS", 0.2)]
        )
    return user


def _rules_share_row() -> dict[str, Any]:
    """How many fixture questions the rule planner handles without an LLM call."""
    from research.agent.dialogue.planner import plan_rules

    cases = json.loads(QUESTIONS.read_text())
    no_llm = sum(1 for c in cases if plan_rules(c["q"]) is not None)
    return {
        "measure": "turns planned without an LLM (fixture set)",
        "n": len(cases),
        "value": f"{no_llm}/{len(cases)} = {no_llm / len(cases):.0%}",
        "target": "≥ 70 %",
    }


def _ask_conversations(user: Any) -> _Turns:
    """Warm the worker up, then ask every conversation ROUNDS times (follow-ups in the same conversation)."""
    _ask(user, "What is 1+1?", None)  # warm-up: imports, embedding model, connections
    _ask(user, "What policy repo rate did the MPC decide at its August 2024 meeting?", None)
    turns = _Turns()
    for _ in range(ROUNDS):
        for conversation in CONVERSATIONS:
            conversation_id = None
            for question in conversation:
                turn, elapsed = _ask(user, question, conversation_id)
                conversation_id = turn.conversation_id
                turns.submit_ms.append(elapsed)
                turns.server_ms.append(turn.latency_ms or 0.0)
                turns.statuses[turn.status] = turns.statuses.get(turn.status, 0) + 1
                turns.turn_ids.append(turn.pk)
    return turns


def _latency_rows(turns: _Turns) -> list[dict[str, Any]]:
    submit = sorted(turns.submit_ms)
    server = sorted(turns.server_ms)
    return [
        {
            "measure": "submit → answer via queue, warm worker (client)",
            "n": len(submit),
            "value": f"p50 {_pct(submit, 0.5)} ms · p95 {_pct(submit, 0.95)} ms · max {round(submit[-1], 1)} ms",
            "target": "p50 ≤ 500 ms, p95 ≤ 1500 ms",
        },
        {
            "measure": "turn created → finished (server)",
            "n": len(server),
            "value": f"p50 {_pct(server, 0.5)} ms · p95 {_pct(server, 0.95)} ms",
            "target": "",
        },
        {"measure": "turn outcomes", "n": len(turns.submit_ms), "value": json.dumps(turns.statuses), "target": ""},
    ]


def _node_rows(turn_ids: list[int]) -> list[dict[str, Any]]:
    """Mean time per graph node over the measured turns, slowest first."""
    from django.db.models import Avg, Count

    from research.chat.models import TraceStep

    per_node = (
        TraceStep.objects.filter(turn_id__in=turn_ids).values("node").annotate(n=Count("id"), ms=Avg("latency_ms"))
    )
    return [
        {"measure": f"node {entry['node']} (mean)", "n": entry["n"], "value": f"{entry['ms']:.1f} ms", "target": ""}
        for entry in sorted(per_node, key=lambda e: -e["ms"])
    ]


def run() -> list[dict[str, Any]]:
    user = _set_up()
    rows = [_rules_share_row()]
    worker = _start_worker()
    try:
        turns = _ask_conversations(user)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    rows += _latency_rows(turns)
    rows += _node_rows(turns.turn_ids)
    rows.append(
        {
            "measure": "mean of all",
            "n": len(turns.submit_ms),
            "value": f"{statistics.mean(turns.submit_ms):.1f} ms",
            "target": "",
        }
    )
    return rows
