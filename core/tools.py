"""The one tool registry shared by the agents and the MCP bridge.

A tool is a typed function ``fn(params: InputModel, *, user) -> OutputModel`` registered with
:func:`tool`. Its docstring is its description; the pydantic models give the JSON schemas.
Callers never call the function directly: :func:`call_tool` validates the arguments, runs the
tool as ``user``, times it, and turns every failure into a structured :class:`ToolError` —
a tool never raises to its caller. This is the adapter between the domain and the agents/MCP: an
:class:`core.exceptions.ApplicationError` raised anywhere below a tool becomes its ``ToolError``
(same code, same message, same details).

Tools live in ``<app>/tools.py`` and are discovered on first use of the registry.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from core.exceptions import ApplicationError, ToolError  # ToolError re-exported: the tools' error shape

logger = logging.getLogger(__name__)

In = TypeVar("In", bound=BaseModel)
Out = TypeVar("Out", bound=BaseModel)


class ToolFailure(ApplicationError):
    """Raise inside a tool (``<app>/tools.py``) to return a structured :class:`ToolError` to the
    caller: ``ToolFailure(code, message, **details)``. Domain code below the tools raises
    :class:`ApplicationError` itself; :func:`call_tool` treats both alike."""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    fn: Callable[..., BaseModel]
    mcp: bool  # exposed on the MCP whitelist

    def input_schema(self) -> dict[str, Any]:
        return self.input_model.model_json_schema()

    def output_schema(self) -> dict[str, Any]:
        return self.output_model.model_json_schema()


@dataclass(frozen=True)
class ToolOutcome:
    """What :func:`call_tool` returns: exactly one of ``output`` / ``error``, plus timing."""

    name: str
    arguments: dict[str, Any]
    output: BaseModel | None
    error: ToolError | None
    latency_ms: float

    @property
    def ok(self) -> bool:
        return self.error is None

    def as_dict(self) -> dict[str, Any]:
        if self.output is not None:
            return self.output.model_dump(mode="json")
        assert self.error is not None
        return self.error.model_dump(mode="json")


_REGISTRY: dict[str, ToolSpec] = {}
_discovered = False


def tool(
    name: str, *, input_model: type[In], output_model: type[Out], mcp: bool = True
) -> Callable[[Callable[..., Out]], Callable[..., Out]]:
    """Register ``fn`` as a tool called ``name``; its docstring becomes the description."""

    def decorator(fn: Callable[..., Out]) -> Callable[..., Out]:
        if name in _REGISTRY and _REGISTRY[name].fn is not fn:
            raise ValueError(f"tool {name!r} is registered twice")
        description = " ".join((fn.__doc__ or "").split())
        if not description:
            raise ValueError(f"tool {name!r} needs a docstring: it is the description agents and MCP see")
        _REGISTRY[name] = ToolSpec(name, description, input_model, output_model, fn, mcp)
        return fn

    return decorator


def registry() -> dict[str, ToolSpec]:
    """Every registered tool, after importing each installed app's ``tools`` module once."""
    global _discovered
    if not _discovered:
        from django.utils.module_loading import autodiscover_modules

        autodiscover_modules("tools")
        _discovered = True
    return dict(_REGISTRY)


def mcp_whitelist() -> dict[str, ToolSpec]:
    return {name: spec for name, spec in registry().items() if spec.mcp}


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "input"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def call_tool(name: str, arguments: dict[str, Any] | None, *, user: Any) -> ToolOutcome:
    """Validate, run and time one tool call as ``user``. Never raises."""
    arguments = dict(arguments or {})
    started = time.perf_counter()

    def outcome(output: BaseModel | None = None, error: ToolError | None = None) -> ToolOutcome:
        return ToolOutcome(name, arguments, output, error, round((time.perf_counter() - started) * 1000, 3))

    spec = registry().get(name)
    if spec is None:
        return outcome(error=ToolError(error="unknown_tool", message=f"There is no tool called {name!r}."))
    try:
        params = spec.input_model.model_validate(arguments)
    except ValidationError as exc:
        return outcome(error=ToolError(error="invalid_input", message=_validation_message(exc)))
    try:
        result = spec.fn(params, user=user)
    except ApplicationError as failure:
        return outcome(error=failure.tool_error)
    except Exception:
        logger.exception("tool %s failed", name)
        return outcome(error=ToolError(error="internal_error", message=f"The {name} tool failed unexpectedly."))
    if isinstance(result, ToolError):
        return outcome(error=result)
    return outcome(output=result)
