"""A question asked in the present about what each meeting sets or projects, naming no meeting, is
answered from the latest minutes the library holds (research/agent/dialogue/latest.py). The figures were
read by hand from the August 2024 minutes (../shared/data/rbi/mpc-minutes, 06-08-2024.pdf): p.1
"Keep the policy repo rate ... unchanged at 6.50 per cent"; p.2 "the standing deposit facility
(SDF) rate remains unchanged at 6.25 per cent"; p.3 "CPI inflation for 2024-25 is projected at 4.5
per cent"."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from research.agent.dialogue.latest import MEETINGS_BACK, latest_meeting_asked
from research.agent.question.library import LibDoc
from research.agent.question.understand import understand


def _minutes(doc_id: int, day: dt.date) -> LibDoc:
    return LibDoc(
        id=doc_id, doc_type="mpc_minutes", title=f"RBI MPC Minutes, {day:%B %Y}", doc_date=day + dt.timedelta(days=14),
        period_start=day, period_end=day + dt.timedelta(days=2), mine=False,
    )  # fmt: skip


LIBRARY = [
    _minutes(1, dt.date(2024, 6, 5)),
    _minutes(2, dt.date(2024, 8, 6)),
    _minutes(3, dt.date(2024, 4, 3)),
    LibDoc(
        id=9, doc_type="annual_report", title="RBI Annual Report 2023-24", doc_date=dt.date(2024, 9, 30),
        period_start=dt.date(2023, 4, 1), period_end=dt.date(2024, 3, 31), mine=False,
    ),
]  # fmt: skip


def _every_meeting_states_it(doc_id: int, phrases: tuple[str, ...]) -> bool:
    return True


def _asked(question: str, states: Any = _every_meeting_states_it) -> int | None:
    found = latest_meeting_asked(question, understand(question, LIBRARY), LIBRARY, states)
    return None if found is None else found.id


@pytest.mark.parametrize(
    "question",
    [
        "What is the policy repo rate?",
        "What's the repo rate now?",
        "What is the current SDF rate?",
        "What are the MSF rate and the Bank Rate?",
        "What is the latest policy stance?",
        "What is the CPI inflation projection?",
        "What is the GDP growth projection?",
    ],
)
def test_the_present_with_no_meeting_named_is_the_latest_meeting(question: str) -> None:
    assert _asked(question) == 2  # August 2024, not the annual report dated later


@pytest.mark.parametrize(
    "question",
    [
        "What was the policy repo rate?",  # the past: history, not now
        "How has the repo rate changed?",
        "What is the policy repo rate in June 2024?",  # a meeting named
        "What is the CPI inflation projection for 2024-25?",  # a year asked of: the projection's own logic
        "What is CPI inflation?",  # a reading, not what a meeting sets or projects
        "What is the gross NPA ratio?",
        "What is the repo rate in my notes?",
        "What is the policy repo rate according to the annual report?",
    ],
)
def test_other_questions_keep_their_own_documents(question: str) -> None:
    assert _asked(question) is None


def test_a_rate_the_latest_minutes_no_longer_state_is_read_from_the_latest_that_do() -> None:
    asked: list[int] = []

    def states(doc_id: int, phrases: tuple[str, ...]) -> bool:
        asked.append(doc_id)
        return doc_id == 3 and "reverse repo" in phrases

    assert _asked("What is the reverse repo rate?", states) == 3
    assert asked == [2, 1, 3]  # newest first
    assert _asked("What is the reverse repo rate?", lambda doc_id, phrases: False) is None
    many = [_minutes(100 + n, dt.date(2010 + n // 6, 1 + 2 * (n % 6), 3)) for n in range(MEETINGS_BACK + 3)]
    seen: list[int] = []

    def never(doc_id: int, phrases: tuple[str, ...]) -> bool:
        seen.append(doc_id)
        return False

    question = "What is the policy repo rate?"
    assert latest_meeting_asked(question, understand(question, many), many, never) is None
    assert len(seen) == MEETINGS_BACK


@pytest.mark.django_db
def test_the_chat_answers_the_rate_and_the_projection_now_from_the_latest_minutes(
    demo_library: dict[str, Any], make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from research.agent.verify.claims import render_text
    from tests.research.agent.golden import Runner

    runner = Runner(make_user, django_capture_on_commit_callbacks, demo_library)
    user = make_user("analyst")
    for question, figure, page in (
        ("What is the policy repo rate?", "6.50 per cent", "1"),
        ("What is the SDF rate?", "6.25 per cent", "2"),
        ("What is the CPI inflation projection?", "4.5 per cent", "3"),
    ):
        turn = runner.ask(user, question, None)
        text = " ".join(render_text(turn.answer, turn.claims).split())
        assert turn.status == "done", (question, text)
        assert figure in text and "according to RBI MPC Minutes, August 2024" in text, (question, text)
        cited = {(runner.stems.get(int(c["document_id"])), str(c["page"])) for c in turn.citations}
        assert ("reserve_bank_of_india_06-08-2024", page) in cited, (question, cited)
    # The August 2024 minutes name no reverse repo rate (the SDF took its place as the corridor's
    # floor in 2022), nor do the meetings before them back to MEETINGS_BACK: the library is searched
    # as before, and the rate's last stated level is read, dated by its minutes (August 2020, p.1:
    # "the reverse repo rate under the LAF remains unchanged at 3.35 per cent").
    turn = runner.ask(user, "What is the reverse repo rate?", None)
    text = " ".join(render_text(turn.answer, turn.claims).split())
    assert turn.status == "done" and "3.35 per cent" in text and "August 2024" not in text, text
