"""The brief graph's state. Channels written by the parallel data and news agents carry explicit
reducers, so both workers' writes in one superstep survive."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

# The graph's name in review tasks and the resume registry. Here, not in graph.py, because
# services.py names it when it opens a review and must not import the graph (graph → nodes →
# store → services).
GRAPH_NAME = "morning_brief"


def merge_dicts(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Key-wise merge; a ``None`` value removes the key (how regeneration clears a ticker)."""
    out = dict(left or {})
    for key, value in (right or {}).items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def add_counts(left: dict[str, int] | None, right: dict[str, int] | None) -> dict[str, int]:
    out = dict(left or {})
    for key, value in (right or {}).items():
        out[key] = out.get(key, 0) + value
    return out


class BriefState(TypedDict, total=False):
    run_id: int
    user_id: int
    watchlist_id: int
    watchlist_name: str
    tickers: list[str]  # the scope: fixed from the watchlist when the run starts
    benchmark: str  # the lead's point of comparison (may be outside the scope: context only)
    brief_date: str  # ISO date the brief is produced for (staleness is measured against it)
    # Shared channels (parallel writers): explicit reducers.
    prices: Annotated[dict[str, Any], merge_dicts]  # ticker → compute_metrics output + call id
    # No longer written: the verifier reads the stored bars itself. Kept so that runs paused by an
    # earlier version (whose checkpoints carry it) still resume.
    bars: Annotated[dict[str, Any], merge_dicts]
    sentiment: Annotated[dict[str, Any], merge_dicts]  # ticker → news, sentiment, risk events
    errors: Annotated[list[dict[str, Any]], operator.add]
    attempts: Annotated[dict[str, int], add_counts]
    worker_status: Annotated[dict[str, str], merge_dicts]  # worker → pending | done | failed
    tokens: Annotated[int, operator.add]
    cost_usd: Annotated[float, operator.add]
    iterations: Annotated[int, operator.add]
    # Written by one node at a time.
    next_workers: list[str]
    stop: str  # "" | "budget_abort" | "iteration_cap"
    refetch: list[str]
    claims: list[dict[str, Any]]
    draft: dict[str, Any]
    verification: dict[str, Any]
    regenerations: int
    brief_id: int
    gate_round: int
    gate_note: str
    decision: dict[str, Any]
    outcome: str  # approved | rejected | blocked | edit_invalid | no_data
