"""Who held a committee's offices at its meetings ("Who chaired the committee in 2019?", "Who was the
deputy in charge in 2017?"). Each meeting's minutes open by naming the members and who chaired; the
holder of an office in a period is read from each of its meetings in the library, in date order, and
quoted; with no period named, from the latest meeting. The offices, how a question asks for them and
how the minutes name their holders are the pack's grammar (research/packs: ``Chairs``). Pure: passages
in, answer parts out.
"""

from __future__ import annotations

import datetime as dt
import re
from itertools import groupby
from typing import Any

from research.agent.compose.composer import Composer, document_name
from research.agent.question.periods import Period
from research.agent.question.understand import Understanding, year_asked
from research.packs import registry
from research.packs.base import Office

_GRAMMAR = registry.CHAIRS
_ASKS = re.compile(_GRAMMAR.asked if _GRAMMAR else "(?!)", re.I)
_OFFICES: dict[str, Office] = {o.name: o for o in _GRAMMAR.offices} if _GRAMMAR else {}
_CHAIR = next((o.name for o in _OFFICES.values() if o.chairs), "")
# How each meeting's opening sentence names the holder of each office the question may ask.
_HOLDER = (
    {o.name: re.compile(o.holder.replace("{title}", _GRAMMAR.titled_name)) for o in _OFFICES.values()}
    if _GRAMMAR
    else {}
)
# What the tool searches each meeting's minutes for.
CHAIR_QUERY = _GRAMMAR.query if _GRAMMAR else ""


def role_asked(question: str) -> str | None:
    """The office a question asks who held: one it names ("the deputy …"), else the chair's;
    ``None`` when it asks no such thing."""
    if not _ASKS.search(question):
        return None
    named = (o.name for o in _OFFICES.values() if o.asked and re.search(o.asked, question, re.I))
    return next(named, _CHAIR) or None


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
        office = _OFFICES[role]
        held = f"{name}, {role}, chaired {which}" if office.chairs else f"{name} sat as {office.title} at {which}"
        ends = "." if f"{words}." in " ".join(str(passage.get("text", "")).split()) else "…"  # as the minutes run on
        c.parts.append(f"{held}: “…{words}{ends}” {c.cite(passage, words)}")
    if period is None:
        c.parts.append(f"[Note: as of the latest minutes in the library, {document_name(chaired[dates[0]][0])}.]")
    else:
        c.parts.append(f"[Note: the meetings of {period.label} whose minutes the library holds.]")
    c.assessment["chair"] = True
    return True
