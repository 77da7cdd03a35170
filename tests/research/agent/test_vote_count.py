""" "How many members voted for a rate cut in June 2024?" had been answered with the vote on keeping the
rate unchanged ("4–2: for — …; against — …"), leaving the analyst to work out that the two against were
the two who wanted a cut. Now the count of the side that voted for the move asked, named, re-counted by
the verifier from the table. The June 2024 minutes, read by hand: p. 3 "Dr. Ashima Goyal and Prof.
Jayanth R. Varma voted to reduce the policy repo rate by 25 basis points."; p. 4 the vote table."""

from __future__ import annotations

from typing import Any

import pytest

from research.agent.compose.composer import Composer
from research.agent.compose.member import compose_vote_count
from research.agent.verify.claims import check_claim, render_text
from tests.research.agent.golden import Runner

SAID = (
    "Shri Shaktikanta Das voted to keep the policy repo rate unchanged at 6.50 per cent. Dr. Ashima Goyal and "
    "Prof. Jayanth R. Varma voted to reduce the policy repo rate by 25 basis points."
)
TABLE = (
    "Voting on the Resolution to keep the policy repo rate unchanged at 6.50 per cent Member Vote Dr. Shashanka "
    "Bhide Yes Dr. Ashima Goyal No Prof. Jayanth R. Varma No Dr. Rajiv Ranjan Yes Dr. Michael Debabrata Patra "
    "Yes Shri Shaktikanta Das Yes"
)
TITLE = "RBI MPC Minutes, June 2024"


def _passage(chunk_id: int, page: int, text: str) -> dict[str, Any]:
    return {"chunk_id": chunk_id, "document_id": 1, "document_title": TITLE, "page_number": page,
            "citation": f"{TITLE}, p. {page}", "url": f"/d/1/?page={page}", "text": text}  # fmt: skip


PASSAGES = [_passage(1, 3, SAID), _passage(2, 4, TABLE)]


def _answer(question: str, passages: list[dict[str, Any]] = PASSAGES) -> tuple[bool, Composer]:
    c = Composer(question)
    return compose_vote_count(c, passages), c


@pytest.mark.parametrize(
    ("question", "first_line"),
    [
        (
            "How many members voted for a rate cut in June 2024?",
            f"2 members voted to cut the policy repo rate in {TITLE}: Dr. Ashima Goyal and Prof. Jayanth R. Varma.",
        ),
        (
            "How many members voted to keep the repo rate unchanged in June 2024?",
            f"4 members voted to keep the policy repo rate unchanged in {TITLE}: Dr. Shashanka Bhide, Dr. Rajiv "
            "Ranjan, Dr. Michael Debabrata Patra and Shri Shaktikanta Das.",
        ),
        (
            "How many members voted to raise the repo rate in June 2024?",
            f"None of the members voted to raise the policy repo rate in {TITLE}: 4 voted to keep it unchanged "
            "(Dr. Shashanka Bhide, Dr. Rajiv Ranjan, Dr. Michael Debabrata Patra and Shri Shaktikanta Das) and "
            "2 to cut it (Dr. Ashima Goyal and Prof. Jayanth R. Varma).",
        ),
    ],
)
def test_the_count_of_the_side_that_voted_for_the_move_asked(question: str, first_line: str) -> None:
    answered, c = _answer(question)
    assert answered
    claims = [x for x in c.claims if x["kind"] == "table"]
    assert render_text(c.parts[0], c.claims) == first_line
    texts = {1: SAID, 2: TABLE}
    assert all(check_claim(claim, {}, texts) is None for claim in claims)  # re-counted from the table


def test_the_verifier_recounts_the_side_shown() -> None:
    _, c = _answer("How many members voted for a rate cut in June 2024?")
    claim = next(x for x in c.claims if x["kind"] == "table")
    assert (claim["side"], claim["value"], claim["display"]) == ("against", 2, "2")
    assert "re-counting the table gives 2 against" in str(
        check_claim({**claim, "value": 4, "display": "4"}, {}, {2: TABLE})
    )
    assert check_claim({**claim, "display": "3"}, {}, {2: TABLE}) is not None  # shown other than counted
    assert check_claim({**claim, "side": "for"}, {}, {2: TABLE}) is not None  # the "Yes" side has 4


def test_without_the_sentence_naming_the_side_the_table_alone_answers() -> None:
    # Whether the two against wanted a cut or a hike is not in the table: not guessed.
    answered, c = _answer("How many members voted for a rate cut in June 2024?", [_passage(2, 4, TABLE)])
    assert not answered and not c.parts
    # Another sentence naming other members voting for a cut is not the "No" side's.
    other = SAID.replace("Dr. Ashima Goyal and ", "")
    assert not _answer("How many members voted for a rate cut in June 2024?", [_passage(1, 3, other), PASSAGES[1]])[0]
    assert not _answer("How did the members vote in June 2024?")[0]  # no count of a move asked


def test_the_chat_counts_the_members_who_voted_for_a_cut(
    demo_library: dict[str, Any], make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    runner = Runner(make_user, django_capture_on_commit_callbacks, demo_library)
    turn = runner.ask(make_user("analyst"), "How many members voted for a rate cut in June 2024?", None)
    text = render_text(turn.answer, turn.claims)
    assert text.startswith(
        "2 members voted to cut the policy repo rate in RBI MPC Minutes, June 2024: Dr. Ashima Goyal and Prof. "
        "Jayanth R. Varma."
    )
    assert turn.verification["status"] == "verified"
