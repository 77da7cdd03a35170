"""Words for the deterministic writer: verbs that match a move's direction and size, and subjects.

Every verb placed right before a change figure is in ``briefs.contract.UP_WORDS``/``DOWN_WORDS``
(so the figure renders as a magnitude and the verifier checks the direction), and none of these
words is a number word (``briefs.contract``).
"""

from __future__ import annotations

from briefs.agent.facts import FLAT_PCT, Facts

_UP_BIG = ("jumped", "surged")
_UP = ("rose", "gained", "climbed", "advanced")
_UP_SMALL = ("edged up", "added")
_DOWN_BIG = ("slumped", "tumbled")
_DOWN = ("fell", "dropped", "declined", "lost")
_DOWN_SMALL = ("slipped", "eased", "edged down")


def is_flat(change: float | None) -> bool:
    return change is None or abs(change) < FLAT_PCT


def move_verb(change: float, facts: Facts, slot: str = "day") -> str:
    """A past-tense verb for a change (in %): its direction and size pick the set, the ticker the word."""
    size = abs(change)
    options: tuple[str, ...]
    if change > 0:
        options = _UP_BIG if size >= 3 else _UP if size >= 1 else _UP_SMALL
    else:
        options = _DOWN_BIG if size >= 3 else _DOWN if size >= 1 else _DOWN_SMALL
    return options[facts.variant(slot, len(options))]


def move(facts: Facts, metric: str = "change_1d_pct", slot: str = "day") -> str:
    """``rose {{c3}}`` / ``was little changed at {{c3}}`` for a change claim."""
    value = facts.values[metric]
    if is_flat(value):
        return f"was little changed at {facts.ref(metric)}"
    return f"{move_verb(value, facts, slot)} {facts.ref(metric)}"


def subject(facts: Facts, *, capital: bool = True) -> str:
    """How a section refers to its instrument: the index, the fund, the stock or its shares."""
    if facts.kind == "index":
        word = "the index"
    elif facts.kind == "etf":
        word = "the fund"
    else:
        word = ("the stock", "the shares")[facts.variant("subject", 2)]
    return word[0].upper() + word[1:] if capital else word


def pronoun(facts: Facts) -> str:
    return "they" if plural(facts) else "it"


def plural(facts: Facts) -> bool:
    return subject(facts, capital=False) == "the shares"


def was(facts: Facts) -> str:
    return "were" if plural(facts) else "was"


def kind_noun(facts: Facts) -> str:
    return {"index": "an index", "etf": "a fund"}.get(facts.kind, "a stock")


def name(facts: Facts) -> str:
    """A ticker reference: rendered as the instrument's name by code."""
    return "{{t:" + facts.ticker + "}}"


def join_clauses(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]
