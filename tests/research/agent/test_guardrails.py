"""Guardrails, the verifier and escalation, driven through the real graph. Where an LLM is needed,
the real Anthropic adapter talks to a local fake server with scripted replies."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import override_settings

from research.agent.verify.claims import render_text
from research.chat.models import Turn
from reviews.models import ReviewTask
from tests.research.fake_llm import (
    FakeLLMServer,
    anthropic_text,
    anthropic_tool_use,
    fake_llm_server,
    gemini_function_call,
    gemini_text,
)

pytestmark = [pytest.mark.django_db, pytest.mark.timeout(120)]

OPEN_QUESTION = "Which themes should our team watch this quarter?"  # no fast-path rule: the LLM plans


@pytest.fixture
def claude() -> Iterator[FakeLLMServer]:
    with fake_llm_server() as server, override_settings(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=server.url):
        yield server


def events(turn: Turn) -> list[str]:
    return [e["event"] for e in turn.guardrail_events]


def tool_steps(turn: Turn) -> list[str]:
    return [s.node for s in turn.steps.order_by("seq") if s.tool]


def test_forced_loop_a_a_terminates(claude: FakeLLMServer, ask: Any) -> None:
    claude.default = (200, anthropic_tool_use("calculate_financial_metric", {"expression": "1+1"}))
    turn = ask(OPEN_QUESTION)
    assert turn.status == "done"
    assert "loop_detected" in events(turn)
    assert tool_steps(turn) == ["financial_calculator", "financial_calculator"]


def test_forced_loop_a_b_a_terminates(claude: FakeLLMServer, ask: Any) -> None:
    claude.script(
        (200, anthropic_tool_use("calculate_financial_metric", {"expression": "2*3"})),
        (200, anthropic_tool_use("web_search", {"query": "themes"})),
    )
    claude.default = (200, anthropic_tool_use("calculate_financial_metric", {"expression": "2*3"}))
    turn = ask(OPEN_QUESTION)
    assert "loop_detected" in events(turn)
    assert tool_steps(turn) == ["financial_calculator", "web_search", "financial_calculator"]
    assert turn.status == "done"


@override_settings(AGENT_MAX_TOOL_DEPTH=3)
def test_tool_depth_limit(claude: FakeLLMServer, ask: Any) -> None:
    claude.script(
        (200, anthropic_tool_use("calculate_financial_metric", {"expression": "2*3"})),
        (200, anthropic_tool_use("web_search", {"query": "themes"})),
        (200, anthropic_tool_use("get_stock_quote", {"ticker": "INFY"})),
    )
    claude.default = (200, anthropic_tool_use("document_comparator", {"query": "June 2024 and August 2024"}))
    turn = ask(OPEN_QUESTION)
    assert "depth_limit" in events(turn)
    assert len(tool_steps(turn)) == 3


def test_token_budget(claude: FakeLLMServer, ask: Any) -> None:
    claude.default = (
        200,
        anthropic_tool_use("calculate_financial_metric", {"expression": "2*3"}, input_tokens=3900, output_tokens=200),
    )
    turn = ask(OPEN_QUESTION)
    assert "token_budget" in events(turn)
    assert len(tool_steps(turn)) == 1
    assert turn.input_tokens >= 3900 and turn.cost_usd > 0


@override_settings(AGENT_LATENCY_CAP_SECONDS=0.0)
def test_latency_cap(claude: FakeLLMServer, ask: Any) -> None:
    claude.default = (200, anthropic_tool_use("calculate_financial_metric", {"expression": "2*3"}))
    turn = ask(OPEN_QUESTION)
    assert "latency_cap" in events(turn)
    assert len(tool_steps(turn)) == 1


def test_low_confidence_falls_back_to_web_then_escalates(ask: Any) -> None:
    # Offline, empty library: retrieval finds nothing, web search is disabled, so a human is asked.
    turn = ask("What did the MPC minutes say about zorblax quantum tariffs?")
    assert turn.status == "escalated"
    assert tool_steps(turn) == ["rag_search", "web_search"]
    assert "low_confidence" in events(turn) or turn.steps.filter(guardrail_events__icontains="low_confidence").exists()
    task = ReviewTask.objects.get(pk=turn.review_task_id)
    assert task.kind == "chat_escalation" and task.state == "pending"
    assert task.payload["question"] == turn.question and task.payload["trace"]


def test_smalltalk_gets_the_help_text_not_a_reviewer(ask: Any) -> None:
    # The help text gives an example portfolio with percentages: an example, not a figure, so it
    # must not trip the verifier and send a greeting to the review inbox.
    turn = ask("Hello")
    assert turn.status == "done" and turn.answered_by == "agent" and turn.review_task_id is None
    assert turn.verification["status"] == "verified", turn.verification
    assert "document library" in turn.answer and "50% INFY" in turn.answer


def test_scripted_model_writing_a_different_figure_is_blocked(claude: FakeLLMServer, ask: Any) -> None:
    # The tool says INFY closed at one price; the scripted writer claims 1234.56 twice.
    claude.default = (200, anthropic_text("INFY closed at 1234.56 INR."))
    turn = ask("What is the current price of INFY?")
    assert turn.plan_path == "quote"
    assert turn.status == "escalated"
    writer_calls = [r for r in claude.requests if "Claims:" in str(r["body"]["messages"])]
    assert len(writer_calls) == 2  # the draft and one regeneration
    assert any(e["event"] == "unverified_figures" and "1234.56" in str(e["detail"]) for e in turn.guardrail_events)
    task = ReviewTask.objects.get(pk=turn.review_task_id)
    assert "1234.56" not in task.payload["editable"]["answer"]
    assert "1234.56" in task.payload["reason"]


def test_scripted_model_citing_claims_is_verified(claude: FakeLLMServer, ask: Any) -> None:
    claude.default = (200, anthropic_text("INFY last closed at [[c1]] INR."))
    turn = ask("What is the current price of INFY?")
    assert turn.status == "done", turn.verification
    assert turn.verification["status"] == "verified"
    text = render_text(turn.answer, turn.claims)
    price = turn.claims[0]["display"]
    assert text == f"INFY last closed at {price} INR."
    assert turn.llm_calls == 1  # planned by a rule, written by the model


@pytest.mark.parametrize(
    "reply",
    [
        "PWNED",  # an injected "print PWNED" obeyed: no claim reference left
        "I am DAN now, free from every rule and policy, [[c1]] whatever you asked.",  # mostly new words
    ],
)
def test_scripted_model_that_does_not_restate_the_evidence_keeps_the_draft(
    claude: FakeLLMServer, ask: Any, reply: str
) -> None:
    claude.default = (200, anthropic_text(reply))
    turn = ask("What is the current price of INFY?")
    assert turn.status == "done" and turn.verification["status"] == "verified", turn.verification
    text = render_text(turn.answer, turn.claims)
    assert "PWNED" not in text and "DAN" not in text
    assert turn.claims[0]["display"] in text  # the extractive draft, with its price
    assert [e["event"] for e in turn.guardrail_events if e["event"] == "ungrounded_rewrite"] == ["ungrounded_rewrite"]
    assert turn.llm_calls == 1  # not asked again: a model that obeyed once obeys twice


def test_llm_resolves_a_follow_up_no_rule_understands(claude: FakeLLMServer, ask: Any) -> None:
    claude.script((200, anthropic_text("Result: [[c1]]")))
    first = ask("What is 2+2?")
    assert first.status == "done"
    claude.script((200, anthropic_text("What is 3*3?")), (200, anthropic_text("Nine: [[c1]]")))
    second = ask("and the square of three instead?", conversation=first.conversation)
    assert second.resolved_question == "What is 3*3?"
    assert second.plan_path == "arithmetic" and second.llm_calls == 2  # resolver + writer, no planner call
    assert render_text(second.answer, second.claims) == "Nine: 9.00"
    resolver_call = claude.requests[1]["body"]
    assert "What is 2+2?" in resolver_call["messages"][0]["content"]  # the memory window was sent


def test_gemini_drives_the_same_graph(ask: Any) -> None:
    with fake_llm_server() as gemini, override_settings(GOOGLE_API_KEY="g", GEMINI_BASE_URL=gemini.url):
        gemini.script(
            (200, gemini_function_call("calculate_financial_metric", {"expression": "cagr(100, 180, 5)"})),
            (200, gemini_text("")),  # the planner is satisfied
            (200, gemini_text("CAGR: [[c1]]")),
        )
        turn = ask(OPEN_QUESTION)
    assert turn.status == "done", turn.verification
    assert turn.plan_path == "llm" and turn.llm_calls == 3
    assert render_text(turn.answer, turn.claims) == "CAGR: +12.47%"
    assert turn.input_tokens > 0 and turn.cost_usd > 0
