"""Known gaps: metrics below their target today, each with the reason and the floor measured when
it was listed. The target is never lowered to pass; the gate instead fails when a known gap gets
*worse* than its floor, and when any other metric is below its target.

Remove an entry as soon as the metric meets its target (the gate says so).
"""

from __future__ import annotations

from typing import Any

from evaluation.metrics import METRICS, fmt

# metric key -> {"reason": why it is below target today, "floor": the value measured then}
# (Injection resistance was listed here until the writer's rewrite had to restate the evidence —
# research/agent/rewrite.py ``ungrounded``.)
# (The two filings metrics were listed here, at 58 % and 2.7 %, until statement tables became rows,
# answers were computed from their cells and questions were narrowed to the company's filings.)
KNOWN_GAPS: dict[str, dict[str, Any]] = {}


def gate_failures(values: dict[str, dict[str, Any]]) -> list[str]:
    """What fails the gate, in words: a metric below target that is not a known gap, or a known
    gap below its recorded floor."""
    out = []
    for key, row in values.items():
        if row.get("ok") is not False:
            continue
        metric = METRICS[key]
        gap = KNOWN_GAPS.get(key)
        shown = fmt(row["value"], metric.unit)
        if gap is None:
            out.append(f"{metric.name}: {shown}, target {metric.target_text}")
        elif not metric.meets_floor(row["value"], gap["floor"]):
            out.append(f"{metric.name}: {shown}, worse than the known gap's floor {fmt(gap['floor'], metric.unit)}")
    return out


def known_gaps(values: dict[str, dict[str, Any]]) -> list[str]:
    """The known gaps that are still below target, with their reasons (printed by the gate)."""
    return [
        f"{METRICS[k].name}: {fmt(values[k]['value'], METRICS[k].unit)} "
        f"(target {METRICS[k].target_text}) — {g['reason']}"
        for k, g in KNOWN_GAPS.items()
        if k in values and values[k].get("ok") is False
    ]


def closed_gaps(values: dict[str, dict[str, Any]]) -> list[str]:
    """Known gaps whose metric now meets its target: the entry should go."""
    return [METRICS[k].name for k in KNOWN_GAPS if k in values and values[k].get("ok") is True]
