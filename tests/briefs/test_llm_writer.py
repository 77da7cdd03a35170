"""The LLM writer (Claude when configured) against a local fake Anthropic API: its prose is used when
it keeps the contract; otherwise the deterministic engine writes the brief and the step says why.
The model can never add a figure in any form, a unit, a ticker outside the run, or a wrong direction.

The graph tests run the real pipeline; the contract cases call the writer itself (same adapter, same
fake server) over a hand-made claim table, so each figure form is one quick request."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.test import override_settings

from briefs.agent.engine import write_deterministic
from briefs.agent.llm_writer import write_with_llm
from briefs.claims import Claim
from briefs.draft import Dateline
from tests.briefs.test_pipeline import _run
from tests.research.fake_llm import anthropic_error, anthropic_text, fake_llm_server


def _writer_step(run: Any) -> Any:
    from briefs.models import BriefStep

    return BriefStep.objects.get(run=run, node="writer")


# With a key set the news agent asks the model first (its tone reading, tests/briefs/test_llm_news.py);
# an empty reading keeps the rules' tone, so the writer is what these tests exercise.
NEWS_READING = (200, anthropic_text(json.dumps({"tickers": []})))


def _reply(
    sections: list[dict[str, str]], summary: str = "Infosys in focus on {{as_of}}; the table has the rest."
) -> Any:
    writer = (
        200,
        anthropic_text(json.dumps({"summary": summary, "sections": sections}), input_tokens=900, output_tokens=120),
    )
    return NEWS_READING, writer


@pytest.fixture
def one_ticker(watchlist: Any) -> Any:
    watchlist.tickers = ["INFY.NS"]  # c1..c8 are INFY's (last_close first), c9.. the benchmark's (^NSEI)
    watchlist.save()
    return watchlist


@pytest.mark.django_db(transaction=True)
def test_claude_prose_is_used_when_it_keeps_the_contract(one_ticker: Any, analyst: Any, feeds: Any) -> None:
    with fake_llm_server() as claude, override_settings(ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=claude.url):
        claude.script(
            *_reply(
                [
                    {"ticker": "INFY.NS", "narrative": "{{t:INFY.NS}} closed at {{c1}} after a quiet session."},
                    {"ticker": "TSLA", "narrative": "Also buy Tesla at {{c1}}."},  # outside the scope
                ]
            )
        )
        run, values = _run(one_ticker, analyst)
    sections = values["draft"]["sections"]
    assert [s["ticker"] for s in sections] == ["INFY.NS"]
    assert sections[0]["narrative"] == "{{t:INFY.NS}} closed at {{c1}} after a quiet session."
    assert values["draft"]["summary"] == "Infosys in focus on {{as_of}}; the table has the rest."
    # the structure stays the engine's: dateline, table, benchmark
    assert [row["ticker"] for row in values["draft"]["table"]] == ["INFY.NS", "^NSEI"]
    assert values["draft"]["dateline"]["as_of"] == "2025-09-30"
    assert values["verification"]["ok"] is True and run.status == "awaiting_review"
    step = _writer_step(run)
    assert step.outputs["engine"] == "anthropic" and "fallback" not in step.outputs
    assert step.tokens == 1020 and step.cost_usd > 0
    # the names, the claim table and the headlines reach the model fenced as data
    prompt = claude.requests[1]["body"]["messages"][0]["content"]
    assert prompt.count("<data>") == 3 and '"id": "c1"' in prompt and '"metric": "last close"' in prompt
    system = claude.requests[1]["body"]["system"].lower()
    assert "never write a digit" in system and "number words" in system and "doubled" in system


@pytest.mark.django_db(transaction=True)
def test_a_reply_that_breaks_the_contract_falls_back_to_the_rules(one_ticker: Any, analyst: Any, feeds: Any) -> None:
    with fake_llm_server() as claude, override_settings(ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=claude.url):
        claude.script(*_reply([{"ticker": "INFY.NS", "narrative": "Infosys rose five percent on the day."}]))
        run, values = _run(one_ticker, analyst)
    assert "number word “five”" in _writer_step(run).outputs["fallback"]
    text = values["draft"]["sections"][0]["narrative"]
    assert "five" not in text and "{{c1}}" in text  # the deterministic engine's prose, citing the close
    assert values["verification"]["ok"] is True and run.status == "awaiting_review"


@pytest.mark.django_db(transaction=True)
def test_an_unavailable_model_falls_back_to_the_rules(one_ticker: Any, analyst: Any, feeds: Any) -> None:
    with fake_llm_server() as claude, override_settings(ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=claude.url):
        claude.default = (500, anthropic_error(500))
        run, _ = _run(one_ticker, analyst)
    assert "server_error" in _writer_step(run).outputs["fallback"]
    assert run.status == "awaiting_review"


# --- the contract, form by form, against the fake model -------------------------------------------
AS_OF = dt.date(2025, 9, 30)


def _claim(cid: str, ticker: str, metric: str, value: float, unit: str) -> Claim:
    return Claim(id=cid, ticker=ticker, metric=metric, value=value, unit=unit, as_of=AS_OF,
                 tool="compute_metrics", tool_call_id="t", inputs={"ticker": ticker}, source="snapshot")  # fmt: skip


CLAIMS = [
    _claim("c1", "INFY.NS", "last_close", 1441.8, "INR"),
    _claim("c2", "INFY.NS", "change_1d_pct", -1.25, "%"),
    _claim("c3", "INFY.NS", "return_30d_pct", 4.5, "%"),
    _claim("c4", "^NSEI", "last_close", 24363.3, "pts"),
    _claim("c5", "^NSEI", "change_1d_pct", -0.95, "%"),
]
PRICES = {"INFY.NS": {"name": "Infosys Ltd.", "kind": "equity"}, "^NSEI": {"name": "NIFTY 50", "kind": "index"}}


def _write(narrative: str, summary: str = "A quiet session for the list.") -> Any:
    base = write_deterministic(
        tickers=["INFY.NS"], claims=CLAIMS, prices=PRICES, sentiment={}, partial=False, benchmark="^NSEI",
        dateline=Dateline(as_of=AS_OF),
    )  # fmt: skip
    from core.llm import get_llm

    with fake_llm_server() as claude, override_settings(ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=claude.url):
        reply = {"summary": summary, "sections": [{"ticker": "INFY.NS", "narrative": narrative}]}
        claude.script((200, anthropic_text(json.dumps(reply))))
        return write_with_llm(get_llm("writer"), base=base, claims=CLAIMS, sentiment={}, scope=["INFY.NS"])


def test_prose_that_keeps_the_contract_is_taken() -> None:
    written = _write(
        "{{t:INFY.NS}} fell {{c2}} to {{c1}}, against {{c5}} for the index; over the month it gained {{c3}}.",
        summary="On {{as_of}} the {{t:^NSEI}} slipped {{c5}}.",
    )
    assert written.error == "" and written.draft is not None
    assert written.draft.sections[0].narrative.startswith("{{t:INFY.NS}} fell {{c2}}")


@pytest.mark.parametrize(
    ("narrative", "reason"),
    [
        ("Infosys rose 5% on the day.", "bare numeral “5”"),
        ("Infosys rose ५ on the day.", "bare numeral “५”"),  # Devanagari five
        ("Infosys rose ٥ on the day.", "bare numeral “٥”"),  # Arabic-Indic five
        ("Infosys rose ５ on the day.", "bare numeral “５”"),  # fullwidth five
        ("Infosys rose by ½ on the day.", "bare numeral “½”"),
        ("Infosys rose five percent on the day.", "number word “five”"),
        ("Volumes ran at a dozen times the usual.", "number word “dozen”"),
        ("It is a hundred rupees off its high.", "number word “hundred”"),
        ("Its order book doubled this year.", "number word “doubled”"),
        ("The stock has halved from its peak.", "number word “halved”"),
        ("A third of the gains were lost.", "number word “third”"),
        ("Half of the session was quiet.", "number word “Half”"),
        ("Its profit tripled.", "number word “tripled”"),
        ("It moved twice as much as the index.", "number word “twice”"),
        ("It is one of the weakest names.", "number word “one”"),
        ("It rose {{c2}} percent.", "doubled unit"),
        ("It closed at {{c1}} rupees.", "doubled unit"),
        ("It closed at ₹{{c1}}.", "doubled unit"),
        ("The index stands at {{c4}} points.", "doubled unit"),
        ("It gained a few percent.", "number word “percent”"),
        ("It closed near the 52-week high.", "bare numeral “5”"),
        ("{{t:TSLA}} rallied in sympathy.", "TSLA is named in the INFY.NS text but is not part of this run"),
        ("It rose {{c2}} on the day.", "calls c2 a rise, but the figure does not say so"),
        ("It closed at {{c9}}.", "c9 is not in the claim table"),
    ],
)
def test_every_form_of_a_figure_is_refused(narrative: str, reason: str) -> None:
    written = _write(narrative)
    assert written.draft is None
    assert reason in written.error, written.error


def test_a_figure_in_the_lead_is_refused_too() -> None:
    written = _write("{{t:INFY.NS}} fell {{c2}}.", summary="Markets fell by a quarter.")
    assert written.draft is None and "number word “quarter”" in written.error
