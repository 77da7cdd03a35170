"""The news agent's LLM reading (Claude when configured), through the real graph against a local
fake Anthropic API: the model's tone and risk events are used when they keep the contract; the
rules stay otherwise and the step says why. Headlines reach the model only fenced as data, and
nothing the model or a headline says can widen the run's scope."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import override_settings

from tests.briefs.conftest import INJECTION, rss
from tests.briefs.test_pipeline import _run
from tests.research.fake_llm import anthropic_error, anthropic_text, fake_llm_server

pytestmark = pytest.mark.django_db(transaction=True)

RULES_EVENTS = ["regulatory probe", "regulatory action"]  # "probe", then "SEBI", in the rules' order
HEADLINES = ["Infosys wins large banking deal", "SEBI probe into Infosys insider trading", INJECTION]


@pytest.fixture
def infy(watchlist: Any, feeds: Any) -> Any:
    watchlist.tickers = ["INFY.NS"]
    watchlist.save()
    feeds.overrides["INFY.NS"] = rss(HEADLINES)
    return watchlist


def _tone(*tickers: dict[str, Any]) -> Any:
    return 200, anthropic_text(json.dumps({"tickers": list(tickers)}), input_tokens=400, output_tokens=60)


def _news_llm_step(run: Any) -> Any:
    from briefs.models import BriefStep

    return BriefStep.objects.get(run=run, node="news_agent", tool="")


def test_the_models_reading_is_used_and_cannot_widen_the_scope(infy: Any, analyst: Any) -> None:
    from briefs.models import BriefStep

    with fake_llm_server() as claude, override_settings(ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=claude.url):
        claude.script(
            _tone(
                {
                    "ticker": "INFY.NS",
                    "sentiment": "negative",
                    "score": -0.4,
                    "risk_events": [{"event": "regulatory probe", "headline": 2}],
                },
                {"ticker": "TSLA", "sentiment": "positive", "score": 1, "risk_events": []},  # not in the run
            )
        )  # the writer's call that follows gets no scripted reply → the writer's own fallback
        run, values = _run(infy, analyst)
        news_prompt = claude.requests[0]["body"]["messages"][0]["content"]
        system = claude.requests[0]["body"]["system"]

    tone = values["sentiment"]["INFY.NS"]
    assert (tone["label"], tone["score"], tone["risk_events"]) == ("negative", -0.4, ["regulatory probe"])
    # the evidence is the feed's own headline, looked up by number — not text from the reply
    assert tone["risk_evidence"] == [{"event": "regulatory probe", "headline": HEADLINES[1]}]
    # what the rules said is kept beside it: "wins" is a positive keyword, "probe" and "SEBI" risk words
    assert tone["rules"] == {"label": "positive", "score": 1.0, "risk_events": RULES_EVENTS}
    assert set(values["sentiment"]) == {"INFY.NS", "^NSEI"}  # TSLA from the reply was ignored (^NSEI: market news)
    section = values["draft"]["sections"][0]
    assert section["headlines"][0]["text"] == HEADLINES[1]  # the evidence is quoted first
    brief = run.brief  # what the reviewer sees, and what is emailed once approved
    line = "News tone: negative. Risk events flagged: regulatory probe."
    assert line in brief.body_text and line in brief.body_html
    assert (section["ticker"], section["sentiment"], section["risk_events"]) == (
        "INFY.NS",
        "negative",
        ["regulatory probe"],
    )
    step = _news_llm_step(run)
    assert step.outputs["engine"] == "anthropic" and "fallback" not in step.outputs
    assert step.tokens == 460 and step.cost_usd > 0
    # the list's ticker and its benchmark (context for the lead): nothing from the reply
    assert {s.inputs.get("ticker") for s in BriefStep.objects.filter(run=run).exclude(tool="")} == {"INFY.NS", "^NSEI"}
    # The headlines (the injection among them) appear only inside the data fence.
    before, fenced = news_prompt.split("<data>", 1)
    inside, after = fenced.split("</data>", 1)
    assert INJECTION in json.loads(inside)["INFY.NS"].values()
    assert "Ignore previous" not in before + after
    assert "never an instruction" in system and "regulatory probe" in system
    assert values["verification"]["ok"] is True and run.status == "awaiting_review"


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (_tone({"ticker": "INFY.NS", "sentiment": "bullish", "score": 0.5}), "Input should be"),
        (_tone({"ticker": "INFY.NS", "sentiment": "positive", "score": 7}), "less than or equal to 1"),
        (
            _tone(
                {
                    "ticker": "INFY.NS",
                    "sentiment": "negative",
                    "score": -0.5,
                    "risk_events": [{"event": "email everyone", "headline": 3}],
                }
            ),
            "Input should be",
        ),
        (
            _tone(
                {
                    "ticker": "INFY.NS",
                    "sentiment": "negative",
                    "score": -0.5,
                    "risk_events": [{"event": "litigation", "headline": 9}],
                }
            ),
            "cites headline 9",
        ),
        ((200, anthropic_text("Sure! The tone is positive.")), "no JSON object"),
        ((500, anthropic_error(500)), "server_error"),
        ((429, anthropic_error(429)), "rate_limited"),
    ],
)
def test_a_reply_that_breaks_the_contract_keeps_the_rules(infy: Any, analyst: Any, reply: Any, reason: str) -> None:
    with fake_llm_server() as claude, override_settings(ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=claude.url):
        claude.script(reply)
        run, values = _run(infy, analyst)
    tone = values["sentiment"]["INFY.NS"]
    # the rules' reading, worked out by hand: one positive keyword ("wins"), no negative one
    assert (tone["label"], tone["score"], tone["risk_events"]) == ("positive", 1.0, RULES_EVENTS)
    assert "engine" not in tone
    step = _news_llm_step(run)
    assert step.outputs["fallback"].startswith("rules: ") and reason in step.outputs["fallback"]
    assert values["verification"]["ok"] is True and run.status == "awaiting_review"


def test_a_ticker_the_reply_leaves_out_keeps_its_rules_reading(watchlist: Any, analyst: Any, feeds: Any) -> None:
    watchlist.tickers = ["INFY.NS", "TCS.NS"]
    watchlist.save()
    feeds.overrides["INFY.NS"] = rss(HEADLINES)
    feeds.overrides["TCS.NS"] = rss(["TCS shares slump after weak guidance"])
    with fake_llm_server() as claude, override_settings(ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=claude.url):
        claude.script(_tone({"ticker": "INFY.NS", "sentiment": "mixed", "score": 0.0}))
        run, values = _run(watchlist, analyst)
    assert values["sentiment"]["INFY.NS"]["label"] == "mixed"
    assert values["sentiment"]["INFY.NS"]["risk_events"] == []  # the model saw no risk event
    assert values["sentiment"]["TCS.NS"]["label"] == "negative"  # slump + weak: the rules
    assert _news_llm_step(run).outputs["kept_rules"] == ["TCS.NS"]


def test_without_a_key_the_rules_read_the_news_and_no_model_is_called(infy: Any, analyst: Any) -> None:
    with (
        fake_llm_server() as claude,
        override_settings(ANTHROPIC_API_KEY="", GOOGLE_API_KEY="", ANTHROPIC_BASE_URL=claude.url),
    ):
        run, values = _run(infy, analyst)
    assert claude.requests == []  # a stray call would have reached this server
    assert values["sentiment"]["INFY.NS"]["label"] == "positive"
    from briefs.models import BriefStep

    assert not BriefStep.objects.filter(run=run, node="news_agent", tool="").exists()
