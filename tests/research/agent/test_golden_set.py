"""The research golden set is well formed: at least 60 hand-written questions over the whole shipped
corpus (every MPC minutes and the Annual Report), an analyst's uploaded note, market horizons and
saved portfolios. The evaluation gate runs it (``make eval-gate``, suite ``research``) against its
targets; running it a second time here would measure nothing new."""

from __future__ import annotations

from tests.research.agent.golden import OUTCOMES, load_suite

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
