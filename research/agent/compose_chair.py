"""Who chaired the committee ("Who was the RBI Governor in 2017?"). Each meeting's minutes open by
naming the members, "… and was chaired by Dr. Urjit R. Patel, Governor": the Governor of a period is
read from each of its meetings in the library, in date order, and quoted; with no period named, from
the latest meeting. It had been answered with a vote table, marked answered. Pure: passages in,
answer parts out.
"""

from __future__ import annotations

import datetime as dt
import re
from itertools import groupby
from typing import Any

from research.agent.composer import Composer, document_name
from research.agent.periods import Period
from research.agent.understand import Understanding, year_asked

_ASKS_GOVERNOR = re.compile(r"\bwho\b[^?]*\bgovernor\b|\bwho chaired\b", re.I)
_DEPUTY = re.compile(r"\bdeputy governors?\b", re.I)
# "was chaired by Dr. Urjit R. Patel, Governor" / "chaired by Shri Shaktikanta Das, Governor"
_CHAIRED = re.compile(r"\bchaired by ((?:Dr\.|Shri|Smt\.|Mr\.|Prof\.) [^,;]{3,60}?), Governor\b")
# What the tool searches each meeting's minutes for.
CHAIR_QUERY = "the meeting was attended by all the members and was chaired by the Governor"


def asks_governor(question: str) -> bool:
    """ "Who was the RBI Governor in 2017?", "Who is the Governor?", "Who chaired the MPC in 2019?" (not
    a Deputy Governor)."""
    return bool(_ASKS_GOVERNOR.search(question)) and not _DEPUTY.search(question)


def governor_period(u: Understanding, question: str) -> Period | None:
    return year_asked(u, question) or next((p for p in u.doc_periods if p.kind == "month"), None)


def compose_governor(c: Composer, u: Understanding, passages: list[dict[str, Any]]) -> bool:
    """Each meeting's chair in the period asked, consecutive meetings of one chair together."""
    if not asks_governor(c.question):
        return False
    chaired: dict[str, tuple[dict[str, Any], str, str]] = {}
    for passage in passages:
        found = _CHAIRED.search(" ".join(str(passage.get("text", "")).split()))
        if found and passage.get("doc_date"):
            chaired.setdefault(str(passage["doc_date"]), (passage, found.group(1), found.group(0)))
    period = governor_period(u, c.question)
    dates = sorted(d for d in chaired if period is None or period.contains(dt.date.fromisoformat(d[:10])))
    if not dates and period is not None:
        c.parts.append(f"The library holds no minutes of a meeting in {period.label}; I did not answer from another.")
        c.outcome = "no_document"
        return True
    if not dates:
        return False
    dates = dates if period is not None else dates[-1:]
    for name, run in groupby(dates, key=lambda d: chaired[d][1]):
        months = [f"{dt.date.fromisoformat(d[:10]):%B %Y}" for d in run]
        which = f"the {months[0]} meeting" if len(months) == 1 else f"the meetings of {months[0]} to {months[-1]}"
        passage, _, words = chaired[min(d for d in dates if chaired[d][1] == name)]
        c.parts.append(f"{name}, Governor, chaired {which}: “…{words}.” {c.cite(passage, words)}")
    if period is None:
        c.parts.append(f"[Note: as of the latest minutes in the library, {document_name(chaired[dates[0]][0])}.]")
    else:
        c.parts.append(f"[Note: the meetings of {period.label} whose minutes the library holds.]")
    c.assessment["chair"] = True
    return True
