"""The verifier's check of a figure quoted from a passage: the figure, as the passage writes it, is
in the cited passage (whitespace normalised) as a whole number — "4.5" is not found in "14.5", "4.55"
or "2,024.5" — outside a sentence that instructs the answerer, its sign was not dropped on the way,
and the claim's value and the figure the answer shows are that figure, read again here.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from research.agent.text.instructions import is_instruction

# A negative sign written right before a figure: "(-)7.5", "(-) 6.6", "-9.5", "−4.5".
_NEGATIVE_BEFORE = re.compile(r"(?:\([-−]\)\s?|(?<![\w.])[-−])$")
# The figure an answer shows: "−7.5 per cent", "₹14.1 lakh crore", "$1,234.5 million".
_DISPLAYED = re.compile(r"(?:\([-−+]\)\s?|[-−+])?\d[\d,]*(?:\.\d+)?")


def check_quote(claim: dict[str, Any], chunk_texts: dict[int, str]) -> str | None:
    """Why the quote claim does not hold, or ``None`` when it does."""
    text = " ".join(chunk_texts.get(int(claim.get("chunk_id", 0)), "").split())
    figure = str(claim.get("quote_figure", claim["display"]))
    places = places_of(figure, text)
    if not places:
        return f"{claim['id']}: the cited passage does not contain {claim['display']!r}"
    if all(_in_instruction(at, text) for at in places):
        return f"{claim['id']}: the cited passage gives {figure} only in an instruction, not as a statement"
    if sign_dropped(figure, float(claim.get("value", 0) or 0), text):
        return f"{claim['id']}: the cited passage gives {figure} as a negative figure, the claim says {claim['value']}"
    # The value and the figure shown are read again from the figure as written (a claim the LLM
    # comparator makes carries the figure with its unit, "4.5 per cent", and no value).
    printed = _value_as_written(_shown(figure))
    if claim.get("value") is not None and printed != _value_as_written(str(claim["value"])):
        return f"{claim['id']}: the passage writes {figure}, the claim says {claim['value']}"
    if _value_as_written(_shown(str(claim["display"]))) != printed:
        return f"{claim['id']}: the answer shows {claim['display']!r} for the passage's {figure}"
    return None


def _shown(written: str) -> str:
    """The figure, sign included, in a figure as written or shown ("(-)7.5" → "(-)7.5", "−7.5 per cent" →
    "−7.5", "₹14.1 lakh crore" → "14.1")."""
    found = _DISPLAYED.search(written)
    return found.group(0) if found else ""


def _value_as_written(figure: str) -> Decimal | None:
    """The value of a figure as a passage writes it — "(-)7.5", "−4.5", "(+)0.1", "1,234.5" — read
    here on its own, not by the extraction that made the claim."""
    negative = bool(re.match(r"\(?[-−]", figure))
    digits = re.sub(r"^\(?[-−+]\)?\s*", "", figure).replace(",", "")
    try:
        return -Decimal(digits) if negative else Decimal(digits)
    except (InvalidOperation, ValueError):
        return None


def sign_dropped(figure: str, value: float, text: str) -> bool:
    """Whether a positive claim quotes a figure the passage writes only as negative ("(-)7.5 per cent"
    read as 7.5): the digits are there, the figure is not."""
    if value < 0 or figure[:1] in "(-−+":
        return False
    places = places_of(figure, text)
    return bool(places) and all(_NEGATIVE_BEFORE.search(text[:at]) for at in places)


def _in_instruction(at: int, text: str) -> bool:
    """Whether the sentence holding position ``at`` tells the answerer what to say (text/instructions.py)."""
    from research.ingest.chunking import split_sentences

    start = 0
    for sentence in split_sentences(text):
        begin = text.find(sentence, start)
        if begin < 0:
            continue
        end = begin + len(sentence)
        if begin <= at < end:
            return is_instruction(sentence)
        start = end
    return False


def places_of(figure: str, text: str) -> list[int]:
    """Where ``figure`` stands in ``text`` as a whole number: no digit, decimal point or thousands
    group runs on before or after it."""
    pattern = rf"(?<![\d.])(?<!\d,){re.escape(figure)}(?!\d|[.,]\d)"
    return [m.start() for m in re.finditer(pattern, text)]
