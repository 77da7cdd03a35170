"""Answers that read several meetings or several metrics at once: the latest meeting's projection for
a fiscal year, each metric's level when a question asks two, and a rate at each meeting of a year.
Pure: no database.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from research.agent.compose.composer import Composer, document_name
from research.agent.compose.decision import level_memo, meetings_of_year
from research.agent.compose.lines import level_line
from research.agent.evidence.anchors import own_levels
from research.agent.evidence.levels import (
    Figure,
    projects_now,
)
from research.agent.evidence.select import (
    Candidate,
    about_other_meeting,
    choose,
)
from research.agent.question.lexicon import POLICY_RATES
from research.agent.question.understand import Understanding, year_asked


def latest_projection(c: Composer, u: Understanding, passages: list[dict[str, Any]]) -> bool:
    """A fiscal year's projection asked with no meeting named: the latest meeting searched for it
    (tool_nodes._projections_of_year) whose own words, not a member's, project the metric for that
    year, not whichever ranked first: an earlier member's figure for the year is not the latest
    resolution's projection."""
    searched = [p for p in passages if p.get("projection_search") and not p.get("in_statement")]
    by_date: dict[str, list[dict[str, Any]]] = {}
    for passage in searched:
        by_date.setdefault(str(passage.get("doc_date") or ""), []).append(passage)
    for date in sorted(by_date, reverse=True):
        projected = [
            cand
            for cand, found in own_levels(c.question, u, by_date[date])
            if cand.target_ok and projects_now(cand.sentence, found)
        ]
        best = max(projected, key=lambda cand: cand.score, default=None)
        line = level_line(c, best, u, level_memo(u, best)) if best is not None else None
        if best is not None and line:
            c.parts.append(line)
            c.quote(best.passage, best.sentence, "figure", figure_claim=False)
            return True
    return False


def each_meeting_level(c: Composer, u: Understanding, passages: list[dict[str, Any]]) -> bool:
    """A corridor rate asked over a calendar year: each meeting's level, in date order, from its own
    sentence, not the first meeting's alone. A meeting without one sends the answer to a reviewer."""
    year = year_asked(u, c.question)
    if year is None or year.kind != "year" or len(u.metrics) != 1 or u.metrics[0].key not in POLICY_RATES[1:]:
        return False
    meetings = meetings_of_year(passages, year)
    if len(meetings) < 2:
        return False
    undated = dataclasses.replace(u, targets=[], doc_periods=[])  # each meeting's own level, not the year's
    chosen: list[tuple[Candidate, Figure]] = []
    for document_id in meetings:
        own = [
            (cand, found)
            for cand, found in own_levels(
                c.question, undated, [p for p in passages if p.get("document_id") == document_id]
            )
            if not about_other_meeting(cand.sentence)
        ]
        if not own:
            c.outcome = "escalate"  # a meeting of the year without the rate: not the year's answer
            return False
        chosen.append(max(own, key=lambda pair: pair[0].score))
    label = u.metrics[0].label
    said = []
    for cand, found in chosen:
        ref = c.quote_claim(cand.passage, found[1], found[2], label, **level_memo(undated, cand))
        said.append(f"In {document_name(cand.passage)}, the {label} stood at {ref}.")
    c.parts.append(f"At each meeting of {year.label} whose minutes the library holds: {' '.join(said)}")
    for cand, _found in chosen:
        c.quote(cand.passage, cand.sentence, label, figure_claim=False)
    return True


def each_metric(c: Composer, u: Understanding, passages: list[dict[str, Any]]) -> bool:
    """A level asked of two or more metrics: each metric's level line from the sentence the chooser
    picks for that metric alone, so that one metric's figure is never labelled with another's name
    (a sentence naming two other rates at one level is not the third's). A metric without one sends
    the answer to a reviewer."""
    if len(u.metrics) < 2 or u.aspects != {"level"}:
        return False
    quoted: list[Candidate] = []
    for metric in u.metrics:
        one = dataclasses.replace(u, metrics=[metric])
        ev = choose(c.question, one, passages)
        cand = ev.chosen[0] if ev is not None and ev.chosen and ev.metric_found else None
        line = level_line(c, cand, one, level_memo(one, cand)) if cand is not None else None
        if cand is None or line is None:
            c.parts.append(f"[Note: I found no figure for the {metric.label} in the passages searched.]")
            c.outcome = "escalate"
            continue
        c.parts.append(line)
        quoted += [cand] if all(q.sentence != cand.sentence for q in quoted) else []
    for cand in quoted:  # each sentence once ("the MSF rate and the Bank Rate at 4.25 per cent")
        c.quote(cand.passage, cand.sentence, "figure", figure_claim=False)
    return True
