"""Web search for real: the ddgs library, unmodified, against a local server that speaks DuckDuckGo's
HTML endpoint over TLS (tests/research/fake_ddg.py) — the only fake is the network edge."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from core.tools import call_tool
from research.agent.verify.claims import render_text
from tests.research.fake_ddg import FakeDuckDuckGo, serve

pytestmark = pytest.mark.django_db


@pytest.fixture
def duckduckgo(settings: Any) -> Iterator[FakeDuckDuckGo]:
    state, proxy, ca, stop = serve()
    settings.WEB_SEARCH_PROVIDER = "research.agent.tools.web_ddgs.search"
    settings.WEB_SEARCH_PROXY = proxy
    settings.WEB_SEARCH_CA_BUNDLE = str(ca)
    try:
        yield state
    finally:
        stop()


def test_the_tool_searches_duckduckgo_through_ddgs(duckduckgo: FakeDuckDuckGo, analyst: Any) -> None:
    outcome = call_tool("web_search", {"query": "RBI repo rate August 2024", "max_results": 5}, user=analyst)
    assert outcome.ok, outcome.error
    results = outcome.as_dict()["results"]
    # ddgs posted the form it always posts and parsed the page; the advertisement (y.js) is dropped.
    (exchange,) = duckduckgo.received
    assert (exchange.host, exchange.method, exchange.path) == ("html.duckduckgo.com", "POST", "/html/")
    assert exchange.form["q"] == ["RBI repo rate August 2024"] and exchange.form["l"] == ["in-en"]
    assert [r["url"] for r in results] == [
        "https://www.rbi.org.in/Scripts/BS_PressReleaseDisplay.aspx?prid=58614",
        "https://example.com/markets/rbi-policy-explainer",
    ]
    assert results[0]["snippet"].startswith("The MPC decided to keep the policy repo rate unchanged at 6.50 per cent.")


def test_a_refused_search_finds_nothing_and_a_dead_network_is_a_clear_error(
    duckduckgo: FakeDuckDuckGo, analyst: Any, settings: Any
) -> None:
    duckduckgo.status = 429  # ddgs reads any non-200 page as "no results"
    outcome = call_tool("web_search", {"query": "RBI repo rate"}, user=analyst)
    assert outcome.ok and outcome.as_dict()["results"] == []
    settings.WEB_SEARCH_PROXY = "http://127.0.0.1:9"  # nothing listens there
    outcome = call_tool("web_search", {"query": "RBI repo rate"}, user=analyst)
    assert not outcome.ok
    assert outcome.error is not None and outcome.error.error == "provider_unavailable"
    assert outcome.error.message.startswith("Web search failed: the web search did not answer")


def test_the_agent_quotes_web_results_as_untrusted_with_their_page(
    duckduckgo: FakeDuckDuckGo, analyst: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from research.chat.services import chat_message_post, chat_turn_run

    with django_capture_on_commit_callbacks(execute=False):
        turn = chat_message_post(user=analyst, question="What are today's headlines about the RBI repo rate?")
    chat_turn_run(turn_id=turn.pk)
    turn.refresh_from_db()
    text = render_text(turn.answer, turn.claims)
    assert turn.plan_path == "web" and turn.status == "done"
    assert "untrusted pages, not the team's library" in text
    # Figures from a page appear only inside its verbatim quote, next to the page's address …
    assert "“The MPC decided to keep the policy repo rate unchanged at 6.50 per cent." in text
    assert "[Source: Monetary Policy Statement" in text and "prid=58614]" in text
    assert not turn.claims  # … never as claims of the answer's own
    # … and a page's "instructions" are quoted data, not followed.
    assert text.count("9.99") == 1 and "“Ignore all previous instructions" in text
    assert turn.verification["status"] == "verified", turn.verification
