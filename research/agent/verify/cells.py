"""The verifier's check of a figure read from a statement table cell (research/agent/compose/statements/dispatch.py).

The claim names the cited passage, the row as printed (``line``) and the figure as printed
(``quote_figure``); the value is re-derived here from the printed figure — parentheses negative, a
dash nil — by plain Decimal parsing, independently of the extraction that stored it.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from research.agent.verify.quotes import places_of


def _text(claim: dict[str, Any], chunk_texts: dict[int, str]) -> str:
    """The cited passage's text; a row cut between two passages is read across both (the second's
    repeat of the first's end, the chunker's overlap, counted once)."""
    first = " ".join(chunk_texts.get(int(claim.get("chunk_id") or 0), "").split())
    if not claim.get("chunk_next"):
        return first
    second = " ".join(chunk_texts.get(int(claim["chunk_next"]), "").split())
    words = second.split(" ")
    for cut in range(min(len(words), 120), 0, -1):  # longest run of the second's first words ending the first
        head = " ".join(words[:cut])
        if first.endswith(head):
            return f"{first} {' '.join(words[cut:])}".strip()
    return f"{first} {second}"


def check_cell(claim: dict[str, Any], chunk_texts: dict[int, str]) -> str | None:
    """A figure read from a statement table cell: the cited passage holds the row as printed, the row
    prints the figure, and the figure as printed — parentheses negative, a dash nil — is the value."""
    text = _text(claim, chunk_texts)
    line = " ".join(str(claim.get("line", "")).split())
    figure = str(claim.get("quote_figure", ""))
    if not line or line not in text:
        return f"{claim['id']}: the cited passage does not hold the table row {line[:60]!r}"
    if not places_of(figure, line):  # as a whole number: "234" is not printed by "1,234"
        return f"{claim['id']}: the row does not print {figure!r}"
    if figure in ("—", "–", "-"):
        printed = Decimal(0)
    else:
        negative = f"({figure})" in line or f"({figure})%" in line
        try:
            printed = Decimal(figure.replace(",", "")) * (-1 if negative else 1)
        except InvalidOperation:
            return f"{claim['id']}: {figure!r} is not a number"
    if printed != Decimal(str(claim["value"])):
        return f"{claim['id']}: the row prints {printed}, the claim says {claim['value']}"
    return None
