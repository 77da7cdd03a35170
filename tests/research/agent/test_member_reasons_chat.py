"""A member's reasons in the chat, over the whole shipped corpus: that member's own words, cited to
the page of the minutes (read from the PDF by hand), and a reviewer when the member made no statement.
The rules themselves are tested in test_member_reasons.py."""

from __future__ import annotations

from typing import Any

import pytest

from tests.research.agent.golden import Runner


@pytest.mark.django_db
def test_why_a_member_voted_is_that_members_own_words_cited_to_the_page(
    demo_library: dict[str, Any], make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    runner = Runner(make_user, django_capture_on_commit_callbacks, demo_library)
    user = make_user("analyst")
    turn = runner.ask(user, "Why did Prof. Jayanth R. Varma vote for a cut in February 2024?", None)
    assert turn.status == "done" and turn.verification["status"] == "verified"
    assert turn.answer.startswith(
        "Prof. Jayanth R. Varma’s reasons, in the member’s own statement in RBI MPC Minutes, February 2024:"
    )
    # p. 8, paragraph 46 of his statement (read from the PDF).
    assert (
        "“I therefore vote to reduce the repo rate by 25 basis points, and to change the stance to neutral.” "
        "[Source: RBI MPC Minutes, February 2024, p. 8]" in turn.answer
    )
    assert (
        "Member Vote" not in turn.answer and "voted to remain focused" not in turn.answer
    )  # not the table or resolution
    checks = {x["check"]: x["ok"] for x in turn.verification["answers"]["checks"]}
    assert checks["member"] is True

    nobody = runner.ask(user, "Why did Dr. Urjit Patel vote to cut in 2019?", None)
    assert nobody.status == "escalated"
