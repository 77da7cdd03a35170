"""In the chat over the whole shipped corpus (RBI minutes and the annual report), a question about
another central bank or a company the library does not cover is not answered with the RBI's figures.
The rules themselves are tested in test_named_subjects.py."""

from __future__ import annotations

from typing import Any

import pytest

from tests.research.agent.golden import Runner, outcome_of


@pytest.mark.django_db
def test_another_institutions_question_is_never_answered_from_the_rbis_documents(
    demo_library: dict[str, Any], make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    runner = Runner(make_user, django_capture_on_commit_callbacks, demo_library)
    user = make_user("analyst")
    # Before: "The MPC also reviewed in detail the staff's macroeconomic projections …" (September
    # 2022 minutes), verified.
    fomc = runner.ask(user, "Why did the Federal Open Market Committee pause in September 2019?", None)
    assert outcome_of(fomc) == "no_document" and fomc.citations == []
    assert fomc.answer == (
        "I found nothing on the Federal Open Market Committee in the library: no passage found for this "
        "question names it, so I did not answer from other documents."
    )
    # Before: "In RBI MPC Minutes, August 2023, the policy repo rate was kept unchanged at 6.50 per cent", verified.
    tesla = runner.ask(user, "How did Tesla's deliveries change in 2023?", None)
    assert outcome_of(tesla) == "no_document" and "6.50" not in tesla.answer
    # The annual report names Microsoft (Office), so a passage is found; the one the answer would
    # cite (real GDP growth) does not name it, and a reviewer gets the question instead.
    azure = runner.ask(user, "What was Microsoft's Azure revenue growth in fiscal 2023?", None)
    assert azure.status == "escalated"
    checks = {x["check"]: x for x in azure.verification["answers"]["checks"]}
    assert checks["subject"] == {
        "check": "subject",
        "ok": False,
        "detail": "the passages cited never name “Microsoft”",
    }
    # The RBI's own committee, named in full, is still answered from its minutes.
    ours = runner.ask(user, "What did the Monetary Policy Committee decide on the repo rate in August 2024?", None)
    assert ours.status == "done" and ours.verification["status"] == "verified"
    assert "6.50 per cent" in ours.answer
