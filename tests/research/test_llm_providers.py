"""The Anthropic and Gemini adapters against a local server speaking their HTTP APIs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.test import override_settings

from core.llm import LLMError, cost_usd, get_llm, llm_mode
from core.llm.anthropic_provider import AnthropicProvider
from core.llm.gemini_provider import GeminiProvider
from tests.research.fake_llm import (
    FakeLLMServer,
    anthropic_error,
    anthropic_text,
    anthropic_tool_use,
    fake_llm_server,
    gemini_error,
    gemini_function_call,
    gemini_text,
)

TOOLS = [
    {
        "name": "get_stock_quote",
        "description": "Latest quote for a ticker",
        "input_schema": {"type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]},
    }
]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeLLMServer]:
    with fake_llm_server() as server:
        yield server


@pytest.fixture(autouse=True)
def _reset(fake: FakeLLMServer) -> None:
    fake.replies.clear()
    fake.requests.clear()


def test_mode_follows_keys() -> None:
    with override_settings(ANTHROPIC_API_KEY="", GOOGLE_API_KEY=""):
        assert llm_mode() == "deterministic"
        assert get_llm("planner") is None
    with override_settings(ANTHROPIC_API_KEY="", GOOGLE_API_KEY="g-key"):
        assert llm_mode() == "gemini"
    with override_settings(ANTHROPIC_API_KEY="a-key", GOOGLE_API_KEY="g-key", ANTHROPIC_BASE_URL="http://127.0.0.1:9"):
        assert llm_mode() == "anthropic"
        planner, synthesis = get_llm("planner"), get_llm("synthesis")
        assert planner is not None and synthesis is not None
        assert (planner.model, synthesis.model) == ("claude-haiku-4-5", "claude-sonnet-4-6")


def test_cost_uses_per_million_prices() -> None:
    # haiku: $1 in / $5 out per million tokens → 1000 in + 200 out = 0.001 + 0.001
    assert cost_usd("claude-haiku-4-5", 1000, 200) == pytest.approx(0.002)


def test_anthropic_text(fake: FakeLLMServer) -> None:
    fake.script((200, anthropic_text("The repo rate is 6.50%.", input_tokens=1000, output_tokens=200)))
    llm = AnthropicProvider(model="claude-haiku-4-5", api_key="k", base_url=fake.url)
    reply = llm.complete(system="be brief", messages=[{"role": "user", "content": "repo rate?"}], max_tokens=100)
    assert reply.text == "The repo rate is 6.50%."
    assert reply.tool_calls == []
    assert (reply.input_tokens, reply.output_tokens) == (1000, 200)
    assert reply.cost_usd == pytest.approx(0.002)
    sent = fake.requests[0]
    assert sent["path"] == "/v1/messages"
    # SDK 2.x sends the key as a bearer token (1.x used x-api-key).
    assert sent["headers"].get("x-api-key") == "k" or sent["headers"].get("authorization") == "Bearer k"
    assert sent["body"]["system"] == "be brief" and sent["body"]["max_tokens"] == 100
    assert sent["body"]["messages"] == [{"role": "user", "content": "repo rate?"}]


def test_anthropic_tool_use(fake: FakeLLMServer) -> None:
    fake.script((200, anthropic_tool_use("get_stock_quote", {"ticker": "INFY"})))
    llm = AnthropicProvider(model="claude-haiku-4-5", api_key="k", base_url=fake.url)
    reply = llm.complete(system="", messages=[{"role": "user", "content": "INFY?"}], max_tokens=50, tools=TOOLS)
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("get_stock_quote", {"ticker": "INFY"})]
    assert fake.requests[0]["body"]["tools"][0]["name"] == "get_stock_quote"


@pytest.mark.parametrize(("status", "code"), [(429, "rate_limited"), (500, "server_error"), (400, "bad_response")])
def test_anthropic_errors(fake: FakeLLMServer, status: int, code: str) -> None:
    fake.script((status, anthropic_error(status)))
    llm = AnthropicProvider(model="claude-haiku-4-5", api_key="k", base_url=fake.url)
    with pytest.raises(LLMError) as info:
        llm.complete(system="", messages=[{"role": "user", "content": "x"}], max_tokens=10)
    assert info.value.code == code
    assert len(fake.requests) == 1  # no hidden SDK retries


def test_gemini_text(fake: FakeLLMServer) -> None:
    fake.script((200, gemini_text("Policy stance: neutral.", prompt_tokens=1000, output_tokens=200)))
    llm = GeminiProvider(model="gemini-2.5-flash", api_key="g", base_url=fake.url)
    reply = llm.complete(system="be brief", messages=[{"role": "user", "content": "stance?"}], max_tokens=100)
    assert reply.text == "Policy stance: neutral."
    assert (reply.input_tokens, reply.output_tokens) == (1000, 200)
    # flash: $0.30 in / $2.50 out per million → 0.0003 + 0.0005
    assert reply.cost_usd == pytest.approx(0.0008)
    sent = fake.requests[0]
    assert "gemini-2.5-flash:generateContent" in sent["path"]
    assert sent["body"]["contents"][-1]["parts"][0]["text"] == "stance?"
    assert "be brief" in str(sent["body"].get("systemInstruction") or sent["body"].get("system_instruction"))


def test_gemini_function_call(fake: FakeLLMServer) -> None:
    fake.script((200, gemini_function_call("get_stock_quote", {"ticker": "TCS"})))
    llm = GeminiProvider(model="gemini-2.5-flash", api_key="g", base_url=fake.url)
    reply = llm.complete(system="", messages=[{"role": "user", "content": "TCS?"}], max_tokens=50, tools=TOOLS)
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("get_stock_quote", {"ticker": "TCS"})]
    declared = str(fake.requests[0]["body"].get("tools"))
    assert "get_stock_quote" in declared


@pytest.mark.parametrize(("status", "code"), [(429, "rate_limited"), (500, "server_error")])
def test_gemini_errors(fake: FakeLLMServer, status: int, code: str) -> None:
    fake.script((status, gemini_error(status)))
    llm = GeminiProvider(model="gemini-2.5-flash", api_key="g", base_url=fake.url)
    with pytest.raises(LLMError) as info:
        llm.complete(system="", messages=[{"role": "user", "content": "x"}], max_tokens=10)
    assert info.value.code == code
