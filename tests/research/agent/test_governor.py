"""Who chaired the committee is read from each meeting's minutes (research/agent/compose_chair.py);
the answers themselves are golden cases (evaluation/suites/research_golden.json). Pure."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("Who was the RBI Governor in 2017?", True),
        ("Who is the Governor of the RBI?", True),
        ("Who chaired the MPC in 2019?", True),
        ("Who was the Deputy Governor in charge of monetary policy in 2017?", False),
        ("Why did the Governor vote to hold the rate?", False),
    ],
)
def test_a_question_on_who_chaired_is_told_from_a_deputys(question: str, asked: bool) -> None:
    from research.agent.compose_chair import asks_governor

    assert asks_governor(question) is asked
