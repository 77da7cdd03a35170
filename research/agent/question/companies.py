"""Companies and fiscal periods a question names, matched against the library's filings.

A company is named by its name as the library's documents give it (``issuer``, read from a
filing's cover at upload), with or without its legal suffix ("Apple Inc." → "Apple"), possessive
or not ("eBay's"), or by the first word of a company's name when that word is distinctive
("Costco Wholesale Corporation" → "Costco"). A name without a legal suffix ("Reserve Bank of
India") is matched only whole. A fiscal period is a quarter ("Q1 2023", "Q3 FY2023", "third quarter
of fiscal 2023"), a fiscal year ("FY2018", "fiscal 2018", "2018") or the end of a period ("the
quarter ended July 1, 2023"), matched against the filing's fiscal label ("Q3 FY2023") or, when it
has none, its period. Generic: nothing here names a company.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from research.agent.question.library import LibDoc
from research.agent.question.periods import MONTH_YEAR_RE
from research.packs.dates import DATE_RE, first_date
from research.packs.filings.cover import ORDINALS as _ORDINALS

_SUFFIX = re.compile(
    r"(?:,?\s+(?:inc|incorporated|corporation|corp|company|co|ltd|limited|plc|nv|sa|ag|se|llc|lp))+$", re.I
)
# First words that name no company on their own ("General" Motors, "First" Solar, "Bank" of …).
_GENERIC_FIRST = frozenset(
    [
        "american",
        "general",
        "first",
        "united",
        "national",
        "international",
        "global",
        "bank",
        "new",
        "the",
        "royal",
        "china",
        "great",
        "southern",
        "northern",
        "western",
        "eastern",
        "public",
        "capital",
        "digital",
        "energy",
        "financial",
        "health",
        "data",
        "home",
        "world",
        "best",
        "state",
        "city",
        "central",
        "pacific",
        "atlantic",
        "standard",
        "universal",
        "federal",
    ]
)
_YEAR = r"(?:FY\s*|fiscal(?:\s+year)?\s+)?'?((?:19|20)?\d{2})"
_QUARTER_ASKED = re.compile(
    rf"\bQ([1-4])\s*(?:of\s+)?{_YEAR}\b|\b(first|second|third|fourth)[- ]quarter(?:\s+of)?\s*{_YEAR}\b"
    r"|\b(?:FY\s*|fiscal(?:\s+year)?\s+)((?:19|20)\d{2})\s+(?:Q([1-4])|(first|second|third|fourth)[- ]quarter)\b",
    re.I,
)
_ENDED_ASKED = re.compile(rf"\bended\s+(?:on\s+)?(?P<date>{DATE_RE.pattern})", re.I)
_FY_ASKED = re.compile(r"\b(?:FY\s*'?|fiscal(?:\s+year)?\s+)((?:19|20)\d{2}|\d{2})\b", re.I)
_BARE_YEAR = re.compile(r"(?<![\d-])((?:19|20)\d{2})(?![\d-])")
_FORM_ASKED = re.compile(r"\b(10-?K|10-?Q|8-?K|20-?F)\b", re.I)


def _norm(text: str) -> str:
    text = re.sub(r"['’`]", "", text.lower())
    return " ".join(re.sub(r"[^a-z0-9&]+", " ", text).split())


def aliases(issuer: str) -> set[str]:
    """The ways a question may name ``issuer`` (normalised: lower case, no apostrophes or dots)."""
    full = _norm(issuer)
    names = {full}
    core = _SUFFIX.sub("", full).strip()
    if core and core != full:  # a company's legal name: its name alone names it too
        core = re.sub(r"^the\s+", "", core)
        names.add(core)
        first = core.split()[0]
        if len(first) >= 3 and first not in _GENERIC_FIRST and not first.isdigit():
            names.add(first)
    return {n for n in names if n}


def companies_named(question: str, library: list[LibDoc]) -> list[str]:
    """The library's issuers that ``question`` names."""
    text = f" {_norm(question)} "
    named = []
    for issuer in sorted({d.issuer for d in library if d.issuer}):
        if any(re.search(rf"(?<![a-z0-9]){re.escape(a)}s?(?![a-z0-9])", text) for a in aliases(issuer)):
            named.append(issuer)
    return named


def alias_words(issuers: list[str]) -> set[str]:
    return {word for issuer in issuers for alias in aliases(issuer) for word in alias.split()}


def forms_named(question: str, library: list[LibDoc]) -> list[str]:
    """Filing forms a question names ("the 10-Q") that the library holds."""
    held = {d.doc_type for d in library}
    asked = {m.group(1).upper().replace("-", "") for m in _FORM_ASKED.finditer(question)}
    return sorted(t for t in held if t.replace("-", "").upper() in asked)


@dataclass(frozen=True)
class FiscalAsk:
    """A fiscal period a question names: ``kind`` quarter (quarter + year), year, or ended (a day)."""

    kind: str
    year: int = 0
    quarter: int = 0
    day: dt.date | None = None
    at: int = 0
    length: int = 0

    @property
    def label(self) -> str:
        if self.kind == "quarter":
            return f"Q{self.quarter} FY{self.year}"
        if self.kind == "year":
            return f"FY{self.year}"
        return f"the period ended {self.day:%-d %B %Y}" if self.day else ""

    def as_dict(self) -> dict[str, Any]:
        day = self.day.isoformat() if self.day else None
        return {"kind": self.kind, "year": self.year, "quarter": self.quarter, "day": day, "label": self.label}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FiscalAsk:
        day = dt.date.fromisoformat(d["day"]) if d.get("day") else None
        return cls(d["kind"], int(d.get("year") or 0), int(d.get("quarter") or 0), day)


def _year(text: str) -> int:
    year = int(text)
    return 2000 + year if year < 100 else year


def fiscal_asked(question: str) -> list[FiscalAsk]:
    """Every fiscal period ``question`` names, in order (a quarter's year is not a year of its own)."""
    found: list[FiscalAsk] = []
    taken: list[tuple[int, int]] = []

    def free(m: re.Match[str]) -> bool:
        return not any(m.start() < e and m.end() > s for s, e in taken)

    def add(ask: FiscalAsk, m: re.Match[str]) -> None:
        found.append(ask)
        taken.append((m.start(), m.end()))

    for m in _ENDED_ASKED.finditer(question):
        if day := first_date(m.group("date")):
            add(FiscalAsk("ended", day=day, at=m.start(), length=m.end() - m.start()), m)
    # A day or a month ("in February 2023") is a calendar period, left to the document periods.
    taken += [(m.start(), m.end()) for m in (*DATE_RE.finditer(question), *MONTH_YEAR_RE.finditer(question))]
    for m in _QUARTER_ASKED.finditer(question):
        if not free(m):
            continue
        g = m.groups()
        number, word = g[0] or g[5], g[2] or g[6]
        quarter = int(number) if number else _ORDINALS[word.lower()]
        year = _year(g[1] or g[3] or g[4])
        add(FiscalAsk("quarter", year=year, quarter=quarter, at=m.start(), length=m.end() - m.start()), m)
    for regex in (_FY_ASKED, _BARE_YEAR):
        for m in regex.finditer(question):
            if free(m):
                add(FiscalAsk("year", year=_year(m.group(1)), at=m.start(), length=m.end() - m.start()), m)
    return sorted(found, key=lambda a: a.at)


# A question about what a company said of a later period: the guidance it gave, its outlook.
FORWARD_RE = re.compile(
    r"\b(guidance|guided?|forecast(?:s|ed|ing)?|outlook|expect(?:s|ed|ing)?|anticipated?|projected|projections?)\b",
    re.I,
)


def guidance_source(question: str, asks: list[FiscalAsk]) -> list[FiscalAsk]:
    """For a question about guidance ("what revenue did it forecast for Q2 2023?"), the fiscal
    periods whose filings give it: the latest quarter guided ("for Q3", "Q3 outlook") is the one
    asked of, so the filing of the quarter before it gives the guidance; a quarter named otherwise
    ("in its Q2 results") names that filing. Other questions, and years (a year's outlook is given and
    updated in its own quarters' filings), keep the periods asked."""
    quarters = [a for a in asks if a.kind == "quarter" and _is_guided(question, a)]
    if not quarters or not FORWARD_RE.search(question):
        return asks
    guided = max(quarters, key=lambda a: (a.year, a.quarter))
    year, quarter = (guided.year, guided.quarter - 1) if guided.quarter > 1 else (guided.year - 1, 4)
    source = FiscalAsk("quarter", year=year, quarter=quarter, at=guided.at, length=guided.length)
    shifted = [source if a is guided else a for a in asks]
    return [a for i, a in enumerate(shifted) if a.label not in {b.label for b in shifted[:i]}]


def _is_guided(question: str, ask: FiscalAsk) -> bool:
    """Whether the quarter ``ask`` is what is guided: "for (the) Q3 2023", "Q3 2023 (revenue) outlook"."""
    before = question[: ask.at]
    after = question[ask.at + ask.length :]
    named_after = re.match(rf"[\s-]*(?:[\w-]+\s+){{0,2}}(?:{FORWARD_RE.pattern})", after, re.I)
    return bool(re.search(r"\b(?:for|into)\s+(?:the\s+)?$", before, re.I) or named_after)


def _fiscal_year_of(doc: LibDoc) -> int | None:
    if doc.fiscal_period:
        match = re.search(r"FY(\d{4})", doc.fiscal_period)
        return int(match.group(1)) if match else None
    day = doc.period_end or doc.doc_date
    return day.year if day else None


def _calendar_quarter(day: dt.date) -> tuple[int, int]:
    return (day.month - 1) // 3 + 1, day.year


def fiscal_matches(doc: LibDoc, ask: FiscalAsk) -> bool:
    """Whether ``doc`` is the filing for ``ask``: by its fiscal label, else by its period."""
    if ask.kind == "ended":
        return bool(doc.period_end and ask.day and abs((doc.period_end - ask.day).days) <= 7)
    if ask.kind == "year":
        return _fiscal_year_of(doc) == ask.year
    if doc.fiscal_period:
        wanted = {f"Q{ask.quarter} FY{ask.year}"} | ({f"FY{ask.year}"} if ask.quarter == 4 else set())
        return doc.fiscal_period in wanted
    return bool(doc.period_end and _calendar_quarter(doc.period_end) == (ask.quarter, ask.year))


def _order(year: int, quarter: int) -> tuple[int, int]:
    return (year, quarter or 4)  # a fiscal year sorts with its fourth quarter


def doc_order(doc: LibDoc) -> tuple[int, int] | None:
    """Where a filing sits among its company's fiscal periods: (fiscal year, quarter)."""
    if match := re.fullmatch(r"(?:Q([1-4]) )?FY(\d{4})", doc.fiscal_period):
        return _order(int(match.group(2)), int(match.group(1) or 0))
    day = doc.period_end or doc.doc_date
    return _calendar_quarter(day)[::-1] if day else None


def ask_order(ask: FiscalAsk) -> tuple[int, int] | None:
    if ask.kind == "ended":
        return _calendar_quarter(ask.day)[::-1] if ask.day else None
    return _order(ask.year, ask.quarter if ask.kind == "quarter" else 0)


def nearest_filings(u_issuers: list[str], asks: list[FiscalAsk], library: list[LibDoc]) -> tuple[LibDoc | None, ...]:
    """The named companies' filings just before and just after the fiscal periods asked."""
    wanted = [o for o in (ask_order(a) for a in asks) if o]
    placed = [(o, d) for d in library if d.issuer in u_issuers and (o := doc_order(d))]
    if not wanted or not placed:
        return None, None
    before = [p for p in placed if p[0] < min(wanted)]
    after = [p for p in placed if p[0] > max(wanted)]
    return (
        max(before, key=lambda p: p[0])[1] if before else None,
        min(after, key=lambda p: p[0])[1] if after else None,
    )
