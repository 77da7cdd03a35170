"""The figure a sentence gives the metric and period asked (its anchor), and the sentences of a
document that give the metric a level in the document's own words. Shared by the answers that read
one level (compose_docs) and those that read several (each meeting's, each side of a change)."""

from __future__ import annotations

import re
from typing import Any

from research.agent.evidence.levels import DATED_BY, Figure, is_base, level_figures, of_fiscal_year_asked
from research.agent.evidence.select import FIRST_PERSON, Candidate, candidates
from research.agent.question.periods import find_periods
from research.agent.question.understand import Understanding


def anchor_figure(sentence: str, u: Understanding) -> tuple[str, str] | None:
    """The number and unit of :func:`anchor`."""
    found = anchor(sentence, u)
    return (found[1], found[2]) if found else None


def anchor(sentence: str, u: Understanding) -> Figure | None:
    """The figure the question asks for: the one the sentence dates by the target period ("4.8
    per cent in April 2024"), else the first after the target's mention, else after the metric's
    name, else the sentence's first."""
    # Not a weight, a bound, a share, a ratio to GDP of a rate of change or another metric's figure.
    found = level_figures(sentence, u.metrics)
    percent = not u.metrics or u.metrics[0].percent
    levels = [f for f in found if "point" not in f[2] and f[2] not in ("bps", "basis points")]
    preferred = [f for f in levels if (f[2] in ("per cent", "%", "percent")) == percent]
    figures = preferred or levels or found  # a level is a per-cent figure (or an amount), not a move
    years = {t.label for t in u.targets if t.kind == "fy"}
    figures = [f for f in figures if of_fiscal_year_asked(sentence, f, years)]
    if not figures:
        return None
    anchors: list[int] = []
    for target in u.targets:
        anchors += [p.at for p in find_periods(sentence) if p.label == target.label]
        q = re.search(rf"\b{target.label.split()[0]}\b", sentence) if target.kind in ("quarter", "half") else None
        anchors += [q.start()] if q else []  # "… dropping to 7.8 per cent in Q4"
    # A figure the sentence dates by the target itself ("… to 4.8 per cent in April 2024") is it.
    for anchor in anchors:
        dated = [f for f in figures if DATED_BY.fullmatch(sentence[f[0] + len(f[1]) : anchor])]
        if dated:
            return dated[-1]
    for metric in u.metrics:
        for term in metric.terms:
            at = sentence.lower().find(term)
            if at >= 0:
                anchors.append(at)
                break
    # Else the first after the metric's name that is not what it is compared with ("… compared to
    # about 40 per cent a year ago", "from 5.1 per cent … to 4.8 per cent").
    figures = [f for f in figures if not is_base(sentence, f)]
    for anchor in sorted(anchors, reverse=True):
        after = [f for f in figures if f[0] > anchor]
        if after:
            return after[0]
    return figures[0] if figures else None


def own_levels(question: str, u: Understanding, passages: list[dict[str, Any]]) -> list[tuple[Candidate, Figure]]:
    """The sentences of ``passages`` that give the metric asked a level in the document's own words
    (not a member's "I"), each with that figure."""
    return [
        (cand, found)
        for cand in candidates(question, u, passages)
        if cand.metric_ok and not FIRST_PERSON.search(cand.sentence) and (found := anchor(cand.sentence, u)) is not None
    ]
