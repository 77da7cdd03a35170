"""A decision answers the move asked: "Did the MPC change the repo rate in August 2024?" had been
answered "Yes … raised by 250 basis points" from a member's recollection of the moves since May 2022
(August 2024 minutes, p. 13), verified; "When did the MPC last raise the repo rate?" with October
2018's account of June's and August's raises as October's own, verified. Pure: the move rules in
research/agent/evidence/select.py and evidence/moves.py; the chat over the shipped minutes is the last test."""

from __future__ import annotations

from typing import Any

import pytest

from research.agent.evidence.moves import other_move
from research.agent.evidence.select import CUMULATIVE_MOVE, OTHER_MEETING
from tests.research.agent.golden import Runner, outcome_of

# Read by hand: August 2024 minutes p. 13; October 2018 minutes p. 13.
SINCE = (
    "The calibrated increase in policy repo rate by 250 basis points since May 2022 and subsequent change of "
    "stance to withdrawal of accommodation has facilitated gradual disinflation over 2022-23."
)
EARLIER = (
    "The policy repo rate was raised by 25 basis points each in the last two consecutive meetings of the MPC "
    "in June and August."
)


def test_the_moves_since_a_month_or_in_earlier_meetings_are_not_this_meetings() -> None:
    assert CUMULATIVE_MOVE.search(SINCE)
    assert OTHER_MEETING.search(EARLIER)
    # The meeting's own decision is neither.
    own = "Accordingly, the MPC decided to increase the policy repo rate by 50 basis points to 4.90 per cent."
    assert not CUMULATIVE_MOVE.search(own) and not OTHER_MEETING.search(own)


@pytest.mark.parametrize(
    ("question", "move", "other"),
    [
        ("When did the MPC last raise the repo rate?", "unchanged", True),
        ("By how much did the MPC cut the repo rate in June 2022?", "raised", True),
        ("By how much did the MPC raise the repo rate in June 2022?", "raised", False),
        # A premise is not the ask; a yes/no is answered "No." instead; a question naming no move asks any.
        (
            "Since the MPC cut the repo rate to 5.50 per cent in August 2024, what rate did it decide?",
            "unchanged",
            False,
        ),
        ("Did the MPC raise the repo rate in August 2024?", "unchanged", False),
        ("What did the MPC decide in June 2022?", "raised", False),
    ],
)
def test_a_decision_of_another_move_does_not_answer_the_move_asked(question: str, move: str, other: bool) -> None:
    assert other_move(question, move) is other


@pytest.mark.django_db
def test_the_chat_answers_the_move_asked_or_sends_it_to_a_reviewer(
    demo_library: dict[str, Any], make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from research.agent.verify.claims import render_text

    runner = Runner(make_user, django_capture_on_commit_callbacks, demo_library)
    user = make_user("analyst")
    changed = runner.ask(user, "Did the MPC change the repo rate in August 2024?", None)
    assert render_text(changed.answer, changed.claims).startswith(
        "No. In RBI MPC Minutes, August 2024, the policy repo rate was kept unchanged at 6.50 per cent."
    )
    assert "250 basis points" not in changed.answer and changed.verification["status"] == "verified"
    last = runner.ask(user, "When did the MPC last raise the repo rate?", None)
    assert outcome_of(last) == "escalated" and "was raised" not in last.answer


def test_a_share_of_a_group_or_a_ratio_to_gdp_is_not_the_rate_or_growth_asked() -> None:
    from research.agent.evidence.anchors import anchor_figure
    from research.agent.question.lexicon import METRICS, names_metric
    from research.agent.question.understand import understand

    # RBI Annual Report 2023-24, p. 41 and p. 75, read by hand.
    items = (
        "Around 75 per cent of the core CPI items registered less than 4 per cent inflation in March 2024, "
        "indicating a broad based softening (Chart II.3.15)."
    )
    cpi = understand("What was CPI inflation in March 2024?", [])
    assert anchor_figure(items, cpi) is None  # and "less than 4 per cent" is a bound, not the level
    cad = (
        "India’s CAD narrowed in 2023-24 (April-December) to US$ 31.0 billion (1.2 per cent of GDP) from "
        "US$ 65.6 billion (2.6 per cent of GDP)."
    )
    gdp = next(m for m in METRICS if m.key == "gdp")
    assert not names_metric(cad, gdp)  # GDP named only as the measure of the deficit
    assert names_metric("Real GDP rose by 7.6 per cent in 2023-24.", gdp)
    # For the deficit itself, "per cent of GDP" is its level.
    deficit = understand("What was the current account deficit in 2023-24 according to the annual report?", [])
    assert anchor_figure(cad, deficit) == ("1.2", "per cent")


def test_the_moves_of_many_meetings_are_not_written_as_one_documents_decision() -> None:
    from research.agent.compose.composer import Composer
    from research.agent.compose.decision import decision_line
    from research.agent.evidence.select import Candidate
    from research.agent.question.lexicon import METRICS

    # February 2024 minutes, p. 9 (a member's statement), read by hand.
    sentence = (
        "First, it may be recalled that we had frontloaded our rate actions by raising the repo rate "
        "cumulatively by 250 bps during May 2022 to February 2023."
    )
    passage = {"chunk_id": 1, "document_title": "RBI MPC Minutes, February 2024", "citation": "x, p. 9", "url": "/"}
    repo = next(m for m in METRICS if m.key == "repo")
    c = Composer("How much did the MPC raise rates in total between May 2022 and February 2023?")
    assert decision_line(c, Candidate(passage=passage, sentence=sentence, rank=0), repo, {}) is None


def test_a_figure_dated_at_the_period_asked_is_its_level_and_a_total_since_is_many_moves() -> None:
    from research.agent.evidence.anchors import anchor_figure
    from research.agent.question.understand import understand

    # RBI Annual Report 2023-24, p. 43; MPC minutes, May 2020, p. 9 (read by hand).
    size = (
        "II.4.4 The Reserve Bank’s balance sheet size increased to 24.1 per cent of GDP at end-March 2024 from "
        "23.5 per cent at end-March 2023."
    )
    asked = understand("What was the RBI's balance sheet size at end-March 2024?", [])
    assert anchor_figure(size, asked) == ("24.1", "per cent")  # not end-March 2023's 23.5
    total = (
        "This brings the total reduction in the policy rate since the start of the spread of the COVID-19 "
        "pandemic to 115 basis points."
    )
    assert CUMULATIVE_MOVE.search(total)
