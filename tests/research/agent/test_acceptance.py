"""Acceptance: a multi-turn conversation on the shipped RBI minutes with the deterministic engine.

Expected values are read from the documents themselves: the August 8, 2024 and June 7, 2024 MPC
minutes both say the committee decided to keep "the policy repo rate ... unchanged at 6.50 per cent"
(first page of each; again on printed pages 3 and 4). So the change between them is 0.00 %.
"""

from __future__ import annotations

from typing import Any

import pytest

from research.agent.verify.claims import render_text

pytestmark = pytest.mark.django_db

PAGES_STATING_THE_RATE = {"1", "3", "4"}


def test_three_turns_rate_previous_meeting_and_percentage_change(mpc_corpus: dict[str, Any], ask: Any) -> None:
    first = ask("What policy repo rate did the MPC decide at its August 2024 meeting?")
    assert first.status == "done", (first.error, first.guardrail_events)
    text = render_text(first.answer, first.claims)
    assert "6.50 per cent" in text
    assert first.plan_path == "documents" and first.llm_calls == 0
    cites = [c["citation"] for c in first.citations]
    assert cites and cites[0].startswith("RBI MPC Minutes, August 2024, p. ")
    assert cites[0].rsplit("p. ", 1)[1] in PAGES_STATING_THE_RATE
    assert f"[Source: {cites[0]}]" in text
    assert first.verification["status"] == "verified"
    assert any(c["kind"] == "quote" and c["value"] == 6.5 and c["verified"] for c in first.claims)

    second = ask("And at the previous meeting?", conversation=first.conversation)
    assert second.status == "done"
    assert "June 2024" in second.resolved_question and "August" not in second.resolved_question
    text2 = render_text(second.answer, second.claims)
    assert "6.50 per cent" in text2
    assert second.citations[0]["citation"].startswith("RBI MPC Minutes, June 2024, p. ")
    assert second.citations[0]["citation"].rsplit("p. ", 1)[1] in PAGES_STATING_THE_RATE

    third = ask("What is the percentage change between those two?", conversation=first.conversation)
    assert third.status == "done"
    assert third.plan_path in {"arithmetic", "percentage_change"}
    text3 = render_text(third.answer, third.claims)
    assert "[Calculated: pct_change(6.50, 6.50)]" in text3
    calc = [c for c in third.claims if c["kind"] == "calc"]
    assert calc and calc[0]["value"] == 0.0 and calc[0]["display"] == "0.00%" and calc[0]["verified"]
