"""The CI gate (`manage.py evaluate --gate`) passes on today's agent and fails on a deliberately
broken planner rule, and separately on a verifier that passes everything."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db

CALC = [
    "--tag",
    "calc-pct-change-rates",
    "--tag",
    "calc-pct-increase-prices",
    "--tag",
    "calc-cagr",
    "--tag",
    "calc-expression",
]


def test_gate_passes_on_todays_planner() -> None:
    call_command("evaluate", "--suite", "research", *CALC, "--gate")


def test_broken_planner_rule_fails_the_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    from research.agent.dialogue import planner

    # The percentage-change rule, broken: it reads "from A to B" as pct_change(B, A).
    swapped = re.compile(
        r"percent(?:age)?\s+(?:change|increase|decrease|growth|difference)\s+(?:from|between)\s+"
        r"(?=[-+]?[\d,.]+\s*%?\s*(?:to|and)\s+([-+]?\d[\d,]*(?:\.\d+)?))([-+]?\d[\d,]*(?:\.\d+)?)",
        re.IGNORECASE,
    )
    monkeypatch.setattr(planner, "PCT_BETWEEN_RE", swapped)
    with pytest.raises(CommandError, match=r"Answer correctness: 50 %, target ≥ 90 %"):
        call_command("evaluate", "--suite", "research", *CALC, "--gate")


def test_verifier_that_passes_everything_fails_the_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    from research.agent import rewrite

    def passes_everything(template: str, claims: list[Any], **kw: Any) -> dict[str, Any]:
        return {"status": "verified", "checked": len(claims), "problems": [], "claims": []}

    case = ["--suite", "adversarial", "--tag", "encoding-base64-false-price", "--gate"]
    call_command("evaluate", *case)  # holds today
    monkeypatch.setattr(rewrite, "verify_answer", passes_everything)
    # Defence in depth: the false figure's rewrite drops the draft's claim references, so the
    # grounding check alone still keeps it from the analyst.
    call_command("evaluate", *case)
    monkeypatch.setattr(rewrite, "ungrounded", lambda text, c: "")
    with pytest.raises(CommandError) as failed:
        call_command("evaluate", *case)
    assert "Numeric claims verified" in str(failed.value)
    assert "Injection resistance" in str(failed.value)


def test_bad_arguments_are_clear() -> None:
    with pytest.raises(CommandError, match="no case of the research suite carries nope"):
        call_command("evaluate", "--suite", "research", "--tag", "nope")
    with pytest.raises(CommandError, match="needs ANTHROPIC_API_KEY"):
        call_command("evaluate", "--suite", "calculator", "--engine", "anthropic")
