"""A projection's revision, as the meeting's own words state it: "real GDP growth for 2019-20 is
revised downwards from 7.0 per cent in the June policy to 6.9 per cent" (August 2019, p. 5).

A member's "decline in economic growth (from 8.0% in Q1 to 5.8% in Q4)" is a move of another figure,
not the revision asked: both figures of the revision are quoted from the meeting's sentence and their
difference is computed by the calculator, in percentage points.
"""

from __future__ import annotations

import re
from typing import Any

from core.formatting import percent
from research.agent.compose.composer import Composer, document_name
from research.agent.compose.statements.cells import calc_ref
from research.agent.evidence.moves import other_move, verdict
from research.agent.evidence.select import FIRST_PERSON, candidates
from research.agent.question.lexicon import ASPECTS
from research.agent.question.periods import mentions
from research.agent.question.understand import Understanding

_NUMBER = r"\d+(?:\.\d+)?"
POINTS_UNIT = " percentage points"  # the unit of a difference of two per-cent figures
# "revised downwards from 7.0 per cent in the June policy to 6.9 per cent", "revised up from 7.0 per
# cent to 7.2 per cent": the figure before, what dates it (kept in the answer), the figure after.
REVISED = re.compile(
    rf"\brevised\s+(?:(?:downwards?|upwards?|down|up)\s+)?from\s+(?P<before>{_NUMBER})\s*per cent"
    rf"(?P<when>[^;–—]{{0,40}}?)\s+to\s+(?P<after>{_NUMBER})\s*per cent",
    re.I,
)
_ASKS_PROJECTION = re.compile(r"\b(projection|projected|project|forecast\w*|outlook|revis\w*)\b", re.I)


def asks_revision(question: str) -> bool:
    """Whether ``question`` asks how a projection moved ("By how much was the … projection revised
    down …?", "Did the MPC lower its … projection …?")."""
    moved = ASPECTS["change"].search(question) or re.search(r"\brevis\w*", question, re.I)
    return bool(_ASKS_PROJECTION.search(question) and moved)


def _revises_asked(before: str, u: Understanding) -> bool:
    """Whether the clause leading to the revision (``before`` it, from the last ";") names each
    period asked: "… GDP growth for Q1:2020-21 is projected at 7.4 per cent" later in the sentence
    does not make 2019-20's revision 2020-21's."""
    clause = before.rsplit(";", 1)[-1]
    return all(mentions(clause, t) for t in u.targets)


def points_change(c: Composer, earlier: str, later: str, label: str) -> tuple[str, float] | None:
    """``later - earlier`` of two per-cent figures as the passages write them: a calc claim shown in
    percentage points, to as many decimals as the figures (at least one)."""
    places = max(len(f.partition(".")[2]) for f in (earlier, later)) or 1

    def shown(value: float) -> str:
        return percent(value, signed=True, digits=places, unit=POINTS_UNIT)

    return calc_ref(c, f"{later} - {earlier}", label, shown)


def compose_revision(c: Composer, u: Understanding, passages: list[dict[str, Any]]) -> bool:
    """The revision of the one metric asked, for the period asked, from the first-ranked sentence of
    a document's own words (not a member's statement) that states both figures; False when the
    question asks no revision or no such sentence is among the passages."""
    if len(u.metrics) != 1 or not u.metrics[0].percent or not asks_revision(c.question):
        return False
    if len(u.doc_periods) > 1:
        return False  # "between the February and August 2019 minutes": one meeting's revision is not that
    found = [
        (cand, m)
        for cand in candidates(c.question, u, passages)
        if cand.metric_ok
        and cand.target_ok
        and not cand.passage.get("in_statement")
        and not FIRST_PERSON.search(cand.sentence)
        and (m := REVISED.search(cand.sentence)) is not None
        and _revises_asked(cand.sentence[: m.start()], u)
    ]
    if not found:
        return False
    cand, m = max(found, key=lambda pair: pair[0].score)
    before, after = m.group("before"), m.group("after")
    move = "cut" if float(after) < float(before) else "raised" if float(after) > float(before) else "unchanged"
    if other_move(c.question, move):
        return False  # "By how much was it raised?" of a projection lowered: not this answer
    p, metric = cand.passage, u.metrics[0]
    label = f"{metric.label} projection" + (f" for {', '.join(t.label for t in u.targets)}" if u.targets else "")
    memo = {"metric": metric.key, "target": ", ".join(t.label for t in u.targets), "answers": True}
    was = c.quote_claim(p, before, "per cent", f"{metric.label} (before)", **memo, primary=False)
    now = c.quote_claim(p, after, "per cent", metric.label, **memo, primary=True)
    change = points_change(c, before, after, f"revision of the {label}")
    when = " ".join(m.group("when").split())
    way = {"cut": " down", "raised": " up"}.get(move, "")
    said = f"the {label} was revised{way} from {was}{f' ({when})' if when else ''} to {now}"
    line = f"{verdict(c.question, move)}In {document_name(p)}, {said}"
    c.parts.append(f"{line}: a change of {change[0]}." if change else f"{line}.")
    c.quote(p, cand.sentence, metric.label, figure_claim=False)
    c.assessment = {"uncovered": [], "metric_found": True, "target_found": True}
    return True
