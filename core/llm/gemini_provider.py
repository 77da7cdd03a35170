"""Google Gemini through langchain-google-genai (``GEMINI_BASE_URL`` points it elsewhere, e.g. a
local fake server in tests)."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings

from core.llm import LLMError, LLMResponse, LLMToolCall, cost_usd


def _status_of(exc: BaseException) -> int | None:
    for attr in ("code", "status_code"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


class GeminiProvider:
    name = "gemini"

    def __init__(self, *, model: str, api_key: str | None = None, base_url: str | None = None) -> None:
        from langchain_google_genai import ChatGoogleGenerativeAI

        self.model = model
        kwargs: dict[str, Any] = {
            "model": model,
            "google_api_key": api_key or settings.GOOGLE_API_KEY,
            "max_retries": 0,  # retries are the graph's decision
            "timeout": settings.LLM_TIMEOUT_SECONDS,
        }
        if base_url or settings.GEMINI_BASE_URL:
            kwargs["base_url"] = base_url or settings.GEMINI_BASE_URL
        self._chat = ChatGoogleGenerativeAI(**kwargs)

    def complete(
        self,
        *,
        system: str,
        messages: list[dict[str, str]],
        max_tokens: int,
        tools: list[dict[str, Any]] | None = None,
    ) -> LLMResponse:
        started = time.perf_counter()
        runnable: Any = self._chat.bind_tools(_function_specs(tools)) if tools else self._chat
        try:
            result = runnable.invoke(_history(system, messages), max_output_tokens=max_tokens)
        except Exception as exc:  # the SDK's error classes vary by transport; classify by status
            raise _classify(exc) from exc
        usage = getattr(result, "usage_metadata", None) or {}
        inp, out = int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))
        return LLMResponse(
            text=_text_of(result.content),
            tool_calls=_tool_calls(result),
            input_tokens=inp,
            output_tokens=out,
            cost_usd=cost_usd(self.model, inp, out),
            model=self.model,
            latency_ms=round((time.perf_counter() - started) * 1000, 3),
        )


def _history(system: str, messages: list[dict[str, str]]) -> list[Any]:
    """The chat as LangChain messages: the system prompt (if any), then the turns in order."""
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

    history: list[BaseMessage] = [SystemMessage(content=system)] if system else []
    for m in messages:
        history.append(
            AIMessage(content=m["content"]) if m["role"] == "assistant" else HumanMessage(content=m["content"])
        )
    return history


def _function_specs(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Our provider-neutral tool specs in the OpenAI function shape ``bind_tools`` accepts."""
    return [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t.get("description", ""),
                "parameters": t["input_schema"],
            },
        }
        for t in tools
    ]


def _classify(exc: BaseException) -> LLMError:
    """The SDK failure as one of our error codes: rate limit, server error, timeout, or bad response."""
    status = _status_of(exc)
    text = f"{type(exc).__name__}: {exc}"[:500]
    if status == 429 or "RESOURCE_EXHAUSTED" in text:
        return LLMError("rate_limited", f"Gemini rate limit: {text}", status=429)
    if status is not None and status >= 500:
        return LLMError("server_error", f"Gemini answered {status}: {text}", status=status)
    if "timeout" in text.lower() or "timed out" in text.lower():
        return LLMError("timeout", "Gemini did not answer in time.")
    return LLMError("bad_response", f"Gemini call failed: {text}", status=status)


def _text_of(content: Any) -> str:
    """The reply's text: a plain string, or the text parts of a multi-part content list."""
    if isinstance(content, list):
        return "".join(
            part if isinstance(part, str) else str(part.get("text", ""))
            for part in content
            if isinstance(part, str) or part.get("type") == "text"
        )
    return str(content)


def _tool_calls(result: Any) -> list[LLMToolCall]:
    return [
        LLMToolCall(id=str(call.get("id") or f"call_{i}"), name=call["name"], arguments=dict(call.get("args") or {}))
        for i, call in enumerate(getattr(result, "tool_calls", []) or [])
    ]
