"""A projection's change between two named meetings, each read from that meeting's own words.

"How did the GDP growth projection for 2019-20 change between the February and August 2019
minutes?": February's resolution projects 7.4 per cent, August's revises it to 6.9 per cent. Each
figure is quoted from its own meeting's sentence (not a member's statement, not a sentence about
another meeting), and the later less the earlier is computed by the calculator, in percentage
points. One meeting's revision from the meeting before it (August's from June's 7.0) is not that.
"""

from __future__ import annotations

from typing import Any

from research.agent.compose.composer import Composer, document_name
from research.agent.compose.revision import points_change
from research.agent.evidence.anchors import own_levels
from research.agent.evidence.levels import projects_now
from research.agent.evidence.select import about_other_meeting
from research.agent.question.understand import Understanding, mentions_doc


def asks_change_between(u: Understanding) -> bool:
    """A change of one per-cent metric's projection for a period, between two or more named meetings."""
    one = len(u.metrics) == 1 and u.metrics[0].percent
    return one and "change" in u.aspects and len(u.doc_periods) > 1 and bool(u.targets)


def compose_projection_change(c: Composer, u: Understanding, passages: list[dict[str, Any]]) -> bool:
    """Each named meeting's own projection of the period asked, in date order, and the change from
    the first to the last; ``False`` when the question asks no such change or a meeting's own
    projection is not among the passages (the answer then goes to a reviewer, relevance)."""
    if not asks_change_between(u):
        return False
    chosen = []
    for period in sorted(u.doc_periods, key=lambda p: p.start):
        own = [p for p in passages if mentions_doc(p, period, u) and not p.get("in_statement")]
        projected = [
            (cand, found)
            for cand, found in own_levels(c.question, u, own)
            if cand.target_ok and projects_now(cand.sentence, found) and not about_other_meeting(cand.sentence)
        ]
        if not projected:
            return False
        chosen.append(max(projected, key=lambda pair: pair[0].score))
    metric, target = u.metrics[0], ", ".join(t.label for t in u.targets)
    memo = {"metric": metric.key, "target": target, "answers": True}
    refs = [c.quote_claim(cand.passage, found[1], "per cent", metric.label, **memo) for cand, found in chosen]
    earlier, later = chosen[0][1][1], chosen[-1][1][1]  # the figures as the sentences write them
    change = points_change(c, earlier, later, f"change in the {metric.label} projection")
    if change is None:
        return False
    said = "; ".join(f"{ref} in {document_name(cand.passage)}" for ref, (cand, _f) in zip(refs, chosen, strict=True))
    c.parts.append(f"The {metric.label} projection for {target}: {said}. A change of {change[0]}.")
    for cand, _found in chosen:
        c.quote(cand.passage, cand.sentence, metric.label, figure_claim=False)
    c.assessment = {"uncovered": [], "metric_found": True, "target_found": True, "between_meetings": True}
    return True
