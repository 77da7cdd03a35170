"""The suites load, validate and have the size and coverage the issue asks for."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from evaluation import suites


def test_every_suite_loads_with_unique_versioned_cases_and_sources() -> None:
    for name in suites.SUITE_NAMES:
        cases = suites.load(name)
        assert len({c.id for c in cases}) == len(cases)
        assert all(c.version >= 1 for c in cases)
        if name != "calculator":
            assert all(len(c.source) > 10 for c in cases)


def test_research_suite_covers_every_tool_and_multi_turn() -> None:
    cases = suites.load("research")
    tools = {t.expect.tool for c in cases for t in c.turns}
    assert {
        "rag_search",
        "document_comparator",
        "web_search",
        "market_data",
        "portfolio_analyzer",
        "financial_calculator",
    } <= tools
    assert sum(1 for c in cases if len(c.turns) > 1) >= 4
    assert any("escalated" in t.expect.outcomes for c in cases for t in c.turns)
    golden = suites.SUITES_DIR / "research_golden.json"
    if golden.exists():  # the research-answers work's golden set, when it has landed
        assert len(json.loads(golden.read_text())["cases"]) >= 60


def test_adversarial_suite_has_direct_indirect_and_encoded_attacks_with_named_sources() -> None:
    cases = suites.load("adversarial")
    assert len(cases) >= 30
    tags = Counter(t for c in cases for t in c.tags)
    assert tags["direct"] >= 10 and tags["indirect"] >= 10 and tags["encoding"] >= 5
    assert {"exfiltration", "role_override", "false_premise", "sql", "command", "tool_scope"} <= set(tags)
    assert {"document", "web", "news", "base64", "homoglyph"} <= set(tags)
    assert sum(1 for c in cases if "garak" in c.source) >= 8
    assert all(c.attack for c in cases)


def test_briefs_suite_has_twenty_runs_with_each_failure_mode() -> None:
    cases = suites.load("briefs")
    assert len(cases) == 20
    modes = {m for c in cases for m in c.watchlist.feeds.values()}
    assert {"dead", "empty", "inject"} <= modes
    assert any(c.watchlist.unknown for c in cases)


def test_calculator_suite_is_every_arithmetic_tatqa_dev_question() -> None:
    cases = suites.load("calculator")
    assert len(cases) == 718
    shared = Path(__file__).resolve().parents[3] / "shared" / "data" / "tatqa" / "tatqa_dataset_dev.json"
    if shared.exists():  # the full dev set is beside the checkout on the development machines
        raw = json.loads(shared.read_text())
        arithmetic = {q["uid"] for ctx in raw for q in ctx["questions"] if q["answer_type"] == "arithmetic"}
        assert {c.id for c in cases} == arithmetic


def test_a_bad_case_is_refused_with_the_file_and_case_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = {
        "suite": "adversarial",
        "cases": [{"id": "x", "version": 1, "source": "hand", "turns": [{"ask": "q", "expect": {"figures": ["six"]}}]}],
    }
    (tmp_path / "adversarial.json").write_text(json.dumps(bad))
    monkeypatch.setattr(suites, "SUITES_DIR", tmp_path)
    suites.load.cache_clear()
    try:
        with pytest.raises(
            suites.SuiteError, match=r"(?s)adversarial.json: case .x..*expected a figure in .six., found none"
        ):
            suites.load("adversarial")
    finally:
        suites.load.cache_clear()
