"""Anthropic Claude through the official SDK (``ANTHROPIC_BASE_URL`` points it elsewhere, e.g. a
local fake server in tests)."""

from __future__ import annotations

import time
from typing import Any

import anthropic
from django.conf import settings

from core.llm import ErrorCode, LLMError, LLMResponse, LLMToolCall, cost_usd


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, *, model: str, api_key: str | None = None, base_url: str | None = None) -> None:
        self.model = model
        # Retries are the graph's decision (it records each attempt), so the SDK makes one call.
        self._client = anthropic.Anthropic(
            api_key=api_key or settings.ANTHROPIC_API_KEY,
            base_url=base_url or settings.ANTHROPIC_BASE_URL or None,
            timeout=settings.LLM_TIMEOUT_SECONDS,
            max_retries=0,
        )

    def complete(
        self,
        *,
        system: str,
        messages: list[dict[str, str]],
        max_tokens: int,
        tools: list[dict[str, Any]] | None = None,
    ) -> LLMResponse:
        started = time.perf_counter()
        kwargs: dict[str, Any] = {
            "model": self.model,
            "system": system,
            "max_tokens": max_tokens,
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
        }
        if tools:
            kwargs["tools"] = [
                {"name": t["name"], "description": t.get("description", ""), "input_schema": t["input_schema"]}
                for t in tools
            ]
        try:
            message = self._client.messages.create(**kwargs)
        except anthropic.RateLimitError as exc:
            raise LLMError("rate_limited", f"Anthropic rate limit: {exc}", status=429) from exc
        except anthropic.APITimeoutError as exc:
            raise LLMError("timeout", "Anthropic did not answer in time.") from exc
        except anthropic.APIStatusError as exc:
            code: ErrorCode = "server_error" if exc.status_code >= 500 else "bad_response"
            raise LLMError(code, f"Anthropic answered {exc.status_code}: {exc}", status=exc.status_code) from exc
        except anthropic.APIError as exc:  # connection errors, undecodable bodies
            raise LLMError("server_error", f"Anthropic call failed: {exc}") from exc
        texts: list[str] = []
        calls: list[LLMToolCall] = []
        for block in message.content:
            if block.type == "text":
                texts.append(block.text)
            elif block.type == "tool_use":
                calls.append(LLMToolCall(id=block.id, name=block.name, arguments=dict(block.input or {})))
        usage = message.usage
        inp, out = int(usage.input_tokens or 0), int(usage.output_tokens or 0)
        return LLMResponse(
            text="".join(texts),
            tool_calls=calls,
            input_tokens=inp,
            output_tokens=out,
            cost_usd=cost_usd(self.model, inp, out),
            model=message.model or self.model,
            latency_ms=round((time.perf_counter() - started) * 1000, 3),
        )
