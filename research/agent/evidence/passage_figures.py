"""The figure a text question asks for, read from the passage sentence that best matches it.

For a question naming no known metric ("How many warehouses did … operate?", "What pre-tax charge
did … take for downsizing its charter shipping activities?"), the answer is the figure of the unit
the question asks for — a count for "how many", an amount for "how much" or a charge, a repurchase,
a dividend, a per-cent figure for "what share" — in the sentence that carries most of the question's
*distinctive* words (weighted by how rare each is among the retrieved sentences, so the company's
name and "quarter" count for little and "warehouses" or "charter" for much), nearest to those words.

The figure stays a quoted figure of a cited passage: the caller mints it with ``quote_claim``, which
the verifier re-reads in the passage. Pure: passages in, choices out.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from research.agent.evidence.select import Candidate
from research.agent.question.lexicon import ASPECTS
from research.agent.text.sentences import AMOUNT_RE, PP_RE, STOPWORDS, keywords

_WORD = re.compile(r"[a-z][a-z\-]+")
_US = re.compile(r"\bu\.s\.(?![a-z])")


def _lower(text: str) -> str:
    """``text`` in lower case with "U.S." as the word "usa" (same length, so offsets hold): a
    region the question names counts like any other word ("U.S. increased 10.3%" against
    "global comparable sales growth of 11.7%"); two letters alone are no word."""
    return _US.sub("usa ", text.lower())


# A wh-phrase and what it names, up to the verb: "what pre-tax charge| did", "how many jobs| did";
# after "what was" the subject up to its preposition: "what was| Adobe's total Digital Media ARR| at".
_ASK = re.compile(
    r"\b(how many|how much|what|which)\b(?P<phrase>[^?,;]*?)"
    r"(?=\b(?:did|does|do|was|were|is|are|has|have|had|will|would|could|can|remained?)\b|[?,;]|$)",
    re.I,
)
_AUX = r"(?:was|were|is|are|has|have|had)"
_SUBJECT = re.compile(
    rf"^\s*{_AUX}\s+(?P<phrase>[^?,;()]*?)(?=\b(?:in|for|at|during|on|of|by|from|as|with|after|before|under)\b|[?,;()]|$)",
    re.I,
)
_POSSESSIVE = re.compile(r"\S+['’]s\b")
_PERCENT_ASK = re.compile(r"\b(share|percentage|proportion|per ?cent|percent|rate|margin)\b", re.I)
# Comparable (same-store) sales are a growth measure, reported as a per cent change: "how much did
# U.S. comparable sales increase" asks a per cent, though "how much" alone asks an amount.
_GROWTH_MEASURE = re.compile(r"\b(?:comparable(?: store)?|same[- ]store|comp) sales\b", re.I)
_MONEY_WORDS = re.compile(
    r"\b(charges?|repurchas\w*|buybacks?|dividends?|expenses?|costs?|amount|authori[sz]ation|authority|"
    r"impairments?|spend\w*|paid|pay|cash|guidance|forecast|arr|revenues?|sales|income|proceeds|debt|eps|"
    r"per share)\b",
    re.I,
)
VOTE_RE = re.compile(r"\b(vot\w*|members?|unanimous\w*|dissent\w*)\b", re.I)
# A bare count: not part of a decimal, an amount, a date or a per-cent figure; years are left out.
_COUNT_RE = re.compile(r"(?<![\w.,$€£₹/])(\d{1,3}(?:,\d{3})+|\d+)(?![\w.,/]?\d)(?!\s*(?:%|per\s*cent|percent))")
_MONTHS = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*$", re.I)
# A "what …" figure has most of the words naming what is asked within this many characters.
NEAR_CHARS = 60
_UNIT_WORDS = frozenset({"share", "perce", "propo", "amoun", "figur", "numbe"})
_COMPARED = re.compile(r"(?:\b(?:compared (?:to|with)|versus|vs\.?)\b[^.;]{0,30}|\bfrom\s+)$", re.I)
_PER_SHARE = re.compile(r"^\s*(?:per|a|for each)\s+(?:\w+\s+)?share\b", re.I)


@dataclass(frozen=True)
class Ask:
    """One figure the question asks for: its unit (count, money, percent) and the stems naming it."""

    unit: str
    stems: frozenset[str]
    near: bool = False  # the figure must sit by a word naming what is asked ("what … charge")

    @property
    def per_share(self) -> bool:
        """An amount per share is asked ("diluted EPS", "dividend per share")."""
        return self.unit == "money" and bool(self.stems & {"eps", "share"})


def _stems(text: str) -> frozenset[str]:
    return frozenset(w[:5] for w in _WORD.findall(_lower(text)) if w not in STOPWORDS and len(w) > 2)


def _clause(question: str, ask: re.Match[str]) -> str:
    """The rest of the clause an ask opens: "how much [did McDonald's U.S. comparable sales increase]"."""
    return re.split(r"[?,;]", question[ask.end() :], maxsplit=1)[0]


def asks_of(question: str) -> list[Ask]:
    """The figures ``question`` asks for, in its order: "How many jobs …, and what share of its
    workforce …?" asks a count (jobs) and a per cent (share of the workforce). A "why" asks none."""
    asks: list[Ask] = []
    if ASPECTS["why"].search(question):
        return asks
    for m in _ASK.finditer(question):
        wh, phrase = m.group(1).lower(), m.group("phrase")
        subject = _SUBJECT.match(question[m.end() :]) if not phrase.strip() and wh in ("what", "which") else None
        phrase = _POSSESSIVE.sub(" ", subject.group("phrase") if subject else phrase)
        if wh == "how many":
            unit = "count"
        elif _PERCENT_ASK.search(phrase) or (wh == "how much" and _GROWTH_MEASURE.search(_clause(question, m))):
            unit = "percent"
        elif wh == "how much" or _MONEY_WORDS.search(phrase):
            unit = "money"
        else:
            continue
        if unit not in (a.unit for a in asks):
            asks.append(Ask(unit, _stems(phrase), near=wh in ("what", "which")))
    return asks


def figures_of(sentence: str, unit: str) -> list[tuple[int, int, str, str]]:
    """``(start, end, number, unit)`` of each figure of ``unit`` in ``sentence``."""
    if unit == "percent":
        return [
            (m.start(), m.end(), m.group(1), m.group(2).lower())
            for m in PP_RE.finditer(sentence)
            if "point" not in m.group(2).lower() and m.group(2).lower() not in ("bps", "basis points")
        ]
    if unit == "money":
        found = []
        for m in AMOUNT_RE.finditer(sentence):
            scale = (m.group(3) or "").lower() or ("per share" if _PER_SHARE.match(sentence[m.end() :]) else "")
            found.append((m.start(), m.end(), m.group(2), f"{m.group(1).strip()} {scale}".strip()))  # "$0.25 per share"
        return found
    counts = []
    for m in _COUNT_RE.finditer(sentence):
        value = int(m.group(1).replace(",", ""))
        if 1900 <= value <= 2100 or _MONTHS.search(sentence[: m.start()]):
            continue  # a year or a date, not a count
        after = _WORD.match(sentence[m.end() :].lstrip().lower())
        noun = after.group(0) if after and after.group(0) not in STOPWORDS else ""
        if noun in ("million", "billion", "trillion", "thousand", "percent", "per"):
            continue
        counts.append((m.start(), m.end(), m.group(1), noun))
    return counts


def _weights(question: str, sentences: list[str]) -> dict[str, float]:
    """Each question stem's weight: the rarer among the sentences, the more it tells."""
    stems = keywords(_lower(question))
    bags = [{w[:5] for w in _WORD.findall(_lower(s))} for s in sentences]
    n = len(bags) or 1
    return {s: math.log((n + 1) / (0.5 + sum(s in b for b in bags))) for s in stems}


def _closeness(sentence: str, start: int, end: int, weights: dict[str, float], ask: Ask) -> float:
    """How near a figure sits to the question's words: each word's weight over its distance, words
    before the figure counting double ("repurchased $250 million", "a charge of $93 million")."""
    score = 0.0
    for m in _WORD.finditer(_lower(sentence)):
        stem = m.group(0)[:5]
        if stem not in weights:
            continue
        gap = m.start() - end if m.start() >= end else max(0, start - m.end()) * 0.5
        score += weights[stem] * (3.0 if stem in ask.stems else 1.0) / (1.0 + gap / 12.0)
    if ask.unit == "money" and not ask.per_share and _restated_per_share(sentence, start, end):
        score *= 0.3  # "$93 million pre-tax, $0.15 per diluted share": the amount, not its per-share echo
    if _COMPARED.search(sentence[max(0, start - 40) : start]):
        score *= 0.5  # "… compared to $1,324 million, $2.98 per diluted share, last year": the base, not the figure
    return score


def _restated_per_share(sentence: str, start: int, end: int) -> bool:
    """A per-share figure right after an amount in millions or billions restates that amount."""
    before = sentence[max(0, start - 40) : start]
    return bool(_PER_SHARE.match(sentence[end:])) and bool(re.search(r"(?:million|billion)", before, re.I))


def _nearness(sentence: str, figure: tuple[int, int, str, str], ask: Ask) -> float:
    """1 when a word naming what is asked touches the figure, falling with the distance (0 without one)."""
    start, end = figure[0], figure[1]
    gaps = [
        max(m.start() - end, start - m.end(), 0)
        for m in _WORD.finditer(_lower(sentence))
        if m.group(0)[:5] in ask.stems
    ]
    return 1.0 / (1.0 + min(gaps) / 12.0) if gaps else 0.0


def _named_nearby(sentence: str, figure: tuple[int, int, str, str], ask: Ask) -> bool:
    """Whether at least two thirds of the words naming what is asked ("pre-tax charge", "total
    Digital Media ARR") sit within ``NEAR_CHARS`` of the figure: "operating margin of 22.2%" does
    not answer "what was the gross margin"."""
    wanted = ask.stems - _UNIT_WORDS
    if not wanted:
        return True
    window = _lower(sentence[max(0, figure[0] - NEAR_CHARS) : figure[1] + NEAR_CHARS])
    found = {w[:5] for w in _WORD.findall(window)}
    found = (found | ({"eps"} if "share" in found else set())) & wanted  # "per diluted share" names EPS
    return len(found) * 3 >= len(wanted) * 2


def _best_figure(sentence: str, weights: dict[str, float], ask: Ask) -> tuple[int, int, str, str] | None:
    found = figures_of(sentence, ask.unit)
    if ask.per_share:
        found = [f for f in found if _PER_SHARE.match(sentence[f[1] :])]
    if not found:
        return None
    return max(found, key=lambda f: _closeness(sentence, f[0], f[1], weights, ask))


def _sentence_score(cand: Candidate, figure: tuple[int, int, str, str], weights: dict[str, float], ask: Ask) -> float:
    """The share of the question's weighted words the sentence carries, and how near its figure
    sits to the words naming what is asked; higher-ranked, crisper sentences win ties."""
    words = {w[:5] for w in _WORD.findall(_lower(cand.sentence))}
    total = sum(w * (2.0 if s in ask.stems else 1.0) for s, w in weights.items()) or 1.0
    shared = sum(w * (2.0 if s in ask.stems else 1.0) for s, w in weights.items() if s in words)
    near = 0.5 * _nearness(cand.sentence, figure, ask)
    return shared / total + near - 0.01 * cand.rank - 0.001 * max(0, len(cand.sentence) - 300)


def pick_figures(question: str, cands: list[Candidate]) -> list[tuple[Candidate, str, str]]:
    """For each figure the question asks, ``(sentence, number, unit)``: the sentence of one document
    best matching the question's distinctive words that has a figure of that unit, and that figure.
    Empty when the question asks no figure of a known unit, or is about a vote."""
    asks = asks_of(question)
    if not asks or VOTE_RE.search(question) or not cands:
        return []
    weights = _weights(question, [c.sentence for c in cands])
    picked: list[tuple[Candidate, str, str]] = []
    for ask in asks:
        pool = [c for c in cands if not picked or c.document_id == picked[0][0].document_id]
        scored = [(c, _best_figure(c.sentence, weights, ask)) for c in pool]
        usable = [(c, f) for c, f in scored if f is not None and (not ask.near or _named_nearby(c.sentence, f, ask))]
        if not usable and picked:
            usable = _next_sentence(cands, picked[0][0], weights, ask)
        if not usable:
            continue
        cand, figure = max(usable, key=lambda x: _sentence_score(x[0], x[1], weights, ask))
        picked.append((cand, figure[2], figure[3]))
    return picked


def _next_sentence(
    cands: list[Candidate], first: Candidate, weights: dict[str, float], ask: Ask
) -> list[tuple[Candidate, tuple[int, int, str, str]]]:
    """The second part of a two-part question is often stated by the sentence right after the one
    answering the first ("… 500 employees … . This number represents about 4% of …")."""
    at = cands.index(first)
    following = cands[at + 1] if at + 1 < len(cands) else None
    if following is None or following.passage is not first.passage:
        return []
    figure = _best_figure(following.sentence, weights, ask)
    return [(following, figure)] if figure is not None else []
