"""Each side of a comparison of two meetings is read from that meeting's own minutes: the annual
report 2023-24 spans both October and December 2023, and its "… unchanged at 6.50 per cent in April
2023 …" had been quoted as December 2023's decision."""

from __future__ import annotations

import re
from typing import Any

import pytest

from core.tools import call_tool


@pytest.mark.django_db
def test_a_month_is_compared_from_the_documents_of_that_month_not_a_report_spanning_it(
    demo_library: dict[str, Any], make_user: Any
) -> None:
    query = {"query": "Compare the October 2023 and December 2023 meetings"}
    outcome = call_tool("document_comparator", query, user=make_user("analyst"))
    assert outcome.ok, outcome.as_dict()
    out = outcome.as_dict()
    assert out["sides"] == ["October 2023", "December 2023"]
    assert out["facts"], out
    for fact in out["facts"]:
        assert fact["citation"].startswith(f"RBI MPC Minutes, {fact['side']}, p. "), fact
        assert not re.search(r"(?:^|\s)I\s", fact["quote"]), fact  # a member's own vote is not the meeting's
    # Both sides state the decision, each from its own minutes (read by hand: "unchanged at 6.50 per
    # cent", reserve_bank_of_india_04-10-2023.pdf and reserve_bank_of_india_06-12-2023.pdf).
    rates = {f["side"]: f["quote"] for f in out["facts"] if f["aspect"] == "policy repo rate"}
    assert set(rates) == {"October 2023", "December 2023"}
    assert all("6.50 per cent" in quote for quote in rates.values()), rates


@pytest.mark.django_db
def test_a_members_own_vote_is_not_quoted_as_the_meetings_decision(
    demo_library: dict[str, Any], make_user: Any
) -> None:
    # February 2024's rate had been "Therefore, I vote: i) to keep the policy repo rate unchanged at 6.50
    # per cent …" (a member's statement, p. 6); the resolution's vote on it is on p. 4.
    query = {"query": "Compare the February 2024 and April 2024 MPC minutes"}
    out = call_tool("document_comparator", query, user=make_user("analyst")).as_dict()
    assert out["facts"], out
    for fact in out["facts"]:
        assert not re.search(r"(?:^|\s)I\s", fact["quote"]), fact
    rates = {f["side"]: f for f in out["facts"] if f["aspect"] == "policy repo rate"}
    assert rates["February 2024"]["citation"] == "RBI MPC Minutes, February 2024, p. 4"
