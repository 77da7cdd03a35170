""" "Did the MPC change its stance …?" answered yes or no from the committee's decision on its stance
(research/agent/compose/stance.py). Every sentence is from the shipped MPC minutes, read by hand
(document and page named in each test)."""

from __future__ import annotations

from typing import Any

from research.agent.compose.composer import Composer, excerpt
from research.agent.compose.stance import compose_stance, stance_query
from research.agent.question.understand import understand
from research.agent.verify.relevance import assess
from tests.research.agent.test_understanding import LIBRARY

AUG_2024_RESOLUTION = (
    "Consequently, the standing deposit facility (SDF) rate remains unchanged at 6.25 per cent. • The MPC also "
    "decided to remain focused on withdrawal of accommodation to ensure that inflation progressively aligns to "
    "the target, while supporting growth."
)
AUG_2024_VOTES = (
    "13. Dr. Shashanka Bhide, Dr. Rajiv Ranjan, Dr. Michael Debabrata Patra and Shri Shaktikanta Das voted to "
    "remain focused on withdrawal of accommodation to ensure that inflation progressively aligns to the target, "
    "while supporting growth. Dr. Ashima Goyal and Prof. Jayanth R. Varma voted for a change in stance to neutral."
)


def _passage(chunk_id: int, document_id: int, title: str, page: int, text: str) -> dict[str, Any]:
    return {
        "chunk_id": chunk_id,
        "document_id": document_id,
        "document_title": title,
        "citation": f"{title}, p. {page}",
        "url": f"/research/documents/{document_id}/?page={page}",
        "page": str(page),
        "page_number": page,
        "text": text,
    }


def _answer(question: str, passages: list[dict[str, Any]]) -> Composer | None:
    c = Composer(question)
    return c if compose_stance(c, passages) else None


def test_the_decision_to_remain_with_members_voting_for_a_change_is_a_no() -> None:
    # RBI MPC Minutes, August 2024: the resolution (p. 2) and the votes on the stance (p. 4).
    august = "RBI MPC Minutes, August 2024"
    passages = [_passage(2, 40, august, 4, AUG_2024_VOTES), _passage(1, 40, august, 2, AUG_2024_RESOLUTION)]
    question = "Did the MPC change its stance at the August 2024 meeting?"
    c = _answer(question, passages)
    assert c is not None
    assert c.parts[0] == "No. In RBI MPC Minutes, August 2024, the committee did not change its stance:"
    assert "decided to remain focused on withdrawal of accommodation" in c.parts[1]
    assert c.parts[1].endswith("[Source: RBI MPC Minutes, August 2024, p. 2]")
    assert c.parts[3] == (
        "“Dr. Ashima Goyal and Prof. Jayanth R. Varma voted for a change in stance to neutral.” "
        "[Source: RBI MPC Minutes, August 2024, p. 4]"
    )
    assert not c.claims  # no figure is stated, so none is claimed
    checks = {x["check"]: (x["ok"], x["detail"]) for x in assess(understand(question, LIBRARY), c, {})["checks"]}
    assert checks["verdict"] == (True, "answers no")
    assert checks["aspects"] == (True, "answers change")


def test_a_decision_to_change_the_stance_is_a_yes() -> None:
    # RBI MPC Minutes, February 2019, p. 2.
    february = "RBI MPC Minutes, February 2019"
    sentence = "The MPC also decided to change the monetary policy stance from calibrated tightening to neutral."
    c = _answer(
        "Did the MPC change its monetary policy stance in February 2019?", [_passage(5, 9, february, 2, sentence)]
    )
    assert c is not None
    assert c.parts == [
        "Yes. In RBI MPC Minutes, February 2019, the committee changed its stance:",
        f"“{sentence}” [Source: RBI MPC Minutes, February 2019, p. 2]",
    ]


def test_a_decision_that_keeps_the_rate_and_changes_the_stance_is_a_yes() -> None:
    # Constructed on the pattern of the February 2017 resolution (p. 5: "The committee decided to change
    # the stance from accommodative to neutral while keeping the policy rate on hold"), with the verbs
    # in the other order: the first verb after "decided to" is "keep", yet the stance changed.
    sentence = "The MPC decided to keep the policy repo rate unchanged and to change the stance to neutral."
    c = _answer("Did the MPC change its stance?", [_passage(4, 3, "RBI MPC Minutes, Month", 2, sentence)])
    assert c is not None and c.parts[0].startswith("Yes.")
    # "A change in stance" named as a noun is not the committee changing it.
    kept = "The MPC decided to maintain the neutral stance, as a change in stance was not warranted."
    c = _answer("Did the MPC change its stance?", [_passage(4, 3, "RBI MPC Minutes, Month", 2, kept)])
    assert c is not None and c.parts[0].startswith("No.")


def test_a_decision_that_names_the_stance_it_keeps_is_a_no_on_its_own() -> None:
    # RBI MPC Minutes, December 2018, p. 7.
    december = "RBI MPC Minutes, December 2018"
    sentence = (
        "Against this backdrop, the MPC decided to keep the policy repo rate on hold and maintain the stance of "
        "calibrated tightening."
    )
    c = _answer("Was the stance changed at the December 2018 meeting?", [_passage(7, 8, december, 7, sentence)])
    assert c is not None and c.parts[0].startswith("No. In RBI MPC Minutes, December 2018,")


def test_remaining_focused_on_withdrawal_alone_does_not_say_the_stance_was_kept() -> None:
    # RBI MPC Minutes, June 2022, p. 2: the stance's words no longer said "accommodative" (April 2022:
    # "remain accommodative while focusing on withdrawal of accommodation"), and no member voted on it.
    june = "RBI MPC Minutes, June 2022"
    sentence = (
        "The MPC also decided to remain focused on withdrawal of accommodation to ensure that inflation remains "
        "within the target going forward, while supporting growth."
    )
    assert _answer("Did the MPC change its stance in June 2022?", [_passage(3, 7, june, 2, sentence)]) is None


def test_no_answer_without_the_committees_decision_or_for_several_meetings() -> None:
    august = "RBI MPC Minutes, August 2024"
    question = "Did the MPC change its stance at the August 2024 meeting?"
    votes_only = [_passage(2, 40, august, 4, AUG_2024_VOTES.split(" Dr. Ashima")[0].replace("13. ", ""))]
    assert _answer(question, votes_only) is None  # members' votes are not the committee's decision
    dissent_only = [_passage(2, 40, august, 4, "Dr. Ashima Goyal voted for a change in stance to neutral.")]
    assert _answer(question, dissent_only) is None
    two_meetings = [
        _passage(1, 40, august, 2, AUG_2024_RESOLUTION),
        _passage(9, 41, "RBI MPC Minutes, June 2024", 3, AUG_2024_RESOLUTION),
    ]
    assert _answer("Did the MPC change its stance this year?", two_meetings) is None
    # RBI MPC Minutes, October 2020, p. 8: a member's own wording is not the committee's decision.
    october = "RBI MPC Minutes, October 2020"
    preferred = (
        "My preferred formulation of the forward guidance would have been as follows: “The MPC also decided to "
        "continue with the accommodative stance as long as it is necessary to revive growth.”"
    )
    member = [_passage(8, 30, october, 8, preferred)]
    assert _answer("Did the MPC change its stance in October 2020?", member) is None
    assert stance_query("Did the MPC change its stance in October 2020?", member) is not None
    # A question about the vote on the stance is the vote table's, not the decision's.
    resolution = [_passage(1, 40, august, 2, AUG_2024_RESOLUTION)]
    assert _answer("What was the vote on the stance in August 2024?", resolution) is None
    assert _answer("Which members dissented on the stance in August 2024?", resolution) is None


def test_what_the_stance_was_is_the_committees_decision_quoted() -> None:
    """It had gone to a reviewer ("metric or figure not found"), with or without a meeting named,
    even when the decision was the passage quoted: the stance has no figure to find."""
    august = "RBI MPC Minutes, August 2024"
    passages = [_passage(2, 40, august, 4, AUG_2024_VOTES), _passage(1, 40, august, 2, AUG_2024_RESOLUTION)]
    for question in ("What was the MPC's stance in August 2024?", "What is the policy stance?"):
        c = _answer(question, passages)
        assert c is not None, question
        assert c.parts[0] == "In RBI MPC Minutes, August 2024, the committee decided on its stance:"
        assert c.parts[1] == (
            "“The MPC also decided to remain focused on withdrawal of accommodation to ensure that inflation "
            "progressively aligns to the target, while supporting growth.” [Source: RBI MPC Minutes, August 2024, p. 2]"
        )
        assert not c.claims
        checks = {x["check"]: x["ok"] for x in assess(understand(question, LIBRARY), c, {})["checks"]}
        assert all(checks.values()), checks
    # Only the members' votes: no decision of the committee to quote.
    assert _answer("What was the MPC's stance in August 2024?", passages[:1]) is None


def test_the_decision_is_searched_for_only_when_no_passage_holds_it() -> None:
    august = "RBI MPC Minutes, August 2024"
    question = "Did the MPC change its stance at the August 2024 meeting?"
    assert stance_query(question, [_passage(2, 40, august, 4, AUG_2024_VOTES)]) is not None
    assert stance_query(question, [_passage(1, 40, august, 2, AUG_2024_RESOLUTION)]) is None
    assert stance_query("What was the repo rate in August 2024?", []) is None


def test_a_long_decision_is_quoted_in_whole_words() -> None:
    # RBI MPC Minutes, October 2020, p. 2 (322 characters, over the 320 a quote shows).
    sentence = (
        "The MPC also decided to continue with the accommodative stance as long as necessary – at least during the "
        "current financial year and into the next financial year – to revive growth on a durable basis and mitigate "
        "the impact of COVID-19 on the economy, while ensuring that inflation remains within the target going forward."
    )
    shown = excerpt(sentence, None)
    assert shown.endswith("within the target going") and shown in sentence
    # Centred on a figure, the words cut at either end go; the figure and the quote's exactness stay.
    long = "alpha " * 40 + "the rate of 6.50 per cent " + "omega " * 60
    shown = excerpt(long, "6.50")
    assert shown.startswith("alpha") and shown.endswith("omega") and "6.50 per cent" in shown and shown in long
    assert len(shown) <= 320
