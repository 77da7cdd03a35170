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

from research.agent.compose.composer import Composer, document_name
from research.agent.question.periods import Period
from research.agent.question.understand import Understanding, year_asked

_ASKS_GOVERNOR = re.compile(r"\bwho\b[^?]*\bgovernor\b|\bwho chaired\b", re.I)
_DEPUTY = re.compile(r"\bdeputy governors?\b", re.I)
_TITLE = r"(?:Dr\.|Shri|Smt\.|Mr\.|Prof\.) [^,;]{3,60}?"
# How each meeting's opening sentence names the holder of each role the question may ask:
# "Dr. Viral V. Acharya, Deputy Governor in charge of monetary policy – and was chaired by Shri
# Shaktikanta Das, Governor."
_HOLDER = {
    "Governor": re.compile(rf"\bchaired by ({_TITLE}), Governor\b"),
    "Deputy Governor": re.compile(rf"({_TITLE}), Deputy Governor in charge of monetary policy\b"),
}
_AS_DEPUTY = "Deputy Governor in charge of monetary policy"
# What the tool searches each meeting's minutes for.
CHAIR_QUERY = "the meeting was attended by all the members and was chaired by the Governor"


def role_asked(question: str) -> str | None:
    """ "Who was the RBI Governor in 2017?", "Who chaired the MPC in 2019?" → "Governor"; "Who was
    the Deputy Governor in charge of monetary policy?" → "Deputy Governor"; otherwise ``None``."""
    if not _ASKS_GOVERNOR.search(question):
        return None
    return "Deputy Governor" if _DEPUTY.search(question) else "Governor"


def governor_period(u: Understanding, question: str) -> Period | None:
    return year_asked(u, question) or next((p for p in u.doc_periods if p.kind == "month"), None)


def compose_governor(c: Composer, u: Understanding, passages: list[dict[str, Any]]) -> bool:
    """Each meeting's holder of the role asked in the period asked, consecutive meetings of one holder
    together."""
    role = role_asked(c.question)
    if role is None:
        return False
    chaired: dict[str, tuple[dict[str, Any], str, str]] = {}
    for passage in passages:
        found = _HOLDER[role].search(" ".join(str(passage.get("text", "")).split()))
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
    for name, group in groupby(dates, key=lambda d: chaired[d][1]):
        run = list(group)
        months = [f"{dt.date.fromisoformat(d[:10]):%B %Y}" for d in run]
        which = f"the {months[0]} meeting" if len(months) == 1 else f"the meetings of {months[0]} to {months[-1]}"
        passage, _, words = chaired[run[0]]
        held = f"{name}, Governor, chaired {which}" if role == "Governor" else f"{name} sat as {_AS_DEPUTY} at {which}"
        ends = "." if f"{words}." in " ".join(str(passage.get("text", "")).split()) else "…"  # as the minutes run on
        c.parts.append(f"{held}: “…{words}{ends}” {c.cite(passage, words)}")
    if period is None:
        c.parts.append(f"[Note: as of the latest minutes in the library, {document_name(chaired[dates[0]][0])}.]")
    else:
        c.parts.append(f"[Note: the meetings of {period.label} whose minutes the library holds.]")
    c.assessment["chair"] = True
    return True
