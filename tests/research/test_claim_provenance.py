"""Where a tool figure came from, as the analyst reads it on the conversation page and in exports:
the agent step by name, never its trace key (``market_data:0``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.template import Context, Template

from research.chat.exports import claim_provenance_text

CASES = [
    (
        {"kind": "tool", "result_key": "market_data:0", "recompute": "bars"},
        "Market data output · recomputed from daily bars",
    ),
    ({"kind": "tool", "result_key": "portfolio_analyzer:2"}, "Portfolio analyzer output"),
    (
        {"kind": "tool", "result_key": "market_data:1", "recompute": "output_only"},
        "Market data output · output check only",
    ),
    ({"kind": "tool"}, "Tool output"),
]


@pytest.mark.parametrize(("claim", "expected"), CASES)
def test_the_page_and_the_export_name_the_step_a_figure_came_from(claim: dict[str, Any], expected: str) -> None:
    on_page = Template("{% load research_tags %}{{ c|tool_provenance }}").render(Context({"c": claim}))
    assert on_page == expected
    assert claim_provenance_text(claim) == expected


def test_a_quoted_or_calculated_figure_keeps_its_own_provenance() -> None:
    assert claim_provenance_text({"kind": "quote", "citation": "RBI minutes, p. 3"}) == "quoted from RBI minutes, p. 3"
    assert claim_provenance_text({"kind": "calc", "expression": "6.5 - 0.25"}) == "calculated: `6.5 - 0.25`"


def test_the_document_check_names_a_document_type_in_words() -> None:
    """The "answers the question" line under an answer is read by the analyst: no type key."""
    from research.agent.question.understand import Understanding
    from research.agent.verify.relevance import _document_check

    u = Understanding(doc_types=["mpc_minutes"])
    cited = [{"citation": "RBI MPC Minutes, June 2024, p. 3", "document_id": 1, "doc_type": "mpc_minutes"}]
    check = _document_check(u, cited)
    assert check is not None and check["detail"] == "cites MPC minutes"
