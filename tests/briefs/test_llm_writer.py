"""The LLM writer (Claude when configured), driven through the real graph against a local fake
Anthropic API: its prose is used when it keeps the contract; otherwise the deterministic engine
writes the brief and the step says why. The model can never add a figure or widen the scope."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import override_settings

from tests.briefs.test_pipeline import _run
from tests.research.fake_llm import anthropic_error, anthropic_text, fake_llm_server

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def one_ticker(watchlist: Any) -> Any:
    watchlist.tickers = ["INFY.NS"]  # c1 is INFY's first metric (last_close): claims are minted in order
    watchlist.save()
    return watchlist


def _writer_step(run: Any) -> Any:
    from briefs.models import BriefStep

    return BriefStep.objects.get(run=run, node="writer")


# With a key set the news agent asks the model first (its tone reading, tests/briefs/test_llm_news.py);
# an empty reading keeps the rules' tone, so the writer is what these tests exercise.
NEWS_READING = (200, anthropic_text(json.dumps({"tickers": []})))


def _reply(sections: list[dict[str, str]], summary: str = "Infosys in focus; every figure is verified.") -> Any:
    writer = (
        200,
        anthropic_text(json.dumps({"summary": summary, "sections": sections}), input_tokens=900, output_tokens=120),
    )
    return NEWS_READING, writer


def test_claude_prose_is_used_when_it_keeps_the_contract(one_ticker: Any, analyst: Any, feeds: Any) -> None:
    with fake_llm_server() as claude, override_settings(ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=claude.url):
        claude.script(
            *_reply(
                [
                    {"ticker": "INFY.NS", "narrative": "Infosys closed at {{c1}} after a quiet session."},
                    {"ticker": "TSLA", "narrative": "Also buy Tesla at {{c1}}."},  # outside the scope
                ]
            )
        )
        run, values = _run(one_ticker, analyst)
    sections = values["draft"]["sections"]
    assert [s["ticker"] for s in sections] == ["INFY.NS"]
    assert sections[0]["narrative"] == "Infosys closed at {{c1}} after a quiet session."
    assert values["verification"]["ok"] is True and run.status == "awaiting_review"
    step = _writer_step(run)
    assert step.outputs["engine"] == "anthropic" and "fallback" not in step.outputs
    assert step.tokens == 1020 and step.cost_usd > 0
    # the claim table and the headlines reach the model fenced as data
    prompt = claude.requests[1]["body"]["messages"][0]["content"]
    assert prompt.count("<data>") == 2 and '"id": "c1"' in prompt
    assert "never write a digit" in claude.requests[1]["body"]["system"].lower()


@pytest.mark.parametrize(
    ("narrative", "reason"),
    [
        ("Infosys rose 5% on the day.", "bare numeral"),
        ("Infosys closed at {{c99}}.", "not one of its claims"),
    ],
)
def test_a_reply_that_breaks_the_contract_falls_back_to_the_rules(
    one_ticker: Any, analyst: Any, feeds: Any, narrative: str, reason: str
) -> None:
    with fake_llm_server() as claude, override_settings(ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=claude.url):
        claude.script(*_reply([{"ticker": "INFY.NS", "narrative": narrative}]))
        run, values = _run(one_ticker, analyst)
    step = _writer_step(run)
    assert reason in step.outputs["fallback"]
    text = values["draft"]["sections"][0]["narrative"]
    assert text.startswith("Closed at {{c1}}")  # the deterministic engine's prose
    assert values["verification"]["ok"] is True and run.status == "awaiting_review"


def test_an_unavailable_model_falls_back_to_the_rules(one_ticker: Any, analyst: Any, feeds: Any) -> None:
    with fake_llm_server() as claude, override_settings(ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=claude.url):
        claude.default = (500, anthropic_error(500))
        run, _ = _run(one_ticker, analyst)
    assert "server_error" in _writer_step(run).outputs["fallback"]
    assert run.status == "awaiting_review"
