"""One interface over the language models the agents may use.

``get_llm(role)`` returns a provider for ``role`` ("planner", "synthesis", "writer") or ``None``
when no key is configured: ``None`` means the caller runs its *deterministic engine* — the same
graph driven by rules — so everything works offline. Providers never leak SDK exceptions: a failed
call raises :class:`LLMError` with a stable ``code`` the graphs can branch on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Protocol, TypeVar, runtime_checkable

from django.conf import settings

Role = Literal["planner", "synthesis", "writer"]
Mode = Literal["anthropic", "gemini", "deterministic"]
ErrorCode = Literal["rate_limited", "server_error", "bad_response", "timeout"]


class LLMError(Exception):
    """A model call that failed; ``code`` is one of rate_limited, server_error, bad_response, timeout."""

    def __init__(self, code: ErrorCode, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.status = status
        self.attempts = 1  # calls made before giving up (set by core.llm.retry)


@dataclass(frozen=True)
class LLMToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class LLMResponse:
    text: str
    tool_calls: list[LLMToolCall] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    model: str = ""
    latency_ms: float = 0.0
    attempts: int = 1  # calls it took (core.llm.retry): the ones before it failed and were retried


@runtime_checkable
class LLMProvider(Protocol):
    name: str
    model: str

    def complete(
        self,
        *,
        system: str,
        messages: list[dict[str, str]],
        max_tokens: int,
        tools: list[dict[str, Any]] | None = None,
    ) -> LLMResponse:
        """``messages``: ``[{"role": "user"|"assistant", "content": str}]``; ``tools``:
        ``[{"name", "description", "input_schema"}]`` (JSON schema). Raises :class:`LLMError`."""
        ...


def llm_mode() -> Mode:
    """Anthropic when its key is set, else Gemini when its key is set, else deterministic
    (the same rule as ``core.health.llm_mode``)."""
    if settings.ANTHROPIC_API_KEY:
        return "anthropic"
    if settings.GOOGLE_API_KEY:
        return "gemini"
    return "deterministic"


def model_for(role: Role, mode: Mode | None = None) -> str:
    mode = mode or llm_mode()
    if mode == "gemini":
        return str(settings.LLM_GEMINI_MODELS[role])
    return str(
        {
            "planner": settings.LLM_PLANNER_MODEL,
            "synthesis": settings.LLM_SYNTHESIS_MODEL,
            "writer": settings.LLM_WRITER_MODEL,
        }[role]
    )


def cost_usd(model: str, input_tokens: int, output_tokens: int) -> float:
    """Dollar cost from the per-million-token prices in ``settings.LLM_PRICES`` (0 when unknown)."""
    prices = settings.LLM_PRICES.get(model) or settings.LLM_PRICES.get("default") or (0.0, 0.0)
    return round((input_tokens * prices[0] + output_tokens * prices[1]) / 1_000_000, 8)


_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
# A fence tag written inside the data (a passage, a headline) must not close or reopen the fence.
_FENCE_TAG = re.compile(r"<\s*/?\s*data\s*>", re.IGNORECASE)


def fence(payload: str) -> str:
    """``payload`` between ``<data>`` and ``</data>``: untrusted text (tool output, passages, news)
    that the system prompt tells the model never to follow. A fence tag inside it is defused."""
    return "<data>\n" + _FENCE_TAG.sub(lambda m: m.group(0).replace("<", "‹").replace(">", "›"), payload) + "\n</data>"


def json_object(text: str) -> dict[str, Any]:
    """The first-to-last ``{…}`` of a model reply as a dict (models wrap JSON in prose or fences);
    ``ValueError`` when there is none."""
    match = _JSON_OBJECT.search(text or "")
    if match is None:
        raise ValueError("the reply holds no JSON object")
    payload = json.loads(match.group(0))  # JSONDecodeError is a ValueError
    if not isinstance(payload, dict):
        raise ValueError("the reply's JSON is not an object")
    return payload


T = TypeVar("T")


@dataclass(frozen=True)
class Checked(Generic[T]):
    """A model reply that the caller's contract accepted (``value``), or why not (``error``), so the
    caller can fall back to its rules. ``response`` is ``None`` when the call itself failed."""

    value: T | None
    error: str
    response: LLMResponse | None
    model: str

    @property
    def tokens(self) -> int:
        return self.response.input_tokens + self.response.output_tokens if self.response else 0

    @property
    def cost_usd(self) -> float:
        return self.response.cost_usd if self.response else 0.0


def complete_checked(
    llm: LLMProvider, *, system: str, prompt: str, max_tokens: int, parse: Callable[[str], T]
) -> Checked[T]:
    """One user message to ``llm``, its reply text put through ``parse`` (which raises on any breach
    of the caller's contract). Failed calls and rejected replies come back as ``error``."""
    from pydantic import ValidationError

    try:
        response = llm.complete(system=system, messages=[{"role": "user", "content": prompt}], max_tokens=max_tokens)
    except LLMError as exc:
        return Checked(None, f"{exc.code}: {exc}"[:300], None, getattr(llm, "model", ""))
    try:
        return Checked(parse(response.text), "", response, response.model)
    except (ValueError, TypeError, AttributeError) as exc:
        # pydantic's ValidationError is a ValueError too: take its first message, not its header.
        reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        return Checked(None, f"rejected: {reason}"[:300], response, response.model)


def get_llm(role: Role) -> LLMProvider | None:
    """The provider for ``role`` in the configured mode, with bounded retries (core/llm/retry.py),
    or ``None`` for the deterministic engine."""
    from core.llm.retry import RetryingProvider

    mode = llm_mode()
    provider: LLMProvider
    if mode == "anthropic":
        from core.llm.anthropic_provider import AnthropicProvider

        provider = AnthropicProvider(model=model_for(role, mode))
    elif mode == "gemini":
        from core.llm.gemini_provider import GeminiProvider

        provider = GeminiProvider(model=model_for(role, mode))
    else:
        return None
    return RetryingProvider(
        provider,
        attempts=settings.LLM_MAX_ATTEMPTS,
        base_seconds=settings.LLM_RETRY_BASE_SECONDS,
        max_seconds=settings.LLM_RETRY_MAX_SECONDS,
    )


__all__ = [
    "Checked",
    "LLMError",
    "LLMProvider",
    "LLMResponse",
    "LLMToolCall",
    "Role",
    "complete_checked",
    "cost_usd",
    "fence",
    "get_llm",
    "json_object",
    "llm_mode",
    "model_for",
]
