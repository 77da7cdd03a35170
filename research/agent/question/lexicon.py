"""The words of financial questions: which metric a question asks about, and which aspects of it.

A metric is a named quantity with the phrases that name it in documents and the phrases that name
a *different* quantity it is easily confused with (a rate is not the rate of another instrument whose
name contains it). The metrics come from the installed corpus packs (research/packs); a question
naming none falls back to its own content words. Pure data and lookups.
"""

from __future__ import annotations

import functools
import re

from research.packs import registry
from research.packs.base import Metric

METRICS: tuple[Metric, ...] = registry.METRICS

ASPECTS: dict[str, re.Pattern[str]] = {
    "change": re.compile(
        r"\b(chang\w*|cut|cuts|hik\w*|rais\w*|increas\w*|reduc\w*|lower\w*|by how much|how much did|mov\w*|"
        r"decid\w*|decision|did the \w+ do)\b",
        re.I,
    ),
    "level": re.compile(
        r"\b(level|at what|to what|new rate|stand|stood|projection|projected|project|forecast|estimate\w*|"
        r"how much (?:was|is|were|are)|decid\w*|decision|average\w*|pegged|reach\w*|set at)\b"
        r"|\bwhat\b[^?]*\b(rate|rates|level|growth|inflation|ratio|size|borrowings?|reserves?|surplus|deficit|"
        r"figure|return|price)\b",
        re.I,
    ),
    "who": re.compile(r"\b(who|whom|which members?|names?|dissent\w*|voted? (?:for|against)|members? voted)\b", re.I),
    "count": re.compile(r"\b(how many|vote split|split|tally|margin|majority|unanimous\w*|votes?|voting)\b", re.I),
    "why": re.compile(r"\b(why|reasons?|rationale|because|justif\w+|what drove|motivat\w+|cited)\b", re.I),
}


# A question after the members who voted against the resolution ("dissented" may be on the stance).
ASKS_AGAINST = re.compile(r"\b(?:voted? against|against (?:it|the)|opposed?)\b", re.I)


# The policy rate and the corridor's rates around it: each meeting of a committee sets them all.
POLICY_RATES = registry.POLICY_RATES


def metrics_asked(question: str) -> list[Metric]:
    """The metrics ``question`` asks about, most specific first ("reverse repo" wins over "repo")."""
    q = question.lower()
    found: list[Metric] = []
    for metric in METRICS:
        phrases = metric.asked or metric.terms
        # "the balance sheet size as a per cent of GDP" measures the balance sheet by GDP: GDP is not asked.
        excluded = sorted(metric.excludes, key=len, reverse=True)  # "gva growth" before "gva"
        named = functools.reduce(lambda text, ex: text.replace(ex, " "), excluded, q)
        if any(re.search(rf"\b{re.escape(p)}(?:s|es)?\b", named) for p in phrases):
            if any(m.key != metric.key and _shadows(m, metric, q) for m in found):
                continue
            found.append(metric)
    return found


def _shadows(kept: Metric, candidate: Metric, question: str) -> bool:
    """A metric already found that makes ``candidate`` a false hit (``reverse repo`` contains ``repo``)."""
    return any(ex in question and ex in " ".join(kept.terms) for ex in candidate.excludes)


_HOW_MANY_POINTS = re.compile(r"\bhow many (?:basis |percentage )?points\b|\bhow many bps\b", re.I)


def aspects_asked(question: str) -> set[str]:
    """Which aspects the question asks: change, level, who, count, why (``level`` when none)."""
    found = {name for name, rx in ASPECTS.items() if rx.search(question)}
    if _HOW_MANY_POINTS.search(question) and not re.search(r"\bvot|\bmembers?\b", question, re.I):
        found = (found - {"count"}) | {"change"}  # "by how many basis points": the size of a move, not a count
    if "count" in found and re.search(r"\bvot", question, re.I) and not re.search(r"how many", question, re.I):
        found.add("who")  # "how did the members vote" wants the names and the split
    if found & {"who", "count"} and not re.search(r"\b(decid\w*|decision|level|at what)\b", question, re.I):
        # A vote question: "the repo rate hike" names the resolution, not a figure (unless a clause of
        # its own asks the level).
        found -= {"change"} if _level_then_vote(question) else {"level", "change"}
    return found or {"level"}


def _level_then_vote(question: str) -> bool:
    """ "What was the repo rate after the August 2019 meeting and how many members voted for 35 basis
    points?": a level asked in a clause of its own, before the vote's."""
    first, joined, _ = question.partition(" and ")
    return (
        bool(joined)
        and bool(ASPECTS["level"].search(first))
        and not (ASPECTS["who"].search(first) or ASPECTS["count"].search(first))
    )


def names_metric(text: str, metric: Metric) -> bool:
    """Whether ``text`` is about ``metric``: it names it, beyond the phrases of what it excludes."""
    lowered = text.lower()
    for ex in metric.excludes:
        lowered = lowered.replace(ex, " ")
    return any(re.search(rf"\b{re.escape(t)}", lowered) for t in metric.terms)


def _phrase(text: str) -> re.Pattern[str]:
    return re.compile(r"\b" + r"\s+".join(re.escape(word) for word in text.split()))


# Each figured metric's names, and each phrase a metric excludes (which names something else).
# With each, its first word: a phrase whose first word the text lacks is not looked for (most are not).
_NAMES = [(term.split()[0], _phrase(term), metric.key) for metric in METRICS if metric.figured for term in metric.terms]
_EXCLUDED = [(ex.split()[0], _phrase(ex), metric.key) for metric in METRICS for ex in metric.excludes]
_ASIDE = re.compile(r"\([^()]*\)")


def _named_spans(text: str) -> list[tuple[int, int, str]]:
    """Where ``text`` (lower case) names a metric: (start, end, its key). A name inside a longer one
    ("inflation" in "core inflation") or overlapping a phrase the metric excludes ("CPI" in "CPI
    excluding food and fuel", "repo rate" in "reverse repo rate") is not its own; the excluded phrase
    names something else ("not:cpi"), unless it is another metric's name ("core inflation")."""
    spans = [(m.start(), m.end(), key) for word, rx, key in _NAMES if word in text for m in rx.finditer(text)]
    excluded = [(m.start(), m.end(), key) for word, rx, key in _EXCLUDED if word in text for m in rx.finditer(text)]
    named = [
        (a, b, key)
        for a, b, key in spans
        if not any(x <= a and b <= y and (x, y) != (a, b) for x, y, _ in spans)
        and not any(x < b and a < y for x, y, other in excluded if other == key)
    ]
    others = [(a, b, f"not:{key}") for a, b, key in excluded if not any(x <= a and b <= y for x, y, _ in named)]
    return named + others


# Between two names listed together: "the marginal standing facility (MSF) rate and the Bank Rate at
# 6.75 per cent" gives both one figure.
_LISTED = re.compile(r"^[^\d;.]{0,30}?(?:,|\band|\bor)\s+(?:the\s+)?$")


def _blank_asides(text: str) -> str:
    return _ASIDE.sub(lambda m: " " * len(m.group()), text.lower())


def _by_end(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    return sorted(spans, key=lambda s: (s[1], s[1] - s[0]))


@functools.lru_cache(maxsize=4096)
def _sentence_spans(text: str) -> tuple[str, list[tuple[int, int, str]]]:
    """The sentence lower-cased with its asides blanked, and its metric names by end (one pass per
    sentence: the evidence chooser asks of every figure of every candidate sentence)."""
    lowered = _blank_asides(text)
    return lowered, _by_end(_named_spans(lowered))


def owners_before(text: str, at: int) -> list[str]:
    """The keys of the metrics whose figure one at offset ``at`` of ``text`` is: the metric named
    nearest before it (in "CPI core (CPI excluding food and fuel) disinflation took it down to 3.4 per
    cent", core inflation), with those listed with it ("the MSF rate and the Bank Rate at 6.75 per
    cent"); "not:cpi" for a phrase CPI excludes ("services inflation"). An aside in brackets ("Core
    (CPI excluding food and fuel) inflation") is passed over, unless the figure is inside it."""
    prefix = text[:at]
    if prefix.count("(") > prefix.count(")"):  # inside an aside: the words before it, as they stand
        lowered = _blank_asides(prefix)
        spans = _by_end(_named_spans(lowered))
    else:  # names do not run across a figure, so the sentence's names ending before it are the prefix's
        lowered, named = _sentence_spans(text)
        spans = [s for s in named if s[1] <= at]
    if not spans:
        return []
    owners = [spans[-1]]
    for span in reversed(spans[:-1]):
        if span[1] > owners[-1][0]:
            continue  # the same words named twice ("reverse repo": a name and what "repo" excludes)
        if not _LISTED.match(lowered[span[1] : owners[-1][0]]):
            break
        owners.append(span)
    return [key for _, _, key in owners]
