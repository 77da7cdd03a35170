"""The policy rate asked over a calendar year: each meeting's decision that year, in date order.

"What was the repo rate in 2019?" had been answered with February 2019's cut alone, though the rate
moved at each of the library's three meetings that year; "What were the repo rate decisions in
2019?" had gone to a reviewer with a member's sentence. Every sentence below was read by hand from
the PDF page named (pypdfium2 text of ../shared/data/rbi/mpc-minutes). Pure, except the chat over
the shipped library at the end."""

from __future__ import annotations

from typing import Any

from research.agent.compose.composer import Composer
from research.agent.compose.decision import each_meeting
from research.agent.question.understand import understand
from research.agent.verify.claims import render_text
from tests.research.agent.golden import Runner

# MPC minutes, October 2016, p. 1; December 2016, p. 2.
OCTOBER_2016 = (
    "• reduce the policy repo rate under the liquidity adjustment facility (LAF) by 25 basis points from 6.5 per "
    "cent to 6.25 per cent with immediate effect."
)
DECEMBER_2016 = "• keep the policy repo rate under the liquidity adjustment facility (LAF) unchanged at 6.25 per cent."
# A member's vote in the December 2016 minutes' style: no level, ranked below the resolution.
VOTE = "All members voted in favour of the decision to keep the policy repo rate unchanged."
# MPC minutes, October 2016: the decision again, without the level it moved to.
DECIDED = "Against this backdrop, the MPC decided to reduce the policy repo rate by 25 basis points."
REPORT = "The policy repo rate was kept unchanged at 6.25 per cent through the year."


def _passage(chunk: int, document: int, day: str, text: str, period: tuple[str, str] | None) -> dict[str, Any]:
    start, end = period or ("", "")
    return {
        "chunk_id": chunk, "document_id": document, "doc_date": day, "period_start": start or None,
        "period_end": end or None, "page_number": 1, "text": text, "citation": f"Doc {document}, p. 1",
        "url": f"/d/{document}", "document_title": f"Doc {document}",
    }  # fmt: skip


def test_each_meeting_of_the_year_in_date_order_from_its_own_decision() -> None:
    passages = [
        _passage(5, 10, "2016-10-04", DECIDED, ("2016-10-03", "2016-10-04")),
        _passage(1, 20, "2016-12-07", VOTE, ("2016-12-06", "2016-12-07")),
        _passage(2, 20, "2016-12-07", DECEMBER_2016, ("2016-12-06", "2016-12-07")),
        _passage(3, 10, "2016-10-04", OCTOBER_2016, ("2016-10-03", "2016-10-04")),
        _passage(4, 30, "2016-08-30", REPORT, ("2015-07-01", "2016-06-30")),  # a year's report, not a meeting
    ]
    question = "What was the repo rate in 2016?"
    c = Composer(question)
    assert each_meeting(c, understand(question, []), passages)
    text = " ".join(render_text(" ".join(c.parts), c.claims).split())
    assert text.startswith(
        "At each meeting of 2016 whose minutes the library holds: "
        "In Doc 10, the policy repo rate was cut by 25 basis points to 6.25 per cent. "
        "In Doc 20, the policy repo rate was kept unchanged at 6.25 per cent."
    ), text
    assert "Doc 30" not in text and VOTE not in text


def test_a_meeting_without_its_decision_goes_to_a_reviewer_and_one_meeting_is_not_a_year() -> None:
    question = "What was the repo rate in 2016?"
    october = _passage(3, 10, "2016-10-04", OCTOBER_2016, ("2016-10-03", "2016-10-04"))
    december = _passage(1, 20, "2016-12-07", "The MPC noted the monsoon.", ("2016-12-06", "2016-12-07"))
    c = Composer(question)
    assert not each_meeting(c, understand(question, []), [october, december])
    assert c.outcome == "escalate" and not c.parts
    alone = Composer(question)
    assert not each_meeting(alone, understand(question, []), [october]) and alone.outcome != "escalate"
    month = Composer("What was the repo rate in October 2016?")
    assert not each_meeting(month, understand(month.question, []), [october, december])


def test_the_chat_reads_every_meeting_of_the_year(
    demo_library: dict[str, Any], make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    runner = Runner(make_user, django_capture_on_commit_callbacks, demo_library)
    user = make_user("analyst")
    for question in ("What was the repo rate in 2019?", "What were the repo rate decisions in 2019?"):
        turn = runner.ask(user, question, None)
        assert " ".join(render_text(turn.answer, turn.claims).split()).startswith(
            # February p. 1, April p. 1, August p. 1 of the 2019 minutes.
            "At each meeting of 2019 whose minutes the library holds: "
            "In RBI MPC Minutes, February 2019, the policy repo rate was cut by 25 basis points to 6.25 per cent. "
            "In RBI MPC Minutes, April 2019, the policy repo rate was cut by 25 basis points to 6.0 per cent. "
            "In RBI MPC Minutes, August 2019, the policy repo rate was cut by 35 basis points to 5.40 per cent."
        ), question
        assert turn.verification["status"] == "verified"
