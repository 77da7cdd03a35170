"""Dates as documents write them ("August 6, 2024", "6 August 2024", "Aug. 6-8, 2024"): the first date
or meeting range of a text, in the Gregorian calendar every pack shares. Used by the metadata read at
upload (ingest.metadata, the filings pack's cover reader) and by the agent's checks of a quoted date."""

from __future__ import annotations

import calendar
import datetime as dt
import re

_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTHS |= {m[:3].lower(): i for m, i in list(_MONTHS.items())} | {"sept": 9}
_MONTH = (
    r"(January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?"
)
DATE_RE = re.compile(
    rf"\b{_MONTH}\s+(\d{{1,2}}),?\s+((?:19|20)\d{{2}})\b|\b(\d{{1,2}})\s+{_MONTH},?\s+((?:19|20)\d{{2}})\b"
)
RANGE_RE = re.compile(
    rf"\b{_MONTH}\s+(\d{{1,2}})\s*(?:-|–|to|and)\s*(?:{_MONTH}\s+)?(\d{{1,2}}),?\s+((?:19|20)\d{{2}})\b"
)


def _month(word: str) -> int:
    return _MONTHS[word.lower().rstrip(".")[:4] if word.lower().startswith("sept") else word.lower().rstrip(".")[:3]]


def _date(month: str, day: str, year: str) -> dt.date | None:
    try:
        return dt.date(int(year), _month(month), int(day))
    except (ValueError, KeyError):
        return None


def first_date(text: str) -> dt.date | None:
    for m in DATE_RE.finditer(text):
        found = _date(m.group(1), m.group(2), m.group(3)) if m.group(1) else _date(m.group(5), m.group(4), m.group(6))
        if found:
            return found
    return None


def first_range(text: str) -> tuple[dt.date, dt.date] | None:
    for m in RANGE_RE.finditer(text):
        start = _date(m.group(1), m.group(2), m.group(5))
        end = _date(m.group(3) or m.group(1), m.group(4), m.group(5))
        if start and end and start <= end and (end - start).days <= 31:
            return start, end
    return None
