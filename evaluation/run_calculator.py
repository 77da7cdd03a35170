"""The calculator suite: each TAT-QA arithmetic question's gold derivation evaluated by the
product's calculator (``research/calculator.py``) and compared with the gold answer under the
dataset's own rules (``tatqa_metric.py`` of NExTplusplus/TAT-QA):

* both numbers are rounded to two decimals before comparison;
* an answer on the ``percent`` scale also matches a bare ratio: gold 23.42 (percent) = 0.2342,
  which is how most percent derivations are written ("(44.1-56.7)/56.7").

A miss is explained by kind: the derivation is not an expression the calculator accepts, the
gold answer was rounded from unrounded inputs, or the numbers differ for another reason.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from evaluation.run_chat import CaseOutcome
from evaluation.suites import CalcCase
from research.calculator import CalculatorError, evaluate


def prepare(derivation: str) -> str:
    """The derivation as calculator input: currency signs and thousands separators dropped."""
    text = derivation.replace("$", "").replace("€", "").replace("£", "").strip()
    return re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)


def matches(value: float, gold: float, scale: str) -> bool:
    if round(value, 2) == round(gold, 2):
        return True
    return scale == "percent" and f"{value:.4f}" == f"{round(gold, 2) * 0.01:.4f}"


def _miss_kind(value: float, gold: float, scale: str) -> str:
    scaled = value * 100 if scale == "percent" else value
    if abs(scaled - gold) <= max(0.06, 0.006 * abs(gold)):
        return "gold rounded differently (inputs or intermediate results rounded in the dataset)"
    if abs(abs(scaled) - abs(gold)) <= 0.01 * max(1, abs(gold)):
        return "sign differs (the dataset states a decrease as a positive number)"
    return "different number (the gold answer does not follow from its derivation)"


def run_case(case: CalcCase) -> CaseOutcome:
    out = CaseOutcome(
        case_id=case.id,
        version=case.version,
        variant="",
        tags=list(case.tags),
        source="TAT-QA dev (NExTplusplus/TAT-QA @870accc4), gold derivation and answer",
        inputs={"question": case.question, "derivation": case.derivation, "scale": case.scale},
        expected={"answer": case.answer, "scale": case.scale},
    )
    try:
        gold = float(str(case.answer).replace(",", ""))
    except ValueError:
        out.outcome, out.reason = "fail", "gold answer is not a number"
        out.measures = [{"kind": "calc", "match": False, "miss": out.reason}]
        return out
    try:
        value, _, evaluated = evaluate(prepare(case.derivation))
    except CalculatorError as exc:
        out.outcome, out.reason = "fail", f"not an expression the calculator accepts: {exc}"
        out.actual = {"error": str(exc)}
        out.measures = [{"kind": "calc", "match": False, "miss": "derivation not accepted by the calculator"}]
        return out
    ok = matches(value, gold, case.scale)
    out.actual = {"value": value, "evaluated": evaluated}
    out.outcome = "pass" if ok else "fail"
    out.reason = "" if ok else f"{value:.4f} vs gold {gold} ({_miss_kind(value, gold, case.scale)})"
    out.measures = [{"kind": "calc", "match": ok, "miss": "" if ok else _miss_kind(value, gold, case.scale)}]
    return out


def summary(outcomes: list[CaseOutcome]) -> dict[str, Any]:
    """The share matching gold and the misses counted by kind."""
    rows = [m for o in outcomes for m in o.measures if m.get("kind") == "calc"]
    hits = sum(1 for m in rows if m["match"])
    misses = Counter(m["miss"] for m in rows if not m["match"])
    return {
        "tatqa_arithmetic_agreement": hits / len(rows) if rows else None,
        "matched": hits,
        "questions": len(rows),
        "misses": dict(misses.most_common()),
    }
