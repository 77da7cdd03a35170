"""Questions asked in the present about what each meeting sets or projects, naming no meeting:
"What is the policy repo rate?", "What is the current stance?", "What is the CPI inflation
projection?". Each meeting sets them anew, so the answer now is the latest meeting's: the search
reads the latest minutes the library holds, and the answer names them ("according to RBI MPC
Minutes, August 2024"). Before, such a question searched every year alike and quoted whichever
ranked first: a member's "real repo rate" remark of June 2023 (sent to a reviewer), or August
2021's projection for a quarter long past, or a chart's axis labels read as an SDF rate of 24 per
cent, marked answered.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from research.agent.question.lexicon import POLICY_RATES
from research.agent.question.library import LibDoc
from research.agent.question.understand import Understanding, short_period

# The present: "is", "current", "now". A past word ("was", "in the past", "changed") asks for history.
_NOW = re.compile(r"\b(?:is|are|current(?:ly)?|now|today|presently|at present|latest|stands?)\b|\bwhat's\b", re.I)
_PAST = re.compile(
    r"\b(?:was|were|did|had|been|history|historical(?:ly)?|previous(?:ly)?|past|since|trend|chang(?:e|ed|es))\b", re.I
)
# Two years of meetings, six a year.
MEETINGS_BACK = 12
_PROJECTED = re.compile(r"\bproject(?:ion|ions|ed|s)?\b|\bforecasts?\b|\boutlook\b", re.I)


def latest_meeting_asked(
    question: str, u: Understanding, library: list[LibDoc], states: Callable[[int, tuple[str, ...]], bool]
) -> LibDoc | None:
    """The latest meeting's document when ``question`` asks in the present for a policy rate, the
    stance or a projection, and names no period, company or document of the user's own; else None.
    Meetings: the family of documents about a few days each (``short_period``) with the most of them.
    A rate the latest minutes no longer state is read from the latest that do (``states``: whether
    a document gives a figure for any of the phrases): the reverse repo rate, fixed since the
    standing deposit facility took its place in 2022; none of the last ``MEETINGS_BACK``: None."""
    if u.doc_periods or u.targets or u.issuers or u.fiscal or u.mine or not u.metrics:
        return None
    if not _NOW.search(question) or _PAST.search(question):
        return None
    decided = all(m.key in POLICY_RATES or m.key == "stance" for m in u.metrics)
    if not decided and not _PROJECTED.search(question):
        return None
    meetings = [d for d in library if d.doc_date and short_period(d.period_start, d.period_end)]
    if not meetings:
        return None
    family = Counter(d.doc_type for d in meetings).most_common(1)[0][0]
    if u.doc_types and family not in u.doc_types:
        return None
    newest = sorted((d for d in meetings if d.doc_type == family), key=lambda d: (d.doc_date, d.id), reverse=True)
    for document in newest[:MEETINGS_BACK]:
        if all(states(document.id, m.terms) for m in u.metrics if m.figured):
            return document
    return None
