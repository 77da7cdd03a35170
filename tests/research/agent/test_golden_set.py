"""The research golden set on the deterministic engine, over the whole shipped corpus (every MPC
minutes and the Annual Report), an analyst's uploaded note, market horizons and saved portfolios.

Acceptance (issue 13): at least 60 hand-written questions, and at least 90 % of the answers carry
every expected figure and cite the expected document and page. The answers that fail are listed
with their reasons in the assertion and in ``test-artifacts/research_golden.md``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.research.agent.golden import OUTCOMES, Runner, load_suite, report

TARGET = 0.90


def test_the_suite_is_well_formed_and_large_enough() -> None:
    suite = load_suite()
    assert suite["suite"] == "research" and suite["version"] == 1
    cases = suite["cases"]
    assert len(cases) >= 60
    assert len({c["id"] for c in cases}) == len(cases)
    tags = {t for c in cases for t in c["tags"]}
    assert {"mpc", "annual-report", "multi-turn", "uploaded-note", "market", "portfolio", "calculation"} <= tags
    years = {
        c["turns"][0]["expect"]["document"][-4:] for c in cases if "mpc" in c["tags"] and "single-turn" in c["tags"]
    }
    assert {"2016", "2017", "2018", "2019", "2020", "2021", "2022", "2023", "2024"} <= years
    for case in cases:
        assert case["source"] and case["turns"], case["id"]
        for turn in case["turns"]:
            expect = turn["expect"]
            assert expect["outcome"] in OUTCOMES, case["id"]
            assert isinstance(expect["figures"], list), case["id"]
            assert (expect["document"] is None) == (expect["page"] is None), case["id"]


@pytest.mark.django_db
def test_golden_set_on_the_deterministic_engine(
    demo_library: dict[str, Any], make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from tests.conftest import ARTIFACTS

    runner = Runner(make_user, django_capture_on_commit_callbacks, demo_library)
    results = [r for n, case in enumerate(load_suite()["cases"]) for r in runner.run(case, n)]
    text = report(results)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "research_golden.md").write_text(text + "\n")
    print(text)
    share = sum(r.ok for r in results) / len(results)
    assert share >= TARGET, text
