"""How many members voted for a magnitude: the vote table's third column, counted, named and
re-counted by the verifier another way.

August 2019 minutes, p. 6 (read from the PDF): "Voting on the Resolution to reduce the policy repo
rate Member Vote Magnitude of policy repo rate reduction (basis points) Dr. Chetan Ghate Yes 25 Dr.
Pami Dua Yes 25 Dr. Ravindra H. Dholakia Yes 35 Dr. Michael Debabrata Patra Yes 35 Shri Bibhu Prasad
Kanungo Yes 35 Shri Shaktikanta Das Yes 35". All six voted to cut; two for 25 and four for 35.
"""

from __future__ import annotations

from typing import Any

import pytest

from research.agent.compose.composer import Composer
from research.agent.compose.member import compose_magnitude_count
from research.agent.text.tables import recount_extra, vote_tables
from research.agent.verify.claims import check_claim, render_text, verify_answer

TABLE = (
    "Voting on the Resolution to reduce the policy repo rate Member Vote Magnitude of policy repo rate reduction "
    "(basis points) Dr. Chetan Ghate Yes 25 Dr. Pami Dua Yes 25 Dr. Ravindra H. Dholakia Yes 35 Dr. Michael "
    "Debabrata Patra Yes 35 Shri Bibhu Prasad Kanungo Yes 35 Shri Shaktikanta Das Yes 35 Statement by Dr. Chetan "
    "Ghate 28. Since the last review, while there has been no change in the three month ahead inflation expectations "
    "of households (7.6%), there has been a decline of 20 bps."
)
PASSAGE = {
    "chunk_id": 61,
    "document_id": 9,
    "document_title": "RBI MPC Minutes, August 2019",
    "doc_type": "mpc_minutes",
    "doc_date": "2019-08-21",
    "text": TABLE,
    "page": "6",
    "page_number": 6,
    "citation": "RBI MPC Minutes, August 2019, p. 6",
    "url": "/research/documents/9/?page=6",
}
FOUR = "Dr. Ravindra H. Dholakia, Dr. Michael Debabrata Patra, Shri Bibhu Prasad Kanungo and Shri Shaktikanta Das"


def _answer(question: str) -> str | None:
    c = Composer(question)
    if not compose_magnitude_count(c, [PASSAGE]):
        return None
    checked = verify_answer(
        c.draft, c.claims, question=question, outputs={}, chunk_texts={61: TABLE}, citations=c.citations
    )
    assert checked["status"] == "verified", checked["problems"]
    return render_text(c.draft, c.claims)


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("How many members voted for 35 basis points in August 2019?", f"4 members voted for 35 basis points ({FOUR})"),
        (
            "How many members voted for a 25 basis point cut in August 2019?",
            "2 members voted for 25 basis points (Dr. Chetan Ghate and Dr. Pami Dua)",
        ),
        ("How many MPC members voted for 50 bps in August 2019?", "0 members voted for 50 basis points;"),
    ],
)
def test_the_members_of_the_magnitude_asked_come_first_then_the_others(question: str, first: str) -> None:
    text = _answer(question)
    assert text is not None and text.startswith(f"In RBI MPC Minutes, August 2019, {first}")
    assert text.count("members voted for") == (3 if "50" in question else 2)
    assert "[Source: RBI MPC Minutes, August 2019, p. 6]" in text


def test_a_question_without_a_magnitude_or_a_table_without_the_column_is_left_to_the_others() -> None:
    assert _answer("How many members voted for a cut in August 2019?") is None
    plain = {**PASSAGE, "text": "Voting on the Resolution to keep the policy repo rate unchanged at 6.50 per cent "
             "Member Vote Dr. Shashanka Bhide Yes Dr. Ashima Goyal No Prof. Jayanth R. Varma No"}  # fmt: skip
    c = Composer("How many members voted for 25 basis points in June 2024?")
    assert compose_magnitude_count(c, [plain]) is False


def _no_bars(symbol: str) -> Any:
    raise AssertionError("a table claim reads no market data")


def test_the_verifier_recounts_a_magnitude_by_its_own_reading_of_the_table() -> None:
    (table,) = vote_tables(TABLE)
    assert table.with_extra("35") == FOUR.replace(" and ", ", ").split(", ")
    assert [recount_extra(TABLE, v) for v in ("25", "35", "50", "3")] == [2, 4, 0, 0]
    assert recount_extra("no table here", "35") is None
    claim: dict[str, Any] = {"id": "c1", "kind": "table", "chunk_id": 61, "value": 4, "display": "4", "extra": "35"}
    assert check_claim(claim, {}, {61: TABLE}, _no_bars, {}) is None
    wrong = {**claim, "value": 6, "display": "6"}  # all six voted to cut; four of them for 35
    assert check_claim(wrong, {}, {61: TABLE}, _no_bars, {}) == "c1: re-counting the table gives 4, the claim says '6'"
    shown_wrong = {**claim, "display": "four"}
    assert check_claim(shown_wrong, {}, {61: TABLE}, _no_bars, {}) is not None


def test_the_vote_line_gives_a_unanimous_votes_split_by_magnitude() -> None:
    from research.agent.compose.lines import vote_line

    c = Composer("What was the vote in August 2019?")
    (table,) = vote_tables(TABLE)
    line = vote_line(c, PASSAGE, table)
    checked = verify_answer(line, c.claims, question=c.question, outputs={}, chunk_texts={61: TABLE}, citations=[])
    assert checked["status"] == "verified", checked["problems"]
    assert render_text(line, c.claims).endswith(
        "(unanimous). By magnitude: 2 members voted for 25 basis points (Dr. Chetan Ghate and Dr. Pami Dua); "
        f"4 members voted for 35 basis points ({FOUR})."
    )
    # One magnitude for all (or none at all) is no split to tell.
    same = vote_tables(TABLE.replace("Yes 25", "Yes 35"))[0]
    assert "By magnitude" not in vote_line(Composer("What was the vote?"), PASSAGE, same)


RESOLUTION = (
    "Monetary Policy Committee (MPC) at its meeting today (August 7, 2019) decided to: reduce the policy repo rate "
    "under the liquidity adjustment facility (LAF) by 35 basis points (bps) from 5.75 per cent to 5.40 per cent with "
    "immediate effect."
)  # p. 1, read from the PDF


def test_a_rate_asked_beside_the_count_is_answered_first_from_the_resolution() -> None:
    """It had gone to a reviewer with the counts alone ("not answered: level")."""
    from research.agent.compose.docs import compose_documents
    from research.agent.question.understand import understand

    question = "What was the repo rate after the August 2019 meeting and how many members voted for 35 basis points?"
    first_page = {**PASSAGE, "chunk_id": 57, "text": RESOLUTION, "page": "1", "page_number": 1,
                  "citation": "RBI MPC Minutes, August 2019, p. 1", "url": "/research/documents/9/?page=1"}  # fmt: skip
    c = Composer(question)
    compose_documents(
        c, "rag_search", {"passages": [first_page, PASSAGE], "understanding": understand(question, []).as_dict()}
    )
    assert c.outcome != "escalate"
    checked = verify_answer(
        c.draft, c.claims, question=question, outputs={}, chunk_texts={57: RESOLUTION, 61: TABLE}, citations=c.citations
    )
    assert checked["status"] == "verified", checked["problems"]
    text = render_text(c.draft, c.claims)
    assert text.startswith("Policy repo rate: 5.40 per cent, according to RBI MPC Minutes, August 2019.")
    assert "[Source: RBI MPC Minutes, August 2019, p. 1]" in text
    assert text.index("5.40 per cent") < text.index(f"4 members voted for 35 basis points ({FOUR})")
    assert text.endswith("[Source: RBI MPC Minutes, August 2019, p. 6]")
    # Asked alone, the count is not preceded by a rate.
    assert _answer("How many members voted for 35 basis points in August 2019?").startswith("In RBI MPC Minutes")  # type: ignore[union-attr]
