"""Filled below."""

EXPECTED: dict[tuple[str, str], str] = {}
