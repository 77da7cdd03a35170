"""Extractive helpers: the sentence of a passage that answers a question, and its figures."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from research.agent.text.instructions import is_instruction
from research.packs import registry

_SENTENCE_SPLIT = re.compile(r"(?<=[.;:])\s+(?=[A-Z•(])|\s*•\s*")
FIGURE_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(per\s*cent|%|basis points|bps)", re.IGNORECASE)
WORD = re.compile(r"[a-z][a-z\-]+")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "and",
        "or",
        "by",
        "with",
        "what",
        "which",
        "who",
        "is",
        "was",
        "were",
        "are",
        "be",
        "been",
        "did",
        "does",
        "do",
        "decided",
        "decide",
        "how",
        "much",
        "many",
        "from",
        "as",
        "that",
        "this",
        "it",
        "its",
        "their",
        "there",
        "policy",
        "meeting",
        *registry.QUIET_WORDS,  # the names of an institution and its documents: in every passage
        "rate",
        "per",
        "cent",
        "percent",
        "previous",
        "last",
        "about",
        "tell",
        "me",
        "please",
        "give",
        "show",
    ]
)


# The words right before a figure that make it a weight in an index: "(weight: 45.9 per cent in CPI)".
WEIGHT_BEFORE = re.compile(r"\bweights?\s*(?::|of|at|is)?\s*$", re.I)


def normalise_space(text: str) -> str:
    return " ".join(text.split())


def stems(text: str) -> set[str]:
    """Every word of ``text``, cut to a 5-letter stem ("tensions" → "tensi")."""
    return {w[:5] for w in WORD.findall(text.lower())}


def keywords(question: str) -> set[str]:
    """Content words, cut to a 5-letter stem so "decide" meets "decided"."""
    return {w[:5] for w in WORD.findall(question.lower()) if w not in STOPWORDS and len(w) > 2}


_BULLET = re.compile(r"\s*•\s*")
_NUMBERED = re.compile(r"^(?:\d{1,3}|[IVX]{1,6}(?:\.\d{1,3}){1,3})\.\s+(?=\S)")


def sentences(text: str) -> list[str]:
    """The statements of ``text``: split at bullets and sentence ends, keeping "Dr. A. Name" and
    "Rs. 5" whole (the chunker's rules), with a leading paragraph number ("13. ") dropped and any
    sentence that instructs the answerer left out."""
    from research.ingest.chunking import split_sentences

    found = []
    for piece in _BULLET.split(normalise_space(text)):
        for sentence in split_sentences(piece):
            sentence = _NUMBERED.sub("", sentence).strip()
            # An instruction to the answerer states nothing, so it is never evidence (instructions.py).
            if len(sentence) > 20 and not is_instruction(sentence):
                found.append(sentence)
    return found


def best_sentence(
    question: str, passages: list[dict[str, Any]], skip: Callable[[str], object] | None = None
) -> tuple[dict[str, Any], str, float] | None:
    """(passage, sentence, keyword coverage) of the sentence that best answers ``question``;
    sentences carrying a figure are preferred when the question asks for one; those ``skip``
    is true of are passed over."""
    wanted = keywords(question) | {term for term in registry.SHORT_TERMS if term in question.lower()}
    wants_rate = "rate" in question.lower()
    wants_figure = bool(re.search(r"\b(what|how much|rate|level|projection|figure|inflation|growth)\b", question, re.I))
    best: tuple[float, int, dict[str, Any], str, float] | None = None
    for rank, passage in enumerate(passages):
        for sentence in sentences(passage.get("text", "")):
            if skip is not None and skip(sentence):
                continue
            words = stems(sentence)
            coverage = len(wanted & words) / len(wanted) if wanted else 0.0
            figure = FIGURE_RE.search(sentence)
            score = coverage + (0.3 if wants_figure and figure else 0.0) - rank * 0.05
            if wants_rate and figure and figure.group(2).lower().startswith(("basis", "bps")):
                score -= 0.2  # a rate question wants the level (per cent), not a move in basis points
            score -= 0.002 * max(0, len(sentence) - 250)  # prefer a crisp sentence to a paragraph
            if best is None or score > best[0]:
                best = (score, rank, passage, sentence, coverage)
    if best is None:
        return None
    return best[2], best[3], best[4]


def first_figure(sentence: str) -> tuple[str, str] | None:
    match = FIGURE_RE.search(sentence)
    return (match.group(1), match.group(2)) if match else None


# Scale words: the packs' beside the generic ones, longest first so that a
# two-word scale is read whole.
_SCALES = sorted({"billion", "million", "trillion", *registry.MONEY_SCALES}, key=lambda w: (-len(w), w))
AMOUNT_RE = re.compile(
    rf"(₹|Rs\.?\s?|US\$\s?|USD\s|\$)\s?(\d[\d,]*(?:\.\d+)?)\s*({'|'.join(_SCALES)})?",
    re.IGNORECASE,
)
# A sign written before a figure: "(-)7.5 per cent", "(-) 6.6 per cent", "(+)0.1 per cent", "-9.5 per cent",
# "−4.5%" (never the dash of a range, "6.8-7.1", which follows a digit). Thousands are grouped with
# commas: "1,234.5 per cent" is one figure, not "234.5".
_SIGN = r"(?:\([-−+]\)\s?|[-−](?=\d))"
_NUMBER = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
PP_RE = re.compile(
    rf"(?<![\w.])({_SIGN}?{_NUMBER})\s*(percentage points?|per\s*cent|%|basis points|bps)", re.IGNORECASE
)


def figures_in(text: str) -> list[tuple[int, str, str]]:
    """``(position, number, unit)`` of every figure with a unit in ``text``: per cent, percentage
    points, basis points, and currency amounts ("₹14.1 lakh crore" → ("14.1", "₹ lakh crore"))."""
    found = [(m.start(), m.group(1), " ".join(m.group(2).lower().split())) for m in PP_RE.finditer(text)]
    for m in AMOUNT_RE.finditer(text):
        currency = "₹" if m.group(1).strip().lower().startswith(("₹", "rs")) else m.group(1).strip()
        scale = (m.group(3) or "").lower()
        found.append((m.start(), m.group(2), f"{currency} {scale}".strip()))
    return sorted(found)


def plain_number(number: str) -> str:
    """A figure as written ("(-) 6.6", "−4.5", "(+)0.1", "1,234.5") as a plain number ("-6.6", "-4.5",
    "0.1", "1234.5")."""
    digits = re.sub(r"[^\d.]", "", number)
    return f"-{digits}" if re.match(r"\(?[-−]", number) else digits


def display_figure(number: str, unit: str) -> str:
    """How a figure reads: "6.50 per cent", "25 basis points", "₹14.1 lakh crore", "−7.5 per cent"."""
    if re.match(r"\(?[-−+]", number):  # a sign written "(-)", "(+)" or "-" reads "−7.5", "+0.1"
        sign = "+" if "+" in number[:3] else "−"
        number = sign + re.sub(r"^\(?[-−+]\)?\s*", "", number)
    if unit.startswith(("₹", "$", "US$", "USD")):
        currency, _, scale = unit.partition(" ")
        return f"{currency}{number}" + (f" {scale}" if scale else "")
    return f"{number} {'per cent' if unit in ('%', 'percent') else unit}".rstrip()
