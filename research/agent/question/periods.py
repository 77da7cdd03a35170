"""Periods named in a question or a passage: a month ("August 2024"), a fiscal year ("2023-24",
"FY25"), a quarter of a fiscal year ("Q3 2024-25", "Q3:2024-25"), a half of one ("H1:2019-20", "the
second half of 2024-25"), a calendar year, a date range.

Pure and generic: nothing here knows which documents exist. A fiscal year starts in the month the
packs' calendar gives (research/packs: the shipped corpus's April–March), read in one place,
``FISCAL_YEAR_START_MONTH``.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass

from research.packs import registry

FISCAL_YEAR_START_MONTH = registry.FISCAL_YEAR_START_MONTH
MONTHS = [m.lower() for m in calendar.month_name[1:]]
MONTH_ALT = "|".join(sorted({*MONTHS, *(m[:3] for m in MONTHS), "sept"}, key=len, reverse=True))

# A month named anywhere, as a word ("may" counts: a check that looks for it only stands aside).
MONTH_WORD = re.compile(rf"\b(?:{MONTH_ALT})\b", re.I)
# A figure dated to one month by the words after it: "… moderated to 6.8 per cent in August" (or
# "in March 2024", "below 4 per cent from December 2023"). A month with a day after it ("in June
# 30, 2023") is a balance date, not a reading.
# Matched on the text right after a figure.
MONTH_AFTER_FIGURE = re.compile(
    rf"^\s*(?:per\s?cent|percent|%)?\s*\(?\s*(?:in|during|from|since)\s+(?:end-|mid-)?({MONTH_ALT})\b\.?(?!\s+\d{{1,2}}\b)",
    re.I,
)
# "August 2024", "Aug. 2024", "August 6 to 8, 2024"
MONTH_YEAR_RE = re.compile(
    rf"\b({MONTH_ALT})\.?,?\s+(?:\d{{1,2}}(?:\s*(?:-|–|to)\s*\d{{1,2}})?,?\s+)?((?:19|20)\d{{2}})\b", re.I
)
# "the February and August 2019 minutes": the first month's year is the second's (the year before
# when the first month comes later in the calendar: "December and February 2024").
MONTH_ELIDED_YEAR_RE = re.compile(
    rf"\b({MONTH_ALT})\.?\s+(?:and|or|to|through|–|-)\s+(?:the\s+)?({MONTH_ALT})\.?\s+((?:19|20)\d{{2}})\b", re.I
)
FY_RE = re.compile(r"\b(?:FY\s?|fiscal(?: year)?\s)?((?:19|20)\d{2})\s?[-–/]\s?((?:19|20)?\d{2})\b", re.I)
FY_SHORT_RE = re.compile(r"\bFY\s?'?(\d{2}|(?:19|20)\d{2})\b", re.I)
QUARTER_RE = re.compile(
    r"\b(?:Q([1-4])|(first|second|third|fourth) quarter)(?:\s*(?:of|:|,)?\s*)(?:FY\s?)?"
    r"((?:19|20)\d{2}\s?[-–]\s?\d{2}|FY\s?\d{2})",
    re.I,
)
# "H1:2019-20", "H2 2024-25", "the second half of 2024-25": half a fiscal year, not the year.
HALF_RE = re.compile(
    r"\b(?:H([12])|(first|second) half)(?:\s*(?:of|:|,)?\s*)(?:FY\s?)?((?:19|20)\d{2}\s?[-–]\s?\d{2}|FY\s?\d{2})",
    re.I,
)
YEAR_RE = re.compile(r"(?<![\d-])((?:19|20)\d{2})(?![\d-])")
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}


@dataclass(frozen=True)
class Period:
    """A span of days with the words it was named by. ``kind``: month, fy, quarter, half, year, range."""

    kind: str
    start: dt.date
    end: dt.date
    label: str
    at: int = 0  # where in the text it was named
    length: int = 0  # how many characters named it

    def overlaps(self, start: dt.date | None, end: dt.date | None) -> bool:
        if start is None:
            return False
        return start <= self.end and (end or start) >= self.start

    def contains(self, day: dt.date | None) -> bool:
        return day is not None and self.start <= day <= self.end


def month_period(month: int, year: int, *, at: int = 0, length: int = 0) -> Period:
    last = calendar.monthrange(year, month)[1]
    return Period(
        "month", dt.date(year, month, 1), dt.date(year, month, last), f"{calendar.month_name[month]} {year}", at, length
    )


def fy_label(start_year: int) -> str:
    return f"{start_year}-{(start_year + 1) % 100:02d}"


def fiscal_year(start_year: int, *, at: int = 0, length: int = 0) -> Period:
    start = dt.date(start_year, FISCAL_YEAR_START_MONTH, 1)
    end = dt.date(start_year + 1, FISCAL_YEAR_START_MONTH, 1) - dt.timedelta(days=1)
    return Period("fy", start, end, fy_label(start_year), at, length)


def quarter(q: int, fy_start_year: int, *, at: int = 0, length: int = 0) -> Period:
    first_month = FISCAL_YEAR_START_MONTH + 3 * (q - 1)
    year = fy_start_year + (first_month - 1) // 12
    month = (first_month - 1) % 12 + 1
    start = dt.date(year, month, 1)
    end_month_index = month + 2
    end_year = year + (end_month_index - 1) // 12
    end_month = (end_month_index - 1) % 12 + 1
    end = dt.date(end_year, end_month, calendar.monthrange(end_year, end_month)[1])
    return Period("quarter", start, end, f"Q{q} {fy_label(fy_start_year)}", at, length)


def half(h: int, fy_start_year: int, *, at: int = 0, length: int = 0) -> Period:
    first, last = quarter(2 * h - 1, fy_start_year), quarter(2 * h, fy_start_year)
    return Period("half", first.start, last.end, f"H{h} {fy_label(fy_start_year)}", at, length)


def _fy_start(text: str) -> int | None:
    """The first calendar year of a fiscal year written "2024-25", "2024–2025" or "FY25"."""
    text = text.strip()
    short = re.fullmatch(r"FY\s?'?(\d{2}|\d{4})", text, re.I)
    if short:
        year = int(short.group(1))
        return (2000 + year if year < 100 else year) - 1
    match = re.fullmatch(r"((?:19|20)\d{2})\s?[-–/]\s?((?:19|20)?\d{2})", text)
    if not match:
        return None
    first, second = int(match.group(1)), int(match.group(2))
    if (second if second >= 100 else first // 100 * 100 + second) != first + 1:
        return None  # "2024-08" is a month, "2019-2021" a range: not a fiscal year
    return first


def _spans_taken(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(start < e and end > s for s, e in taken)


def find_periods(text: str) -> list[Period]:
    """Every period named in ``text``, in order of appearance (a quarter's or a half's fiscal year is
    part of it, not a period of its own; a year inside a month or fiscal year is not one either)."""
    found: list[Period] = []
    taken: list[tuple[int, int]] = []

    def add(period: Period, start: int, end: int) -> None:
        found.append(period)
        taken.append((start, end))

    for m in QUARTER_RE.finditer(text):
        fy = _fy_start(m.group(3))
        if fy is not None:
            q = int(m.group(1)) if m.group(1) else _ORDINALS[m.group(2).lower()]
            add(quarter(q, fy, at=m.start(), length=m.end() - m.start()), m.start(), m.end())
    for m in HALF_RE.finditer(text):
        fy = _fy_start(m.group(3))
        if fy is not None:
            h = int(m.group(1)) if m.group(1) else _ORDINALS[m.group(2).lower()]
            add(half(h, fy, at=m.start(), length=m.end() - m.start()), m.start(), m.end())
    for m in MONTH_YEAR_RE.finditer(text):
        if not _spans_taken(taken, m.start(), m.end()):
            month = month_number(m.group(1))
            add(month_period(month, int(m.group(2)), at=m.start(), length=m.end() - m.start()), m.start(), m.end())
    for m in MONTH_ELIDED_YEAR_RE.finditer(text):
        if not _spans_taken(taken, m.start(), m.start(1) + len(m.group(1))):
            first, second, year = month_number(m.group(1)), month_number(m.group(2)), int(m.group(3))
            named = month_period(first, year - (first > second), at=m.start(), length=len(m.group(1)))
            add(named, m.start(), m.start(1) + len(m.group(1)))
    for regex in (FY_RE, FY_SHORT_RE):
        for m in regex.finditer(text):
            fy = _fy_start(m.group(0)[m.group(0).upper().find("FY") :] if regex is FY_SHORT_RE else _fy_text(m))
            if fy is not None and not _spans_taken(taken, m.start(), m.end()):
                add(fiscal_year(fy, at=m.start(), length=m.end() - m.start()), m.start(), m.end())
    for m in YEAR_RE.finditer(text):
        if not _spans_taken(taken, m.start(), m.end()):
            year = int(m.group(1))
            add(Period("year", dt.date(year, 1, 1), dt.date(year, 12, 31), str(year), m.start(), 4), m.start(), m.end())
    return sorted(found, key=lambda p: p.at)


def _fy_text(m: re.Match[str]) -> str:
    return f"{m.group(1)}-{m.group(2)}"


def month_number(word: str) -> int:
    word = word.lower().rstrip(".")
    word = "sep" if word == "sept" else word
    return next(i for i, name in enumerate(MONTHS, start=1) if name.startswith(word[:3]))


def period_forms(period: Period) -> list[str]:
    """How a passage may write ``period``: what evidence for it must mention (lower case,
    spaces removed: "2024-25" also matches "2024- 25" and "2024–25" as extracted from PDFs)."""
    if period.kind == "fy":
        y = period.start.year
        return [f"{y}-{(y + 1) % 100:02d}", f"{y}–{(y + 1) % 100:02d}", f"{y}-{y + 1}", f"fy{(y + 1) % 100:02d}"]
    if period.kind in ("quarter", "half"):
        q = period.label.split()[0].lower()  # "q3", "h1"
        fy = period.label.split()[1]
        return [f"{q}:{fy}", f"{q}{fy}", f"{q}fy{fy[-2:]}", f"{q}:fy{fy[-2:]}"]
    if period.kind == "month":
        name = calendar.month_name[period.start.month].lower()
        return [f"{name}{period.start.year}", f"{name[:3]}{period.start.year}", f"{name},{period.start.year}"]
    if period.kind == "year":
        return [str(period.start.year)]
    return []


def squash(text: str) -> str:
    """Lower case without spaces, dashes unified: the form :func:`period_forms` are compared in."""
    return re.sub(r"\s+", "", text.lower()).replace("–", "-")


def mentions(text: str, period: Period) -> bool:
    """Whether ``text`` names ``period`` (in any of its written forms)."""
    flat = squash(text)
    if any(squash(form) in flat for form in period_forms(period)):
        return True
    if period.kind in ("quarter", "half"):
        # "… for 2024-25 … with Q1 at 4.9 per cent; Q2 at 3.8 per cent; Q3 at 4.6 per cent …"
        q = period.label.split()[0].lower()
        fy = fiscal_year(period.start.year if period.start.month >= FISCAL_YEAR_START_MONTH else period.start.year - 1)
        return bool(re.search(rf"\b{q}\b", text.lower())) and mentions(text, fy)
    return False


# A month joined to another by "to", "and" or a dash: one end of a span of months.
_SPAN_NEXT = re.compile(rf"^\s*(?:to|till|until|through|and|–|—|-)\s*(?:{MONTH_ALT})\.?\s+\d{{4}}", re.I)
_SPAN_PREVIOUS = re.compile(rf"\b(?:{MONTH_ALT})\.?\s+\d{{4}}\s*(?:to|till|until|through|and|–|—|-)\s*$", re.I)


def only_as_span_end(text: str, period: Period) -> bool:
    """Whether ``text`` names the month ``period`` only as one end of a span ("by 250 bps during May
    2022 to February 2023"): a figure of the span is not the month's."""
    if period.kind != "month":
        return False
    found = [p for p in find_periods(text) if p.label == period.label]
    return bool(found) and all(
        _SPAN_NEXT.match(text[p.at + p.length :]) or _SPAN_PREVIOUS.search(text[: p.at]) for p in found
    )
