"""A rate decision read from one sentence, and the decisions of each meeting of a year.

* "…the policy repo rate was cut by 25 basis points to 6.25 per cent." — the verb, the size of the
  move and the new level all parsed from the quoted sentence.
* "What was the repo rate in 2019?": each meeting of the year the library holds, in date order, from
  its own resolution.

Every figure is a ``[[cN]]`` claim on a quoted passage. Pure: no database.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from typing import Any

from research.agent.compose.composer import Composer, document_name
from research.agent.evidence.moves import verb_of
from research.agent.evidence.select import CUMULATIVE_MOVE, FIRST_PERSON, Candidate, about_other_meeting, candidates
from research.agent.question.lexicon import Metric
from research.agent.question.periods import Period
from research.agent.question.understand import Understanding, short_period, year_asked
from research.packs import registry

_NUM = r"(\d+(?:\.\d+)?)"
UNCHANGED_RE = re.compile(rf"\bunchanged at {_NUM}\s*(per cent|%)", re.I)
_VERB = (
    r"(?P<verb>reduc\w*|cut\w*|lower\w*|increas\w*|rais\w*|hik\w*|moderat\w*|declin\w*|rose|fell|eased|grew|"
    r"decelerat\w*|accelerat\w*)"
)
# "reduce ... by 25 basis points from 6.5 per cent to 6.25 per cent",
# "moderated by 1.3 percentage points to 5.4 per cent"
MOVED_RE = re.compile(
    rf"\b{_VERB}\b[^;•]{{0,80}}?\bby (?P<by>\d+(?:\.\d+)?)\s*(?P<unit>basis points|bps|percentage points?)"
    rf"(?:[^;•]{{0,80}}?\bto (?P<to>\d+(?:\.\d+)?)\s*(?:per cent|%))?",
    re.I,
)
# "Increase the policy repo rate ... to 5.40 per cent" (no size of the move given)
MOVED_TO_RE = re.compile(rf"\b{_VERB}\b[^;•]{{0,80}}?\bto (?P<to>\d+(?:\.\d+)?)\s*(?:per cent|%)", re.I)


def decision_line(c: Composer, cand: Candidate, metric: Metric, memo: dict[str, Any]) -> tuple[str, str] | None:
    """ "…the policy repo rate was cut by 25 basis points to 6.25 per cent." from one sentence: the
    verb, the size of the move and the new level all parsed from it; with the move ("cut", "raised",
    "unchanged" or the sentence's own verb)."""
    s, p = cand.sentence, cand.passage
    if not metric.figured or FIRST_PERSON.search(s) or CUMULATIVE_MOVE.search(s) or about_other_meeting(s):
        # The stance is not cut by basis points; a member's "I vote for a cut", the moves "since May 2022"
        # or "in the last two meetings" are not this document's decision.
        return None
    m = MOVED_RE.search(s) or MOVED_TO_RE.search(s)
    if m is not None:
        groups = m.groupdict()
        level = c.quote_claim(p, groups["to"], "per cent", metric.label, **memo) if groups.get("to") else ""
        move = c.quote_claim(p, groups["by"], groups["unit"], f"change in {metric.label}") if groups.get("by") else ""
        verb = verb_of(groups["verb"])
        action = " ".join(x for x in (verb, f"by {move}" if move else "", f"to {level}" if level else "") if x)
        if verb in ("cut", "raised"):
            return f"In {document_name(p)}, the {metric.label} was {action}.", verb
        return f"In {document_name(p)}, {metric.label} {action}.", verb
    if m := UNCHANGED_RE.search(s):
        level = c.quote_claim(p, m.group(1), "per cent", metric.label, **memo)
        return f"In {document_name(p)}, the {metric.label} was kept unchanged at {level}.", "unchanged"
    return None


def level_memo(u: Understanding, cand: Candidate) -> dict[str, Any]:
    """What a level claim carries for follow-ups: the metric, the period and whether it answers."""
    return {
        "metric": u.metrics[0].key if u.metrics else "",
        "target": ", ".join(t.label for t in u.targets),
        "answers": cand.metric_ok and cand.target_ok,
        "primary": True,
    }


def each_meeting(c: Composer, u: Understanding, passages: list[dict[str, Any]]) -> bool:
    """The policy rate asked over a calendar year in which the library holds several meetings ("What
    was the policy rate in 2019?", when the rate moved at each): each meeting's decision, in date
    order, from that meeting's own sentence, not the first meeting's alone. A meeting whose decision
    is not among the passages sends the answer to a reviewer."""
    year = year_asked(u, c.question)
    if year is None or year.kind != "year" or not u.metrics or u.metrics[0].key != registry.POLICY_RATE:
        return False
    meetings = meetings_of_year(passages, year)
    if len(meetings) < 2:
        return False
    decided = dataclasses.replace(u, aspects={"change"})
    chosen = []
    for document_id in meetings:
        own = candidates(c.question, decided, [p for p in passages if p.get("document_id") == document_id])
        # The resolution's decision, which states the level moved to, before a member's vote on it.
        stated = [cand for cand in own if decision_line(Composer(c.question), cand, u.metrics[0], {})]
        if not stated:
            c.outcome = "escalate"  # a meeting of the year without its decision: not the year's answer
            return False
        chosen.append(max(stated, key=lambda cand: (_states_level(cand.sentence), cand.score)))
    lines = [decision_line(c, cand, u.metrics[0], level_memo(u, cand)) for cand in chosen]
    said = " ".join(line[0] for line in lines if line)
    c.parts.append(f"At each meeting of {year.label} whose minutes the library holds: {said}")
    for cand in chosen:
        c.quote(cand.passage, cand.sentence, u.metrics[0].label, figure_claim=False)
    return True


def meetings_of_year(passages: list[dict[str, Any]], year: Period) -> list[Any]:
    """The document ids of the meetings of calendar ``year`` among ``passages``, in date order."""
    dated = {p["document_id"]: str(p.get("doc_date") or "") for p in passages if _of_a_meeting(p)}
    return sorted((d for d in dated if dated[d][:4] == str(year.start.year)), key=lambda d: dated[d])


def _of_a_meeting(passage: dict[str, Any]) -> bool:
    """Whether the passage is of a meeting's document (a short period), not a year's report."""
    start, end = (str(passage.get(key) or "") for key in ("period_start", "period_end"))
    return bool(start and end) and short_period(dt.date.fromisoformat(start), dt.date.fromisoformat(end))


def _states_level(sentence: str) -> bool:
    """Whether a decision sentence states the level the rate moved to or stayed at."""
    moved = MOVED_RE.search(sentence) or MOVED_TO_RE.search(sentence)
    return bool((moved and moved.groupdict().get("to")) or UNCHANGED_RE.search(sentence))
