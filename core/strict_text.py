"""API text fields take JSON strings only.

DRF's ``CharField`` turns a number into text (``{"name": 0}`` is saved as ``"0"``), although the
schema says ``string``: a client sending the wrong type should hear so (a 400 naming the field),
not find its number quietly stored as text. Installed once by :class:`core.apps.CoreConfig`;
HTML forms are not DRF and are unaffected."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

_original = serializers.CharField.to_internal_value


def _strict_to_internal_value(self: serializers.CharField, data: Any) -> Any:
    if not isinstance(data, str):
        self.fail("invalid")
    return _original(self, data)


def install() -> None:
    serializers.CharField.to_internal_value = _strict_to_internal_value  # type: ignore[method-assign,assignment]
