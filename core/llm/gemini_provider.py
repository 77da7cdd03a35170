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
        from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

        started = time.perf_counter()
        history: list[BaseMessage] = [SystemMessage(content=system)] if system else []
        for m in messages:
            history.append(
                AIMessage(content=m["content"]) if m["role"] == "assistant" else HumanMessage(content=m["content"])
            )
        runnable: Any = self._chat
        if tools:
            runnable = self._chat.bind_tools(
                [
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
            )
        try:
            result = runnable.invoke(history, max_output_tokens=max_tokens)
        except Exception as exc:  # the SDK's error classes vary by transport; classify by status
            status = _status_of(exc)
            text = f"{type(exc).__name__}: {exc}"[:500]
            if status == 429 or "RESOURCE_EXHAUSTED" in text:
                raise LLMError("rate_limited", f"Gemini rate limit: {text}", status=429) from exc
            if status is not None and status >= 500:
                raise LLMError("server_error", f"Gemini answered {status}: {text}", status=status) from exc
            if "timeout" in text.lower() or "timed out" in text.lower():
                raise LLMError("timeout", "Gemini did not answer in time.") from exc
            raise LLMError("bad_response", f"Gemini call failed: {text}", status=status) from exc
        content = result.content
        if isinstance(content, list):
            text_out = "".join(
                part if isinstance(part, str) else str(part.get("text", ""))
                for part in content
                if isinstance(part, str) or part.get("type") == "text"
            )
        else:
            text_out = str(content)
        calls = [
            LLMToolCall(
                id=str(call.get("id") or f"call_{i}"), name=call["name"], arguments=dict(call.get("args") or {})
            )
            for i, call in enumerate(getattr(result, "tool_calls", []) or [])
        ]
        usage = getattr(result, "usage_metadata", None) or {}
        inp, out = int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))
        return LLMResponse(
            text=text_out,
            tool_calls=calls,
            input_tokens=inp,
            output_tokens=out,
            cost_usd=cost_usd(self.model, inp, out),
            model=self.model,
            latency_ms=round((time.perf_counter() - started) * 1000, 3),
        )
