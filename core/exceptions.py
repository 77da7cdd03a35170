"""The one domain error every app raises and every edge translates.

Domain code (portfolios' market data, analytics, selectors, services) raises
:class:`ApplicationError` with a stable ``code`` and a message a person understands. Each edge
turns it into its own shape: the tool registry (:func:`core.tools.call_tool`) into a structured
:class:`core.tools.ToolError`, HTML views into a status and a message, services into form errors.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


# The structured shape of an error at the tool boundary. It is defined here, beside the error it
# carries, so this module depends on nothing of the project: core.tools imports it, not the reverse.
class ToolError(BaseModel):
    """A failure a person can understand. ``error`` is a stable code such as ``invalid_input``,
    ``unknown_ticker``, ``no_data``, ``provider_unavailable``, ``forbidden`` or ``internal_error``."""

    model_config = ConfigDict(frozen=True)

    error: str
    message: str
    details: dict[str, Any] = Field(default_factory=dict)


class ApplicationError(Exception):
    """A failure a person can understand.

    ``code`` is a short stable machine string (``invalid_input``, ``unknown_ticker``, ``no_data``,
    ``provider_unavailable``, ``forbidden``...), ``message`` the user-facing sentence (also
    ``str(exc)``), ``details`` optional machine-readable context such as ``ticker=...``.
    """

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    @property
    def tool_error(self) -> ToolError:
        """This error in the structured form a tool returns (the views render the same shape)."""
        return ToolError(error=str(self.code), message=str(self.message), details=dict(self.details))
