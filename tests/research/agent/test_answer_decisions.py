"""Does a decision answer say what the meeting decided: the decision of the meeting asked, not a
member's recollection of another or the moves of many together; the dissenter named when a dissent
is asked; a yes/no question about a move answered yes or no from the decision quoted. Every sentence
is from the shipped RBI MPC minutes, read by hand (page named in each test)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from research.agent.compose.composer import Composer
from research.agent.question.library import LibDoc
from research.agent.question.understand import understand
from tests.research.agent.test_answer_periods import _minutes_passage
from tests.research.agent.test_understanding import LIBRARY


def test_a_decision_asked_without_a_metric_is_read_as_the_decision_on_the_metric_it_names() -> None:
    from research.agent.compose.docs import compose_documents
    from research.agent.verify.claims import render_text

    # RBI MPC Minutes, February 2024, p. 3 (read by hand).
    sentence = (
        "As the path of disinflation needs to be sustained, the MPC decided to keep the policy repo rate unchanged "
        "at 6.50 per cent in this meeting."
    )
    title = "RBI MPC Minutes, February 2024"
    passage = {"chunk_id": 7, "document_id": 38, "document_title": title, "page_number": 3, "page": "3",
               "citation": f"{title}, p. 3", "url": "/research/documents/38/?page=3", "text": sentence}  # fmt: skip
    question = "What did the MPC decide in February 2024?"
    c = Composer(question)
    out = {"passages": [passage], "understanding": understand(question, LIBRARY).as_dict()}
    compose_documents(c, "rag_search", out)
    answer = " ".join(render_text(c.draft, c.claims).split())
    assert answer.startswith(f"In {title}, the policy repo rate was kept unchanged at 6.50 per cent.")


def _chosen_in_meeting(question: str, title: str, held: dt.date, passages: list[dict[str, Any]]) -> list[str]:
    """The sentences chosen from ``passages``, in a library of one meeting's minutes (held on ``held``)."""
    from research.agent.evidence.select import choose

    start, published = held - dt.timedelta(days=2), held + dt.timedelta(days=14)
    ev = choose(
        question, understand(question, [LibDoc(1, "mpc_minutes", title, published, start, held, False)]), passages
    )
    assert ev is not None
    return [c.sentence for c in ev.chosen]


def test_the_decision_of_the_meeting_asked_beats_a_recollection_of_another_meeting() -> None:
    # RBI MPC Minutes, June 2022 (read by hand): p. 6 recalls May's hike, p. 4 states June's.
    title = "RBI MPC Minutes, June 2022"
    may = (
        "The MPC raised the policy Repo rate by 40 basis points in its meeting held in May and RBI also announced "
        "an increase in CRR by 50 basis points."
    )
    june = "Accordingly, the MPC decided to increase the policy repo rate by 50 basis points to 4.90 per cent."
    passages = [_minutes_passage(title, 6, may, 1), _minutes_passage(title, 4, june, 2)]
    question = "By how much did the MPC raise the repo rate in June 2022?"
    assert _chosen_in_meeting(question, title, dt.date(2022, 6, 8), passages) == [june]


def test_who_dissented_on_the_stance_is_the_member_with_reservations_not_the_rate_vote() -> None:
    from research.agent.evidence.select import choose

    # RBI MPC Minutes, December 2023, p. 3 (read by hand).
    text = (
        "All members of the MPC – Dr. Shashanka Bhide, Dr. Ashima Goyal, Prof. Jayanth R. Varma, Dr. Rajiv Ranjan, "
        "Dr. Michael Debabrata Patra and Shri Shaktikanta Das – unanimously voted to keep the policy repo rate "
        "unchanged at 6.50 per cent. Dr. Shashanka Bhide, Dr. Ashima Goyal, Dr. Rajiv Ranjan, Dr. Michael Debabrata "
        "Patra and Shri Shaktikanta Das voted to remain focused on withdrawal of accommodation to ensure that "
        "inflation progressively aligns to the target, while supporting growth. Prof. Jayanth R. Varma expressed "
        "reservations on this part of the resolution."
    )
    question = "Who dissented on the stance in December 2023?"
    passage = _minutes_passage("RBI MPC Minutes, December 2023", 3, text, 1)
    ev = choose(question, understand(question, LIBRARY), [passage])
    assert ev is not None
    quoted = " ".join(c.sentence for c in ev.chosen)
    assert "Varma expressed reservations" in quoted and "unanimously" not in quoted


@pytest.mark.parametrize(
    ("question", "move", "verdict"),
    [
        ("Did the MPC change the policy rate in February 2024?", "unchanged", "No. "),
        ("Did the MPC change the repo rate in August 2019?", "cut", "Yes. "),
        ("Was the repo rate cut in August 2019?", "cut", "Yes. "),
        ("Did the MPC raise the repo rate in August 2019?", "cut", "No. "),
        ("Did the RBI hike rates in June 2022?", "raised", "Yes. "),
        ("Did the MPC keep the repo rate unchanged in June 2024?", "unchanged", "Yes. "),
        ("Did the MPC keep the repo rate unchanged in June 2022?", "raised", "No. "),
        ("By how much did the MPC cut the repo rate in August 2019?", "cut", ""),  # not a yes/no question
    ],
)
def test_a_yes_no_question_about_a_move_is_answered_yes_or_no_from_the_decision(
    question: str, move: str, verdict: str
) -> None:
    from research.agent.evidence.moves import verdict as verdict_of

    assert verdict_of(question, move) == verdict


def test_a_cumulative_move_over_many_meetings_is_not_the_meetings_decision() -> None:
    # RBI MPC Minutes, February 2024: p. 9 (a member recalls the hikes since May 2022) and p. 3.
    title = "RBI MPC Minutes, February 2024"
    recalled = (
        "First, it may be recalled that we had frontloaded our rate actions by raising the repo rate cumulatively "
        "by 250 bps during May 2022 to February 2023 unlike central banks in advanced economies and several "
        "emerging market economies where rate hikes were of much higher order."
    )
    decided = (
        "As the path of disinflation needs to be sustained, the MPC decided to keep the policy repo rate unchanged "
        "at 6.50 per cent in this meeting."
    )
    question = "Did the MPC change the policy rate in February 2024?"
    passages = [_minutes_passage(title, 9, recalled, 1), _minutes_passage(title, 3, decided, 2)]
    assert _chosen_in_meeting(question, title, dt.date(2024, 2, 8), passages) == [decided]
