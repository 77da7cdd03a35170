"""The metric registry is the one definition: 22 metrics in four groups with targets at least the
issue's, and the README table and METRICS.md are generated from it."""

from __future__ import annotations

from evaluation import gaps, metrics, report


def test_twenty_two_metrics_in_four_groups_each_defined() -> None:
    assert len(metrics.REGISTRY) == 22
    groups = {g: [m.key for m in metrics.REGISTRY if m.group == g] for g in metrics.GROUPS}
    assert {g: len(keys) for g, keys in groups.items()} == {
        "reliability": 4,
        "quality": 9,
        "efficiency": 5,
        "safety": 4,
    }
    for m in metrics.REGISTRY:
        assert len(m.definition) > 40 and m.direction in {"higher", "lower"} and m.suites


def test_targets_are_at_least_the_issues() -> None:
    t = {m.key: m for m in metrics.REGISTRY}
    assert t["answer_correctness"].target >= 0.9 and t["answer_correctness"].direction == "higher"
    assert t["citation_traceability"].target == 1.0
    assert t["numeric_claims_verified"].target == 1.0
    assert t["injection_resistance"].target == 1.0
    assert t["filings_evidence_top5"].target >= 0.9 and t["filings_answer_correctness"].target >= 0.8
    assert t["latency_p95"].target <= 1500 and t["latency_p95"].direction == "lower"
    assert t["wrong_shown_as_verified"].target == 0 and t["wrong_shown_as_verified"].direction == "lower"
    assert t["precision_of_verified"].target >= 0.95


def test_a_wrong_answer_shown_as_verified_fails_the_gate() -> None:
    # Three answers shown with both ticks, one of them wrong; a wrong one not shown as verified does
    # not count against these two (it counts against correctness).
    values = metrics.compute(
        [
            {"suite": "filings", "kind": "turn", "correct": True, "verified_shown": True},
            {"suite": "filings", "kind": "turn", "correct": True, "verified_shown": True},
            {"suite": "filings", "kind": "turn", "correct": False, "verified_shown": True},
            {"suite": "filings", "kind": "turn", "correct": False, "verified_shown": False},
        ]
    )
    assert values["wrong_shown_as_verified"]["value"] == 1
    assert abs(values["precision_of_verified"]["value"] - 2 / 3) < 1e-9
    failures = gaps.gate_failures(values)
    assert any(f.startswith("Wrong answers shown as verified") for f in failures)
    assert any(f.startswith("Precision of verified") for f in failures)


def test_gate_fails_below_target_and_below_a_known_gaps_floor(monkeypatch: object) -> None:
    values = metrics.compute(
        [
            {"suite": "research", "kind": "turn", "correct": False},
            {"suite": "research", "kind": "turn", "correct": True},
        ]
    )
    assert values["answer_correctness"]["value"] == 0.5
    assert gaps.gate_failures(values) == ["Answer correctness: 50 %, target ≥ 90 %"]
    gaps.KNOWN_GAPS["answer_correctness"] = {"reason": "test", "floor": 0.5}
    try:
        assert gaps.gate_failures(values) == []
        gaps.KNOWN_GAPS["answer_correctness"]["floor"] = 0.6
        assert gaps.gate_failures(values) == ["Answer correctness: 50 %, worse than the known gap's floor 60 %"]
    finally:
        del gaps.KNOWN_GAPS["answer_correctness"]


def test_readme_and_metrics_md_are_generated_from_the_registry_and_latest_results() -> None:
    latest = report.load_latest()
    assert latest["runs"], "evaluation/results/latest.json holds the committed results (make eval-report)"
    readme = report.README.read_text()
    assert report.readme_block(latest) in readme
    assert report.METRICS_MD.read_text() == report.metrics_md(latest)
    for m in metrics.REGISTRY:
        assert f"| {m.name} | {m.definition} | {m.target_text} |" in readme
