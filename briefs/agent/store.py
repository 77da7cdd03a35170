"""What the graph's nodes persist: steps, progress, the brief, the review task, the ending.

Imported lazily by the nodes (never at graph import time). Every write is idempotent because
nodes before an ``interrupt()`` run again when a run resumes.

Steps are buffered per node (:class:`StepLog`) and written in one insert when the node ends — also
when it ends by ``interrupt()`` or an exception — so the run page still shows each node's steps as
soon as the node finishes, for one statement instead of one per tool call."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from decimal import Decimal
from types import TracebackType
from typing import Any

from django.contrib.auth import get_user_model

from briefs.durability import relaxed_commit
from briefs.models import BriefRun, BriefStep
from core.tools import ToolError, ToolOutcome, call_tool


@dataclass(frozen=True)
class StepOutcome:
    outcome: ToolOutcome
    call_id: str

    @property
    def ok(self) -> bool:
        return self.outcome.ok

    @property
    def error(self) -> ToolError | None:
        return self.outcome.error

    def as_dict(self) -> dict[str, Any]:
        return self.outcome.as_dict()


def acting_user(user_id: int) -> Any:
    return get_user_model().objects.get(pk=user_id)


def _summary(name: str, out: dict[str, Any]) -> dict[str, Any]:
    """What the step log keeps of a tool output: enough to audit, not the whole series."""
    if name == "fetch_rss_news":
        return {
            **{k: v for k, v in out.items() if k not in {"items", "risk_evidence"}},
            "headlines": [i["title"] for i in out.get("items", [])],
        }
    if name == "compute_metrics":
        return {k: v for k, v in out.items() if k not in {"period_returns_pct", "period_baseline_dates"}}
    return out


class StepLog:
    """A node's steps, written together when the node ends (``with StepLog(run_id) as log:``)."""

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        self.rows: list[BriefStep] = []

    def __enter__(self) -> StepLog:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.flush()

    def step(
        self,
        node: str,
        *,
        tool: str = "",
        call_id: str = "",
        inputs: dict[str, Any] | None = None,
        outputs: dict[str, Any] | None = None,
        error: str = "",
        latency_ms: float = 0.0,
        tokens: int = 0,
        cost_usd: float = 0.0,
    ) -> None:
        self.rows.append(
            BriefStep(
                run_id=self.run_id,
                node=node,
                tool=tool,
                call_id=call_id,
                inputs=inputs or {},
                outputs=outputs or {},
                error=error[:500],
                latency_ms=round(latency_ms, 3),
                tokens=tokens,
                cost_usd=cost_usd,
            )
        )

    def tool_step(self, node: str, name: str, args: dict[str, Any], user: Any) -> StepOutcome:
        """Call a registry tool as ``user`` and record the step."""
        call_id = uuid.uuid4().hex[:12]
        outcome = call_tool(name, args, user=user)
        self.step(
            node,
            tool=name,
            call_id=call_id,
            inputs=args,
            outputs=_summary(name, outcome.as_dict()) if outcome.ok else {},
            error=f"{outcome.error.error}: {outcome.error.message}" if outcome.error else "",
            latency_ms=outcome.latency_ms,
        )
        return StepOutcome(outcome, call_id)

    def flush(self) -> None:
        if self.rows:
            with relaxed_commit():
                BriefStep.objects.bulk_create(self.rows)
            self.rows = []


def step(run_id: int, node: str, **fields: Any) -> None:
    """One step written at once (for the few places that record a single step)."""
    with StepLog(run_id) as log:
        log.step(node, **fields)


def supervisor_step(
    run_id: int,
    *,
    outputs: dict[str, Any],
    latency_ms: float,
    tokens: int,
    cost_usd: float,
    iterations: int,
    run_tokens: int,
    run_cost_usd: float,
) -> None:
    """The supervisor's step and the run's progress (its running totals), in one transaction."""
    with relaxed_commit():
        BriefStep.objects.create(
            run_id=run_id, node="supervisor", outputs=outputs, latency_ms=round(latency_ms, 3), tokens=tokens,
            cost_usd=cost_usd,
        )  # fmt: skip
        BriefRun.objects.filter(pk=run_id).update(
            iterations=iterations, tokens=run_tokens, cost_usd=Decimal(str(round(run_cost_usd, 6)))
        )


def instruments(user: Any, symbols: list[str]) -> dict[str, Any]:
    """Name, currency and kind of the run's instruments (one query)."""
    from portfolios.selectors import instruments_describe

    return instruments_describe(user=user, symbols=symbols)


def stored_bars(user: Any, symbols: list[str]) -> dict[str, Any]:
    """The stored daily bars the verifier recomputes from (one query; not the tools' cache)."""
    from portfolios.selectors import stored_closes

    return stored_closes(user=user, symbols=symbols)


def brief_open_for_review(state: Any, rnd: int) -> tuple[int, int]:
    from briefs import services

    return services.brief_open_for_review(state=state, gate_round=rnd)


def brief_deliver(state: Any) -> None:
    from briefs import delivery

    delivery.brief_deliver(run_id=state["run_id"], brief_id=state["brief_id"])


def run_finish(state: Any) -> None:
    from briefs import services

    services.run_finish(state=state)


def brief_decision(brief_id: int, decision: dict[str, Any], draft: dict[str, Any] | None) -> None:
    from briefs import services

    services.brief_record_decision(brief_id=brief_id, decision=decision, draft=draft)
