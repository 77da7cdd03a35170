"""Who chaired the committee is read from each meeting's minutes (research/agent/compose/chair.py);
the answers themselves are golden cases (evaluation/suites/research_golden.json). Pure."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("question", "role"),
    [
        ("Who was the RBI Governor in 2017?", "Governor"),
        ("Who is the Governor of the RBI?", "Governor"),
        ("Who chaired the MPC in 2019?", "Governor"),
        ("Who was the Deputy Governor in charge of monetary policy in 2017?", "Deputy Governor"),
        ("Why did the Governor vote to hold the rate?", None),
    ],
)
def test_the_role_asked_is_the_governors_or_the_deputys(question: str, role: str | None) -> None:
    from research.agent.compose.chair import role_asked

    assert role_asked(question) == role
