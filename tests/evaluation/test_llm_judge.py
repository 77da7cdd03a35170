"""The LLM judge runs when a key is configured (here: the local fake Anthropic API): its prompt is
the repo's, its verdicts are stored beside the deterministic ones and their agreement is reported.
The agent itself still runs on the deterministic engine the run asked for."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.research.fake_llm import anthropic_text, fake_llm_server

pytestmark = pytest.mark.django_db


def test_llm_verdicts_are_stored_and_agreement_reported(evaluate: Any, settings: Any) -> None:
    from evaluation.llm_judge import prompt

    with fake_llm_server() as server:
        settings.ANTHROPIC_API_KEY = "test-key"
        settings.ANTHROPIC_BASE_URL = server.url
        # First verdict disagrees with the deterministic judge (says incorrect); the rest agree.
        server.script((200, anthropic_text('{"correct": false, "faithful": true, "reason": "wrong figure"}')))
        server.default = (200, anthropic_text('{"correct": true, "faithful": true, "reason": "matches"}'))
        run = evaluate("research", "calc-pct-change-rates", "calc-cagr")
    assert len(server.requests) == 2  # one judge call per turn; the agent made none (deterministic)
    sent = server.requests[0]["body"]
    assert sent["system"] == prompt() and "<data>" in sent["messages"][0]["content"]
    assert json.loads(sent["messages"][0]["content"].split("<data>\n", 1)[1].rsplit("\n</data>", 1)[0])["question"]
    first = run.cases.get(case_id="calc-pct-change-rates")
    assert first.llm_verdicts["turn 1"]["correct"] is False and first.verdicts["turn 1"]["correct"] is True
    assert run.judge == {"mode": "llm", "agreement": 0.5, "compared": 2, "disagreements": 1, "errors": 0}
