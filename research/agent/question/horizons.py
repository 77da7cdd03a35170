"""Market horizons named in a question: "over the last year", "YTD", "3M", "since 2024-01-01",
"between 2023-01-01 and 2023-12-31". Pure: dates are worked out by the tool against the data.

Conventions (the same as the published 1M/3M/1Y/YTD returns, docs/portfolios.md "Metric definitions"): the end
is the latest date every ticker named and the benchmark have a bar (or the last such date on or
before the end asked); the baseline is the last bar on or before end − N calendar months, 31 Dec
of the previous year for YTD, or the date given.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from research.agent.question.periods import MONTH_YEAR_RE, month_number

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "six": 6, "nine": 9, "twelve": 12}
_ISO = r"\d{4}-\d{2}-\d{2}"
_DAY_MONTH_YEAR = r"\d{1,2}\s+[A-Z][a-z]+\.?\s+\d{4}"
_DATE = rf"(?:{_ISO}|{_DAY_MONTH_YEAR}|[A-Z][a-z]+\.?\s+\d{{1,2}},?\s+\d{{4}}|[A-Z][a-z]+\.?\s+\d{{4}}|\d{{4}})"
BETWEEN_RE = re.compile(rf"\b(?:between|from)\s+({_DATE})\s+(?:and|to|until|till)\s+({_DATE})", re.I)
SINCE_RE = re.compile(rf"\bsince\s+({_DATE})", re.I)
YTD_RE = re.compile(r"\b(ytd|year[- ]to[- ]date|this year|so far this year)\b", re.I)
MONTHS_RE = re.compile(
    r"\b(?:last|past|previous|over|in|the|trailing)?\s*(\d{1,2}|one|two|three|six|nine|twelve)[- ]?"
    r"(m\b|months?\b|mo\b)",
    re.I,
)
YEARS_RE = re.compile(
    r"\b(?:last|past|previous|trailing)\s+(?:(\d|one|two|three)\s+)?years?\b|\b(1y|12m|one[- ]year)\b", re.I
)
LAST_MONTH_RE = re.compile(r"\b(?:last|past|previous) month\b", re.I)


@dataclass(frozen=True)
class Horizon:
    """``months`` back from the end, or ``ytd``, or a ``start`` (and maybe an ``end``)."""

    label: str
    months: int | None = None
    ytd: bool = False
    start: dt.date | None = None
    end: dt.date | None = None

    def as_args(self) -> dict[str, Any]:
        args: dict[str, Any] = {"label": self.label}
        if self.months:
            args["months"] = self.months
        if self.ytd:
            args["ytd"] = True
        if self.start:
            args["start"] = self.start.isoformat()
        if self.end:
            args["end"] = self.end.isoformat()
        return args


def parse_date(text: str, *, end_of_period: bool = False) -> dt.date | None:
    """ "2024-01-01", "1 January 2024", "January 1, 2024", "January 2024", "2024" → a date (the
    period's first day, or its last with ``end_of_period``)."""
    text = text.strip().rstrip(".,")
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        pass
    if m := re.fullmatch(r"(\d{1,2})\s+([A-Za-z]+)\.?\s+(\d{4})", text):
        return dt.date(int(m.group(3)), month_number(m.group(2)), int(m.group(1)))
    if m := re.fullmatch(r"([A-Za-z]+)\.?\s+(\d{1,2}),?\s+(\d{4})", text):
        return dt.date(int(m.group(3)), month_number(m.group(1)), int(m.group(2)))
    if m := MONTH_YEAR_RE.fullmatch(text):
        month, year = month_number(m.group(1)), int(m.group(2))
        return dt.date(year, month, calendar.monthrange(year, month)[1] if end_of_period else 1)
    if re.fullmatch(r"\d{4}", text):
        return dt.date(int(text), 12, 31) if end_of_period else dt.date(int(text), 1, 1)
    return None


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBER_WORDS.get(word.lower(), 1)


def horizon_asked(question: str) -> Horizon | None:
    """The horizon ``question`` names, or ``None``."""
    if m := BETWEEN_RE.search(question):
        start, end = parse_date(m.group(1)), parse_date(m.group(2), end_of_period=True)
        if start and end and start < end:
            return Horizon(f"from {start.isoformat()} to {end.isoformat()}", start=start, end=end)
    if m := SINCE_RE.search(question):
        start = parse_date(m.group(1))
        if start:
            return Horizon(f"since {start.isoformat()}", start=start)
    if YTD_RE.search(question):
        return Horizon("year to date", ytd=True)
    if m := YEARS_RE.search(question):
        years = _count(m.group(1)) if m.group(1) else 1
        return Horizon("the last year" if years == 1 else f"the last {years} years", months=12 * years)
    if LAST_MONTH_RE.search(question):
        return Horizon("the last month", months=1)
    if m := MONTHS_RE.search(question):
        months = _count(m.group(1))
        return Horizon(f"the last {months} month{'s' if months != 1 else ''}", months=months)
    return None
