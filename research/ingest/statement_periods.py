"""The column periods of a financial table, read from its header lines.

PDFium gives a statement's header as short lines: "Three Months Ended Nine Months Ended", then
"July 1," / "2023" / "June 25," / "2022" …, or "12 Weeks Ended 36 Weeks Ended" / "May 7, 2023 May 8,
2022 …", or "Quarters Ended March 31, 2023 2022 Inc/ (Dec)". :func:`header_columns` turns the joined
header text into columns, left to right: each has its period end date (when the header gives one),
its length ("Three Months Ended" → 3 months; none for a balance sheet's point in time) and its label
as printed ("Three Months Ended July 1, 2023"). A "Change" / "Inc/(Dec)" column is kept as a column
(rows print a value there) but marked ``change``. Pure; generic across filers.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass

_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTHS |= {m[:3].lower(): i for m, i in list(_MONTHS.items())} | {"sept": 9}
_MONTH_ALT = "|".join(sorted(_MONTHS, key=len, reverse=True))
_NUMBER_WORDS = {"one": 1, "three": 3, "six": 6, "nine": 9, "twelve": 12, "fifty-two": 52, "fifty-three": 53}

# "Three Months Ended", "12 Weeks Ended", "Quarters Ended", "For the Years Ended", "Fiscal Year Ended",
# "First Quarter" (earnings releases), "Six Months Ended"; "Three Months Six Months" over "2023 2022 % Change
# 2023 2022 % Change" (a segment note's two header lines, no end date printed).
DURATION_RE = re.compile(
    r"\b(?:(?P<n>\d{1,2}|one|three|six|nine|twelve|fifty-two|fifty-three)[- ](?P<unit>months?|weeks?)(?:\s+ended)?\b"
    r"|(?:(?P<q>quarters?)|(?:fiscal )?(?P<y>years?))\s+ended\b)"
    r"|\b(?P<ord>first|second|third|fourth)\s+quarter\b",
    re.I,
)
FULL_DATE_RE = re.compile(rf"\b(?P<m>{_MONTH_ALT})\.?\s+(?P<d>\d{{1,2}}),?\s+(?P<y>(?:19|20)\d{{2}})\b", re.I)
MONTH_DAY_RE = re.compile(rf"\b(?P<m>{_MONTH_ALT})\.?\s+(?P<d>\d{{1,2}}),?(?!\s*\d)", re.I)
YEAR_RE = re.compile(r"(?<![\d,.$])(?:FY\s?)?((?:19|20)\d{2})(?![\d,.%])")
CHANGE_RE = re.compile(
    r"%\s*change\b|\bchange\b|\binc\s*/\s*\(?dec\)?|\bincrease\s*/\s*\(?decrease\)?|\bvariance\b|\bfavorable\b", re.I
)
_AS_OF_RE = re.compile(r"\bas of\b", re.I)
_FILLER_RE = re.compile(r"\((?:unaudited|in (?:millions|thousands|billions))\)|\b(?:for the|and|fiscal|ended)\b", re.I)


@dataclass(frozen=True)
class Column:
    """One column of a table: its printed label, the period's end date (None when the header gives
    only a year), its year, its length in months (None for a point in time) and whether it is a
    change column ("Change", "Inc/(Dec)") rather than a period."""

    label: str
    end: dt.date | None = None
    year: int | None = None
    months: int | None = None
    change: bool = False

    def as_dict(self) -> dict[str, object]:
        return {
            "label": self.label,
            "end": self.end.isoformat() if self.end else None,
            "year": self.year,
            "months": self.months,
        }


def _months(match: re.Match[str]) -> tuple[int | None, str]:
    """(months, the words) of a duration match: "Nine Months Ended" → 9; "36 Weeks" → 9."""
    words = " ".join(match.group(0).split())
    if match.group("ord"):
        return 3, words
    if match.group("q"):
        return 3, words
    if match.group("y"):
        return 12, words
    raw = match.group("n").lower()
    n = int(raw) if raw.isdigit() else _NUMBER_WORDS[raw]
    if match.group("unit").lower().startswith("week"):
        # 12/13/16/17 weeks are a quarter, 24 half a year, 36 three quarters, 52/53 a year.
        return max(1, round(n / 52 * 4)) * 3, words
    return n, words


def _date(month: str, day: str, year: str) -> dt.date | None:
    try:
        return dt.date(int(year), _MONTHS[month.lower().rstrip(".")], int(day))
    except (ValueError, KeyError):
        return None


def _slots(text: str) -> list[tuple[int, str, dt.date | None, int | None]]:
    """The header's column slots in reading order: (position, printed date, end date, year), with a
    change column as ("Change", None, None). A month-day without a year ("March 31,") applies to the
    bare years after it ("2023 2022")."""
    found: list[tuple[int, int, str, dt.date | None, int | None]] = []  # (start, end, label, date, year)
    taken: list[tuple[int, int]] = []
    for m in FULL_DATE_RE.finditer(text):
        label = f"{m.group('m')} {m.group('d')}, {m.group('y')}"
        found.append((m.start(), m.end(), label, _date(m.group("m"), m.group("d"), m.group("y")), int(m.group("y"))))
        taken.append(m.span())

    def free(start: int, end: int) -> bool:
        return all(end <= a or start >= b for a, b in taken)

    month_days = [m for m in MONTH_DAY_RE.finditer(text) if free(*m.span())]
    taken += [m.span() for m in month_days]
    # A bare year takes the month and day printed before it ("March 31, 2023 2022", "December 31, 2018 2017").
    dated = sorted([*month_days, *FULL_DATE_RE.finditer(text)], key=lambda m: m.start())
    for m in YEAR_RE.finditer(text):
        if not free(*m.span()):
            continue
        before = [md for md in dated if md.end() <= m.start()]
        year = int(m.group(1))
        if before:
            md = before[-1]
            label = f"{md.group('m')} {md.group('d')}, {year}"
            found.append((m.start(), m.end(), label, _date(md.group("m"), md.group("d"), str(year)), year))
        else:
            found.append((m.start(), m.end(), str(year), None, year))
    for m in CHANGE_RE.finditer(text):
        if free(*m.span()):
            found.append((m.start(), m.end(), "Change", None, None))
    found.sort()
    return [(start, label, date, year) for start, _end, label, date, year in found]


def header_columns(text: str) -> list[Column]:
    """The columns named by a table's header text (its header lines joined), left to right; [] when
    it names no period. Durations are spread over the columns in order: two durations over six
    columns give the first three to the first and the last three to the second."""
    text = " ".join(text.split())
    slots = _slots(text)
    if not any(date is not None or year is not None for _at, _label, date, year in slots):
        return []
    durations = [_months(m) for m in DURATION_RE.finditer(text)]
    columns: list[Column] = []
    for i, (_at, label, date, year) in enumerate(slots):
        if label == "Change":
            columns.append(Column(label="Change", change=True))
            continue
        months, words = durations[i * len(durations) // len(slots)] if durations else (None, "")
        printed = f"{words} {label}".strip() if months else label
        columns.append(Column(label=printed, end=date, year=year, months=months))
    return columns


def is_header_line(line: str) -> bool:
    """Whether ``line`` is part of a table's period header: dates, years, durations and change
    labels, with at most two other words ("(Unaudited)", "As of", "Adjusted")."""
    if surely_kept_words(line) > 2:
        return False
    if not (YEAR_RE.search(line) or DURATION_RE.search(line) or MONTH_DAY_RE.search(line)):
        return False
    rest = header_rest(line)
    if re.search(r"\d", rest):
        return False
    return len(_WORD_RE.findall(rest)) <= 2


def header_rest(line: str) -> str:
    """``line`` without its dates, durations, years, change labels and filler words."""
    rest = FULL_DATE_RE.sub(" ", line)
    rest = DURATION_RE.sub(" ", rest)
    rest = MONTH_DAY_RE.sub(" ", rest)
    rest = YEAR_RE.sub(" ", rest)
    rest = CHANGE_RE.sub(" ", rest)
    rest = _AS_OF_RE.sub(" ", rest)
    return _FILLER_RE.sub(" ", rest)


# Every word the patterns above can remove whole; a word of two letters or more outside it stays in
# the header's rest. Why: most lines of a document are prose, and counting its words is about a
# tenth of the cost of the date and duration searches (the statements pass over the ingestion
# bench's files: 0.15 s a round, 0.09 s of it here; it runs beside the embedding model).
_REMOVABLE_WORDS = frozenset(_MONTHS) | frozenset(_NUMBER_WORDS) | {
    "fifty", "two", "month", "months", "week", "weeks", "ended", "quarter", "quarters", "fiscal", "year", "years",
    "first", "second", "third", "fourth", "fy", "change", "inc", "dec", "increase", "decrease", "variance",
    "favorable", "as", "of", "unaudited", "in", "millions", "thousands", "billions", "for", "the", "and",
}  # fmt: skip
_WORD_RE = re.compile(r"[A-Za-z]{2,}")


def surely_kept_words(line: str) -> int:
    """How many words of ``line`` no pattern of :func:`is_header_line` can touch, so that they are
    still words of its rest: outside :data:`_REMOVABLE_WORDS`, and not a word that a match can cut
    short (YEAR_RE's "FY" has no word boundary before it: "XFY2023"; CHANGE_RE's "dec" none after
    it: "Inc/Decline")."""
    return sum(
        1
        for word in _WORD_RE.findall(line)
        if (lower := word.lower()) not in _REMOVABLE_WORDS and not lower.endswith("fy") and not lower.startswith("dec")
    )
