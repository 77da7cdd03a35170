"""The writer's contract: prose carries no figure in any form; figures are references.

A brief's prose (title, lead, per-ticker narratives) may contain three kinds of reference, all
rendered by code:

* ``{{c12}}`` — a claim from the claim table (a verified figure, with its unit);
* ``{{t:RELIANCE.NS}}`` — a ticker of the run (rendered as its name; symbols may contain digits);
* ``{{as_of}}`` — the date of the data (the newest bar).

Everything else is words, and :func:`assert_figure_free` refuses any figure in any form:

* a digit or numeral in any script (ASCII, Devanagari ५, Arabic-Indic ٥, fullwidth ５, ½, Ⅻ, …);
* number words (``five``, ``a dozen``, ``hundred``, ``lakh``), fractions and multiples (``half``,
  ``a third``, ``quarter``, ``doubled``, ``halved``, ``tripled``, ``twofold``, ``twice``);
* percent words and signs (``percent``, ``per cent``, ``pct``, ``bps``, ``%``) and currency signs;
* a unit written beside a claim reference (``{{c3}} percent``, ``₹{{c1}}``, ``{{c1}} rupees``):
  a claim's unit is fixed by its metric and rendered with it, so it is never written twice.

Signed figures (changes, returns) cited right after a direction word (``rose {{c3}}``,
``fell by {{c3}}``, ``up {{c3}}``) are rendered as magnitudes, and the verifier checks that the
word agrees with the sign (:func:`directional_references`).
"""

from __future__ import annotations

import re
import unicodedata

CLAIM_RE = re.compile(r"\{\{(c[1-9][0-9]*)\}\}")
TICKER_RE = re.compile(r"\{\{t:([A-Z0-9^][A-Z0-9^.&\-]{0,23})\}\}")
AS_OF = "{{as_of}}"
ANY_REF_RE = re.compile(r"\{\{(?:c[1-9][0-9]*|t:[A-Z0-9^][A-Z0-9^.&\-]{0,23}|as_of)\}\}")

_NUMBER_WORDS = (
    "zero|nought|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    "sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|"
    "hundreds?|thousands?|millions?|billions?|trillions?|lakhs?|crores?|dozens?|"
    "second|thirds?|fourths?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?|eleventh|twelfth|"
    "twentieth|hundredths?|thousandths?|"
    "half|halves|halve[sd]?|halving|quarters?|twice|thrice|"
    "doubl(?:e|ed|es|ing)|tripl(?:e|ed|es|ing)|quadrupl(?:e|ed|es|ing)|quintupl(?:e|ed|es|ing)|"
    "(?:two|three|four|five|six|seven|eight|nine|ten|hundred|thousand)-?fold|"
    "percent(?:age)?s?|pct|bps|per\\s+cent|per\\s+mille|basis\\s+points?"
)
_WORD_RE = re.compile(rf"\b(?:{_NUMBER_WORDS})\b", re.IGNORECASE)
# "one" is a count ("one of the names"), except in "no one" / "any one" / "every one".
_ONE_RE = re.compile(r"(?<!\bno )(?<!\bany )(?<!\bevery )\bone\b|\ba\s+couple\b", re.IGNORECASE)
_SIGNS_RE = re.compile(r"[%‰‱₹$€£¥]")
_UNIT_AFTER_RE = re.compile(
    r"\{\{c[1-9][0-9]*\}\}\s*(?:%|percent|per\s+cent|pct|percentage\s+points?|points?|pts|bps|basis\s+points?|"
    r"INR|USD|EUR|GBP|rupees?|dollars?|euros?|pounds?|Rs\.?)(?![A-Za-z])",
    re.IGNORECASE,
)
_UNIT_BEFORE_RE = re.compile(r"(?:[₹$€£¥]|\bRs\.?|\bINR|\bUSD|\bEUR|\bGBP)\s*\{\{c[1-9][0-9]*\}\}", re.IGNORECASE)

UP_WORDS = frozenset({
    "rose", "rise", "rises", "risen", "gained", "gain", "gains", "added", "adds", "climbed", "climbs", "jumped",
    "jumps", "surged", "surges", "up", "advanced", "advances", "rallied", "rallies", "firmed", "firms",
})  # fmt: skip
DOWN_WORDS = frozenset({
    "fell", "fall", "falls", "fallen", "lost", "lose", "loses", "slipped", "slips", "dropped", "drops", "declined",
    "declines", "slumped", "slumps", "tumbled", "tumbles", "eased", "eases", "down", "retreated", "retreats",
    "shed", "sheds", "sank", "sinks",
})  # fmt: skip
_DIRECTED_RE = re.compile(r"\b([A-Za-z]+)\s+(?:by\s+)?\{\{(c[1-9][0-9]*)\}\}")
_WORD_BEFORE_RE = re.compile(r"\b([A-Za-z]+)\s+(?:by\s+)?$")


class NumeralError(ValueError):
    """The prose holds a figure outside a reference (the message says where and why)."""


def _snippet(text: str, start: int, end: int) -> str:
    return text[max(0, start - 15) : end + 15].strip()


def _numeric_char(text: str) -> re.Match[str] | None:
    for i, ch in enumerate(text):
        if ch.isdigit() or unicodedata.numeric(ch, None) is not None:
            return re.compile(re.escape(ch)).search(text, i)
    return None


def assert_figure_free(text: str) -> str:
    """``text`` unchanged, or :class:`NumeralError` naming the first figure found outside a
    reference (see the module docstring for what counts as a figure)."""
    doubled = _UNIT_AFTER_RE.search(text) or _UNIT_BEFORE_RE.search(text)
    if doubled:
        raise NumeralError(
            f"doubled unit in “{_snippet(text, doubled.start(), doubled.end())}”: a claim reference carries "
            "its own unit; write {{cN}} alone"
        )
    bare = ANY_REF_RE.sub(" ", text)
    digit = _numeric_char(bare)
    if digit:
        raise NumeralError(
            f"bare numeral “{digit.group(0)}” in “{_snippet(bare, digit.start(), digit.end())}”: "
            "every figure must be a {{cN}} reference to a claim"
        )
    for pattern, what in ((_SIGNS_RE, "figure sign"), (_WORD_RE, "number word"), (_ONE_RE, "number word")):
        found = pattern.search(bare)
        if found:
            raise NumeralError(
                f"{what} “{found.group(0)}” in “{_snippet(bare, found.start(), found.end())}”: every figure "
                "must be a {{cN}} reference to a claim"
            )
    return text


# The earlier name of the rule; it was always meant to cover every form of a figure.
assert_numeral_free = assert_figure_free


def claim_references(text: str) -> list[str]:
    return CLAIM_RE.findall(text)


def ticker_references(text: str) -> list[str]:
    return TICKER_RE.findall(text)


def directional_references(text: str) -> list[tuple[str, int]]:
    """``(claim id, +1 | -1)`` for each claim cited right after a direction word."""
    out = []
    for match in _DIRECTED_RE.finditer(text):
        word = match.group(1).lower()
        if word in UP_WORDS:
            out.append((match.group(2), 1))
        elif word in DOWN_WORDS:
            out.append((match.group(2), -1))
    return out


def is_directed(text: str, start: int) -> bool:
    """True when the reference starting at ``start`` follows a direction word (rendered as a magnitude)."""
    found = _WORD_BEFORE_RE.search(text[max(0, start - 40) : start])
    return found is not None and found.group(1).lower() in UP_WORDS | DOWN_WORDS
