"""The shared tool registry: validation, structured errors, never raising."""

from typing import Any

import pytest
from pydantic import BaseModel, Field

from core import tools


class EchoIn(BaseModel):
    text: str = Field(min_length=1, max_length=20)


class EchoOut(BaseModel):
    text: str


@pytest.fixture
def echo_tools() -> Any:
    @tools.tool("test_echo", input_model=EchoIn, output_model=EchoOut, mcp=False)
    def echo(params: EchoIn, *, user: Any) -> EchoOut:
        """Echo the text back, refusing 'forbidden' and exploding on 'boom'."""
        if params.text == "forbidden":
            raise tools.ToolFailure("forbidden", "You may not echo that.", word=params.text)
        if params.text == "boom":
            raise RuntimeError("internal detail that must not leak")
        return EchoOut(text=params.text)

    yield
    tools._REGISTRY.pop("test_echo")


def test_valid_call_returns_typed_output(echo_tools: Any) -> None:
    outcome = tools.call_tool("test_echo", {"text": "hi"}, user=None)
    assert outcome.ok and outcome.output == EchoOut(text="hi")
    assert outcome.as_dict() == {"text": "hi"}
    assert outcome.latency_ms >= 0


def test_invalid_input_is_a_structured_error(echo_tools: Any) -> None:
    outcome = tools.call_tool("test_echo", {"text": ""}, user=None)
    assert outcome.error is not None
    assert outcome.error.error == "invalid_input"
    assert "text" in outcome.error.message


def test_tool_failure_and_crash_never_raise(echo_tools: Any) -> None:
    refused = tools.call_tool("test_echo", {"text": "forbidden"}, user=None)
    assert refused.error == tools.ToolError(
        error="forbidden", message="You may not echo that.", details={"word": "forbidden"}
    )
    crashed = tools.call_tool("test_echo", {"text": "boom"}, user=None)
    assert crashed.error is not None and crashed.error.error == "internal_error"
    assert "internal detail" not in crashed.error.message


def test_unknown_tool() -> None:
    outcome = tools.call_tool("rm_rf", {}, user=None)
    assert outcome.error is not None and outcome.error.error == "unknown_tool"


def test_description_comes_from_the_docstring(echo_tools: Any) -> None:
    spec = tools.registry()["test_echo"]
    assert spec.description.startswith("Echo the text back")
    assert spec.input_schema()["properties"]["text"]["maxLength"] == 20
    assert "test_echo" not in tools.mcp_whitelist()


def test_a_tool_without_docstring_is_refused() -> None:
    with pytest.raises(ValueError, match="docstring"):

        @tools.tool("test_nodoc", input_model=EchoIn, output_model=EchoOut)
        def nodoc(params: EchoIn, *, user: Any) -> EchoOut:
            return EchoOut(text="x")
