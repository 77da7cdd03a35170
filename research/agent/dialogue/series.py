"""Series navigation: "the following meeting", "the one before that", "the same meeting last year".

A follow-up like these moves along the dated series of the document the previous turn cited:
the documents of the same ``doc_type`` the user can see, ordered by the period they cover (else
their date). One step is one document of the series — so "the previous meeting" is the previous
minutes *in the library*, which says which document it used when the library has gaps. A year
back is the document of the series whose period starts closest to a year earlier (within 45 days).
Generic: any dated document type, no calendar of any issuer. Pure: the library is passed in.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from research.agent.question.library import LibDoc
from research.agent.question.periods import Period, find_periods, fy_label, month_period
from research.agent.question.understand import Understanding

_ORDINAL = {"two": 2, "three": 3, "four": 4, "2": 2, "3": 3, "4": 4}
_NOUN = r"(?:meeting|minutes|one|report|document|edition|issue|release|review|note)s?"
_YEAR_BACK = r"a year (?:earlier|before|ago)"
NAV_PATTERNS: tuple[tuple[re.Pattern[str], int, str], ...] = (
    (re.compile(rf"\bsame {_NOUN} (?:{_YEAR_BACK}|last year|the (?:previous|prior) year)\b", re.I), -1, "year"),
    (re.compile(rf"\b(?:{_YEAR_BACK}|year[- ]earlier {_NOUN}|{_NOUN} {_YEAR_BACK})\b", re.I), -1, "year"),
    (re.compile(rf"\b(two|three|four|2|3|4) {_NOUN} (?:ago|before|earlier)\b", re.I), -1, "doc"),
    (re.compile(rf"\b(?:the )?(?:one|{_NOUN}) (?:before|prior to) (?:that|this|it)\b", re.I), -1, "doc"),
    (re.compile(rf"\b(?:the )?(?:one|{_NOUN}) (?:after|following) (?:that|this|it)\b", re.I), 1, "doc"),
    (re.compile(rf"\b(?:following|next|subsequent|later) {_NOUN}\b", re.I), 1, "doc"),
    (re.compile(rf"\b(?:previous|prior|preceding|earlier|last) {_NOUN}\b", re.I), -1, "doc"),
    (re.compile(r"\b(?:before|prior to) that\b", re.I), -1, "doc"),
    (re.compile(r"\b(?:after that|the following|the next one)\b", re.I), 1, "doc"),
)


@dataclass(frozen=True)
class Move:
    steps: int  # signed: -1 previous, +1 following, -2 two back
    unit: str  # "doc" (one document of the series) or "year"
    words: str  # the words that asked for it

    @property
    def describe(self) -> str:
        if self.unit == "year":
            return "the same document a year earlier"
        n = abs(self.steps)
        which = "before" if self.steps < 0 else "after"
        return f"{'the document' if n == 1 else f'{n} documents'} {which}"


def move_asked(question: str) -> Move | None:
    """The move along a series the follow-up asks for, or ``None``."""
    for pattern, sign, unit in NAV_PATTERNS:
        match = pattern.search(question)
        if match:
            count = _ORDINAL.get((match.groups() or ("",))[0] or "", 1) if match.groups() else 1
            return Move(steps=sign * count, unit=unit, words=match.group(0))
    return None


def series_of(doc: LibDoc, library: list[LibDoc]) -> list[LibDoc]:
    """The dated documents of ``doc``'s type (itself included), oldest first."""
    same = [d for d in library if d.doc_type == doc.doc_type and d.start is not None]
    if not doc.doc_type:
        same = [d for d in library if d.id == doc.id]
    return sorted(same, key=lambda d: (d.start or dt.date.min, d.id))


def navigate(origin: LibDoc, move: Move, library: list[LibDoc]) -> LibDoc | None:
    """The document ``move`` lands on from ``origin``, or ``None`` when the series has none there."""
    series = series_of(origin, library)
    ids = [d.id for d in series]
    if origin.id not in ids:
        return None
    if move.unit == "doc":
        index = ids.index(origin.id) + move.steps
        return series[index] if 0 <= index < len(series) else None
    assert origin.start is not None
    wanted = origin.start - dt.timedelta(days=365 * abs(move.steps))
    near = [d for d in series if d.start and abs((d.start - wanted).days) <= 45 and d.id != origin.id]
    return min(near, key=lambda d: abs(((d.start or wanted) - wanted).days)) if near else None


def period_label(doc: LibDoc) -> str:
    """How a question names ``doc``'s period: its month for a meeting-like document, its fiscal
    year for a year-long one, else its date's month."""
    start = doc.period_start or doc.doc_date
    if start is None:
        return doc.title
    if doc.period_start and doc.period_end and (doc.period_end - doc.period_start).days > 300:
        return fy_label(doc.period_start.year)
    return month_period(start.month, start.year).label


def rewrite_for(question: str, target: LibDoc, doc_periods: list[Period] | None = None) -> str:
    """``question`` (the previous turn's) asking about ``target`` instead: its document period
    (``doc_periods``, from understanding it; else the first month it names) replaced by the
    target's, or the target named at the end when it named none."""
    label = period_label(target)
    periods: list[Period] = (
        doc_periods if doc_periods is not None else [p for p in find_periods(question) if p.kind == "month"]
    )
    if periods:
        first = periods[0]
        return question[: first.at] + label + question[first.at + first.length :]
    return f"{question.rstrip(' ?.')} in {target.title}?"


def family_name(doc_type: str, library: list[LibDoc]) -> str:
    """How to name a family in words: the start its titles share ("RBI MPC Minutes"), else its type."""
    titles = [d.title for d in library if d.doc_type == doc_type]
    if not titles:
        return doc_type.replace("_", " ")
    words = titles[0].replace(",", " ").split()
    common: list[str] = []
    for i, word in enumerate(words):
        if all(len(t.replace(",", " ").split()) > i and t.replace(",", " ").split()[i] == word for t in titles):
            common.append(word)
        else:
            break
    return " ".join(common) if len(common) >= 2 else doc_type.replace("_", " ")


def no_document_info(u: Understanding, library: list[LibDoc]) -> dict[str, object]:
    """What to tell the analyst when no document matches: the period asked, the family, and the
    nearest documents of that family before and after the period."""
    family = [d for d in library if (not u.doc_types or d.doc_type in u.doc_types) and (d.mine or not u.mine)]
    asked = ", ".join([*u.issuers, *(f.label for f in u.fiscal), *(p.label for p in u.doc_periods)]) or (
        "your own uploads" if u.mine else ""
    )
    info: dict[str, object] = {"asked": asked, "mine": u.mine, "family": "", "before": None, "after": None}
    if u.doc_types:
        info["family"] = family_name(u.doc_types[0], library)
    if u.issuers and u.fiscal and not u.doc_periods:
        from research.agent.question.companies import nearest_filings

        for side, doc in zip(("before", "after"), nearest_filings(u.issuers, u.fiscal, library), strict=True):
            info[side] = {"id": doc.id, "title": doc.title} if doc else None
        return info
    if u.doc_periods and family:
        first, last = u.doc_periods[0].start, u.doc_periods[-1].end
        before = [d for d in family if d.start and d.start < first]
        after = [d for d in family if d.start and d.start > last]
        if before:
            doc = max(before, key=lambda d: d.start or first)
            info["before"] = {"id": doc.id, "title": doc.title}
        if after:
            doc = min(after, key=lambda d: d.start or last)
            info["after"] = {"id": doc.id, "title": doc.title}
    return info
