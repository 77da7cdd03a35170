"""Fast-path planning rules and follow-up resolution (pure functions: no database, no LLM)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from research.agent.dialogue.memory import resolve
from research.agent.dialogue.planner import find_tickers, plan_rules

QUESTIONS = json.loads((Path(__file__).with_name("analyst_questions.json")).read_text())


@pytest.mark.parametrize("case", QUESTIONS, ids=[c["q"][:40] for c in QUESTIONS])
def test_each_fixture_question_takes_its_expected_path(case: dict[str, Any]) -> None:
    ruled = plan_rules(case["q"])
    assert (ruled[0] if ruled else None) == case["rule"]


def test_at_least_nine_distinct_rules_and_70_percent_without_llm() -> None:
    rules = {c["rule"] for c in QUESTIONS if c["rule"]}
    singles = {r for rule in rules for r in rule.split("+")}
    assert len(singles) >= 9, singles
    assert len(QUESTIONS) >= 30
    share = sum(1 for c in QUESTIONS if plan_rules(c["q"]) is not None) / len(QUESTIONS)
    assert share >= 0.70, share


def test_rule_plans_carry_the_right_arguments() -> None:
    assert plan_rules("What is the percentage change from 6.50 to 6.25?") == (
        "percentage_change",
        {"financial_calculator": {"expression": "pct_change(6.50, 6.25)"}},
    )
    assert plan_rules("What is the CAGR from 100 to 180 over 5 years?") == (
        "cagr",
        {"financial_calculator": {"expression": "cagr(100, 180, 5)"}},
    )
    _, plan = plan_rules("Analyse a portfolio of 40% INFY, 30% TCS and 30% HDFCBANK") or ("", {})
    assert plan["portfolio_analyzer"] == {"tickers": ["INFY.NS", "TCS.NS", "HDFCBANK.NS"], "weights": [0.4, 0.3, 0.3]}
    _, plan = plan_rules("Compare TCS and INFY") or ("", {})
    assert [c["ticker"] for c in plan["market_data"]["calls"]] == ["TCS.NS", "INFY.NS"]
    # The rule only routes to the documents; the planner node turns the question into filters
    # against the user's library (tests/research/agent/test_understanding.py).
    _, plan = plan_rules("What policy repo rate did the MPC decide at its August 2024 meeting?") or ("", {})
    assert plan["rag_search"]["filters"] == {}
    # The corridor's rates and GVA are the library's subjects too (they took the fallback path).
    for question in ("What was the GVA growth in Q4 2023-24?", "What were the SDF and MSF rates in April 2022?"):
        assert (plan_rules(question) or ("",))[0] == "documents"
    assert (plan_rules("What is HDFC Bank's 52-week high?") or ("",))[0] != "documents"
    # "the policy rate" is the library's subject as much as "the repo rate" is: no planner call.
    assert plan_rules("What was the vote on the policy rate in February 2024?") == (
        "documents",
        {"rag_search": {"query": "What was the vote on the policy rate in February 2024?", "filters": {}}},
    )
    _, plan = plan_rules("What is the repo rate in August 2024 and what is the price of INFY?") or ("", {})
    assert set(plan) == {"rag_search", "market_data"}  # one parallel superstep


def test_tickers_by_symbol_and_company_name() -> None:
    assert find_tickers("Compare Infosys with tata consultancy and AAPL") == ["INFY.NS", "TCS.NS", "AAPL"]
    assert find_tickers("what did the RBI and the MPC decide") == []


def _turn(resolved: str, figures: list[dict[str, Any]] | None = None, subjects: list[str] | None = None) -> dict:
    return {
        "question": resolved,
        "resolved": resolved,
        "answer": "",
        "figures": figures or [],
        "subjects": subjects or [],
    }


def test_follow_ups_resolve_by_rules() -> None:
    first = _turn(
        "What policy repo rate did the MPC decide at its August 2024 meeting?",
        [{"label": "policy repo rate", "value": "6.50", "period": "2024-08", "metric": "repo", "primary": True}],
    )
    second = _turn(
        "What policy repo rate did the MPC decide at its June 2024 meeting?",
        [{"label": "policy repo rate", "value": "6.25", "period": "2024-06", "metric": "repo", "primary": True}],
    )
    resolved, rule, scope = resolve("what is the percentage change between those two?", [first, second])
    # Oldest period first: from June (6.25) to August (6.50); the operands travel with their sources.
    assert rule == "between_those_two" and resolved.startswith("pct_change(6.25, 6.50)")
    assert [f["value"] for f in scope["operands"]] == ["6.25", "6.50"]
    resolved, rule, _ = resolve("and the previous year?", [_turn("What was CPI inflation in 2023-24?")])
    assert rule == "previous_year" and "2022-23" in resolved
    resolved, rule, _ = resolve("how does it compare with INFY?", [_turn("Price of TCS", subjects=["TCS"])])
    assert rule == "compare_with" and resolved == "Compare TCS and INFY"
    assert resolve("What is the price of TCS?", [])[1] == "none"


@pytest.mark.parametrize(
    ("previous", "follow_up", "resolved", "rule"),
    [
        # The one period of the kind the follow-up names is swapped; the rest of the question stays.
        ("What was CPI inflation in December 2023?", "And in April 2024?", "What was CPI inflation in April 2024?",
         "swap_period"),
        ("What was the repo rate after the June 2024 meeting?", "And after the August 2024 meeting?",
         "What was the repo rate after the August 2024 meeting?", "swap_period"),
        ("What GDP growth did the MPC project for 2024-25 in April 2024?", "And in June 2024?",
         "What GDP growth did the MPC project for 2024-25 in June 2024?", "swap_period"),
        # "it" is the decision of the meeting the last question named.
        ("What was the repo rate after the August 2024 meeting?", "Who voted against it?",
         "Who voted against it in August 2024?", "carry_period"),
        ("What was the policy repo rate in June 2024?", "What was the stance then?",
         "What was the stance then in June 2024?", "carry_period"),
        ("What is the policy repo rate?", "What was the stance then?", "What was the stance then?", "none"),
        # More than a period swapped, or nothing to carry: left to the other rules (or the model).
        ("What was AAPL's return in 2023?", "And for MSFT in 2024?", "And for MSFT in 2024?", "none"),
        ("What is the price of TCS?", "What is it now?", "What is it now?", "none"),
    ],
)  # fmt: skip
def test_a_follow_up_naming_only_a_period_asks_the_last_question_of_that_period(
    previous: str, follow_up: str, resolved: str, rule: str
) -> None:
    assert resolve(follow_up, [_turn(previous)])[:2] == (resolved, rule)


def _projection(value: str, month: str) -> dict[str, Any]:
    return {"label": "real GDP growth", "value": value, "unit": "per cent", "period": month, "metric": "gdp",
            "primary": True}  # fmt: skip


def test_the_difference_between_the_two_is_the_later_figure_less_the_earlier() -> None:
    april = _turn("GDP growth projected for 2024-25 in April 2024?", [_projection("7.0", "2024-04")])
    june = _turn("GDP growth projected for 2024-25 in June 2024?", [_projection("7.2", "2024-06")])
    resolved, rule, scope = resolve("What is the difference between the two?", [june, april])
    assert rule == "between_those_two" and resolved.startswith("7.2 - 7.0: the difference from 7.0")
    assert [f["value"] for f in scope["operands"]] == ["7.0", "7.2"]
