"""What a company filing says about itself on its cover: the company, the form, the fiscal period
and the date it was filed or issued.

Read from the text of the first pages, as an analyst reads them:

* **SEC forms** (10-K, 10-Q, 8-K, 20-F, …): "FORM 10-Q" under "SECURITIES AND EXCHANGE COMMISSION";
  the company is the line above "(Exact name of registrant as specified in its charter)"; the
  period is "For the quarterly period ended …" / "For the fiscal year ended …"; the filing date is
  the date of the signature ("… has duly caused this report to be signed … Date: August 3, 2023"),
  for an 8-K its "Date of Report".
* **Earnings releases** (a company's news release of its results, often filed as Exhibit 99.1):
  "NEWS RELEASE" / "FOR IMMEDIATE RELEASE" / "Exhibit 99.1" with "… today reported/announced …";
  the company is the legal name before "today", the period "… first quarter ended March 31, 2023",
  the label "First Quarter 2023" / "third quarter … of fiscal 2023", the date the dateline's.

The fiscal label ("Q3 FY2023", "FY2018") is what the document says ("Q3 2023 Form 10-Q", "third
quarter of fiscal 2023"); failing that, a 10-Q's quarter is told by its statements' longest column
("Nine Months Ended" → Q3) and the fiscal year is named by the calendar year it ends in (the usual
convention: Apple's FY2023 ends in September 2023). A file name is used only when it is clearly
structured (``COMPANY_2023Q3_10Q.pdf``) and only for what the cover does not say — and a name that
contradicts the cover's period is ignored. Generic: patterns of the forms, nothing per company.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

from research.packs.dates import DATE_RE, first_date

EARNINGS_RELEASE = "earnings_release"
PRESS_RELEASE = "press_release"
SIGNED_FORMS = ("10-K", "10-Q", "20-F", "40-F")  # filing date = the signature's, on a page far from the cover
FORM_TYPES = ("10-K", "10-Q", "8-K", "20-F", "40-F", "6-K", EARNINGS_RELEASE, PRESS_RELEASE)
COVER = "cover page"
SIGNATURE = "signature page"
STATEMENTS = "financial statements"
FILE_NAME = "file name"
ESTIMATED = "estimated from the period's end"

_SEC = re.compile(r"SECURITIES\s+AND\s+EXCHANGE\s+COMMISSION", re.I)
_FORM = re.compile(r"\bFORM\s+(10-K|10-Q|8-K|20-F|40-F|6-K)\b", re.I)
_RELEASE = re.compile(r"\b(NEWS RELEASE|PRESS RELEASE|FOR IMMEDIATE RELEASE|Exhibit 99\.1)\b", re.I)
_TODAY = re.compile(r"\btoday\s+(?:announced|reported)\b", re.I)
_RESULTS = re.compile(r"\b(results|quarter|fiscal year)\b", re.I)
_REGISTRANT = re.compile(r"\(\s*Exact name of registrant as specified in its charter\s*\)", re.I)
_SUFFIX = (
    r"(?:Inc\.?|Incorporated|Corporation|Corp\.|Company|Co\.|Ltd\.?|Limited|plc|PLC|N\.V\.|S\.A\.|AG|SE|LLC|L\.P\.)"
)
# A legal name: up to five words, each with a capital letter ("eBay", "McDonald's", "JPMorgan",
# "Chase", "&"), ending in a legal suffix: "Costco Wholesale Corporation", "eBay Inc.".
_NAME_WORD = r"(?:(?=[\w'’&.-]*[A-Z])[A-Za-z][\w'’&.-]*|&)"
_LEGAL_NAME = re.compile(rf"\b((?:The[ \t]+)?(?:{_NAME_WORD}[ \t]+){{0,4}}?{_NAME_WORD},?[ \t]+{_SUFFIX})(?![\w])")
_DATE = rf"(?:{DATE_RE.pattern})"
_PERIOD_ENDED = re.compile(
    r"for the (quarterly period|fiscal year|year|fiscal quarter|quarter)\s+ended\s*(?:[A-Za-z ]{0,30}\n)?\s*"
    rf"(?P<date>{_DATE})",
    re.I,
)
_DATE_OF_REPORT = re.compile(rf"Date of Report[^:]{{0,60}}:\s*(?P<date>{_DATE})", re.I)
_SIGNED = re.compile(r"duly\s+caused\s+this\s+(?:report|amendment)\b[^.]{0,40}?to\s+be\s+signed", re.I)
_DATE_LINE = re.compile(rf"\bDate[d]?\s*:?\s*(?P<date>{_DATE})")
_NUMERIC_DATE = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/((?:19|20)\d{2})(?![\d/])")
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_QUARTER_WORDS = re.compile(
    r"\b(first|second|third|fourth)[- ]quarter\b[^.]{0,80}?\b(?:fiscal(?:\s+year)?\s*|FY\s*)?((?:19|20)\d{2})\b", re.I
)
_QUARTER_SHORT = re.compile(r"\bQ([1-4])\s*(?:FY\s*|fiscal\s+)?'?((?:19|20)\d{2})\b", re.I)
_RELEASE_ENDED = re.compile(
    rf"\b(first|second|third|fourth)[- ]quarter\b[^.]{{0,120}}?\bended\s+(?P<date>{_DATE})", re.I
)
_WEEKS = re.compile(r"\((twelve|thirteen|fourteen|sixteen|seventeen|12|13|14|16|17)\s+weeks\)", re.I)
_WEEK_WORDS = {"twelve": 12, "thirteen": 13, "fourteen": 14, "sixteen": 16, "seventeen": 17}
_MONTHS_ENDED = re.compile(r"\b(three|six|nine)\s+months\s+ended\b", re.I)
_STRUCTURED_NAME = re.compile(
    r"^(?P<company>[A-Za-z][A-Za-z0-9&.]*(?:[-\s][A-Za-z0-9&.]+)*?)[_\s]+(?P<year>(?:19|20)\d{2})(?:\s*Q(?P<q>[1-4]))?"
    r"[_\s]+(?P<form>10-?K|10-?Q|8-?K|20-?F|EARNINGS|PRESS[_\s-]?RELEASE)$",
    re.I,
)


@dataclass
class FilingMeta:
    """What a filing says about itself; ``sources`` names where each field was read."""

    issuer: str = ""
    form_type: str = ""
    period_start: dt.date | None = None
    period_end: dt.date | None = None
    fiscal_period: str = ""
    filed: dt.date | None = None
    sources: dict[str, str] = field(default_factory=dict)


def _to_date(match: re.Match[str] | None) -> dt.date | None:
    return first_date(match.group("date").replace("\n", " ")) if match else None


def _clean(text: str) -> str:
    # PDFium writes U+FFFE for a hyphen at a line break and, in some releases, for the "fi"
    # ligature ("\ufffescal 2023"): read the one at a line's end as "-", any other as "fi".
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u00a0", " ")
    return re.sub("\ufffe(?!\n)", "fi", text).replace("\ufffe", "-")


def _form_and_kind(head: str) -> str:
    cover = head[:5000]  # an SEC cover opens the document; a release may cite forms further on
    if _SEC.search(cover) and (form := _FORM.search(cover)):
        return form.group(1).upper()
    if _RELEASE.search(head[:1500]) and _TODAY.search(head):
        return EARNINGS_RELEASE if _RESULTS.search(head[:3000]) else PRESS_RELEASE
    return ""


def _registrant(head: str) -> str:
    match = _REGISTRANT.search(head)
    if not match:
        return ""
    lines = [line.strip() for line in head[: match.start()].splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


def _release_company(head: str) -> str:
    for today in _TODAY.finditer(head):
        # The legal name nearest before "today announced": the dateline's subject.
        if names := [m.group(1) for m in _LEGAL_NAME.finditer(head[max(0, today.start() - 400) : today.start()])]:
            return names[-1]
    return ""


def proper_case(name: str, text: str) -> str:
    """A name printed in capitals ("ADOBE INC.") as the document writes it elsewhere ("Adobe Inc."),
    else in title case with the legal suffix kept ("Activision Blizzard, Inc.")."""
    name = " ".join(name.split())
    if not name.isupper():
        return name
    pattern = r"\s+".join(re.escape(part) for part in name.split())
    for match in re.finditer(pattern, text, re.I):
        if not match.group(0).isupper() and match.group(0)[:1].isupper():
            return " ".join(match.group(0).split())
    # Short all-capital words are acronyms ("AES"), except the small words of a name.
    words = name.split()
    return " ".join(
        w if len(w) <= 3 and w.isalpha() and w not in {"THE", "INC", "AND", "OF"} else w.title() for w in words
    )


def _fy_of(end: dt.date, months_left: int) -> int:
    """The fiscal year a period ending on ``end`` belongs to, named by the calendar year the fiscal
    year ends in (a year ending in the first days of January counts as the year before)."""
    year_end = _add_months(end, months_left) - dt.timedelta(days=10)
    return year_end.year


def _add_months(day: dt.date, months: int) -> dt.date:
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return dt.date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _explicit_quarter(text: str) -> tuple[int, int] | None:
    found = [(m.start(), ORDINALS[m.group(1).lower()], int(m.group(2))) for m in _QUARTER_WORDS.finditer(text)]
    found += [(m.start(), int(m.group(1)), int(m.group(2))) for m in _QUARTER_SHORT.finditer(text)]
    if not found:
        return None
    _, q, year = min(found)
    return q, year


def _quarter_from_statements(pages: Sequence[str]) -> int | None:
    """A 10-Q's quarter from its statements' longest column: "Nine Months Ended" is the third."""
    spans = {m.group(1).lower() for page in pages for m in _MONTHS_ENDED.finditer(page)}
    if not spans:
        return None
    return max({"three": 1, "six": 2, "nine": 3}[s] for s in spans)


def _quarter_start(end: dt.date, head: str) -> dt.date:
    weeks = _WEEKS.search(head)
    if weeks:
        word = weeks.group(1).lower()
        count = int(word) if word.isdigit() else _WEEK_WORDS[word]
        return end - dt.timedelta(weeks=count) + dt.timedelta(days=1)
    return _months_before(end, 3)


def _months_before(end: dt.date, months: int) -> dt.date:
    """The first day of the ``months`` that end on ``end`` (30 June → 1 April; 1 July → 2 April)."""
    if end.day == calendar.monthrange(end.year, end.month)[1]:
        return _add_months(end.replace(day=1), 1 - months)
    return _add_months(end, -months) + dt.timedelta(days=1)


def signature_date(pages: Sequence[str]) -> dt.date | None:
    """The date under "… has duly caused this report to be signed …" on the first page that has it."""
    for page in pages:
        signed = _SIGNED.search(page)
        if signed and (date := _DATE_LINE.search(page, signed.end())):
            return _to_date(date)
    return None


def _release_date(head: str) -> dt.date | None:
    for line in head.splitlines()[:12]:
        if numeric := _NUMERIC_DATE.search(line):
            month, day, year = (int(g) for g in numeric.groups())
            try:
                return dt.date(year, month, day)
            except ValueError:
                continue
    today = _TODAY.search(head)
    return first_date(head[max(0, today.start() - 300) : today.start()]) if today else None


def structured_name(filename: str) -> dict[str, str | int] | None:
    """``COMPANY_2023Q3_10Q.pdf`` → company, fiscal year, quarter and form; ``None`` for any other name."""
    stem = PurePath(filename).name.rsplit(".", 1)[0]
    match = _STRUCTURED_NAME.match(stem.strip())
    if not match:
        return None
    form = match.group("form").upper().replace("_", "").replace(" ", "")
    form = {"10K": "10-K", "10Q": "10-Q", "8K": "8-K", "20F": "20-F", "EARNINGS": EARNINGS_RELEASE}.get(form, form)
    form = PRESS_RELEASE if form.startswith("PRESS") else form
    return {
        "company": match.group("company").replace("_", " ").title(),
        "year": int(match.group("year")),
        "quarter": int(match.group("q") or 0),
        "form": form,
    }


def detect_filing(pages: Sequence[str], filename: str = "") -> FilingMeta:
    """The filing's metadata from the text of its pages (all of them, or at least the first few and
    the signature page); empty when it is not a filing."""
    pages = [_clean(p) for p in pages]
    head = "\n".join(pages[:3])[:20000]
    meta = FilingMeta()
    form = _form_and_kind(head)
    if form:
        meta.form_type, meta.sources["doc_type"] = form, COVER
        company = _release_company(head) if form in (EARNINGS_RELEASE, PRESS_RELEASE) else _registrant(head)
        if company:
            meta.issuer, meta.sources["issuer"] = proper_case(company, "\n".join(pages[:40])), COVER
        _read_period(meta, pages, head)
        _read_date(meta, pages, head)
    _fill_from_name(meta, filename)
    return meta


def _read_period(meta: FilingMeta, pages: Sequence[str], head: str) -> None:
    if meta.form_type in (EARNINGS_RELEASE, PRESS_RELEASE):
        ended = _RELEASE_ENDED.search(head)
        meta.period_end = _to_date(ended)
        quarter = _explicit_quarter(head)
        if quarter:
            meta.fiscal_period = f"Q{quarter[0]} FY{quarter[1]}"
    elif meta.form_type in ("10-K", "10-Q", "20-F", "40-F"):
        ended = _PERIOD_ENDED.search(head)
        meta.period_end = _to_date(ended)
        if meta.period_end and meta.form_type != "10-Q":
            meta.fiscal_period = f"FY{_fy_of(meta.period_end, 0)}"
        elif meta.period_end:
            _label_quarter(meta, pages)
    if meta.period_end:
        meta.sources["period_end"] = COVER
        annual = meta.fiscal_period.startswith("FY")
        yearly_start = _months_before(meta.period_end, 12)
        meta.period_start = yearly_start if annual else _quarter_start(meta.period_end, head)
        meta.sources["period_start"] = ESTIMATED
    if meta.fiscal_period:
        meta.sources.setdefault("fiscal_period", COVER)


def _label_quarter(meta: FilingMeta, pages: Sequence[str]) -> None:
    """A 10-Q's label: as the document writes it ("Q3 2023 Form 10-Q"), else from its statements."""
    assert meta.period_end is not None
    explicit = _explicit_quarter("\n".join(pages[:6]))
    if explicit and _consistent(explicit[0], explicit[1], meta.period_end):
        meta.fiscal_period = f"Q{explicit[0]} FY{explicit[1]}"
        return
    quarter = _quarter_from_statements(pages[:12])
    if quarter:
        meta.fiscal_period = f"Q{quarter} FY{_fy_of(meta.period_end, 3 * (4 - quarter))}"
        meta.sources["fiscal_period"] = STATEMENTS


def _consistent(quarter: int, year: int, end: dt.date) -> bool:
    """Whether "Q``quarter`` FY``year``" can end on ``end``: a fiscal year's quarters end in its own
    calendar year or the one before (Apple's Q1 FY2023 ended on 31 December 2022)."""
    return end.year in (year, year - 1, year + 1 if end.month == 1 else year) and (quarter < 4 or end.year >= year)


def _read_date(meta: FilingMeta, pages: Sequence[str], head: str) -> None:
    if meta.form_type in (EARNINGS_RELEASE, PRESS_RELEASE):
        meta.filed = _release_date(head)
    elif meta.form_type in ("8-K", "6-K"):
        meta.filed = _to_date(_DATE_OF_REPORT.search(head))
    else:
        meta.filed = signature_date(pages)
        if meta.filed:
            meta.sources["doc_date"] = SIGNATURE
            return
    if meta.filed:
        meta.sources["doc_date"] = COVER


def _fill_from_name(meta: FilingMeta, filename: str) -> None:
    """What the cover did not say, from a clearly structured file name — unless the name
    contradicts the cover (a file named "2022Q2" for a quarter that ended in June 2023)."""
    named = structured_name(filename) if filename else None
    if named is None:
        return
    year, quarter, form = int(named["year"]), int(named["quarter"]), str(named["form"])
    if not meta.form_type:
        meta.form_type, meta.sources["doc_type"] = form, FILE_NAME
    if not meta.issuer:
        meta.issuer, meta.sources["issuer"] = str(named["company"]), FILE_NAME
    if meta.fiscal_period or meta.form_type not in ("10-K", "10-Q", EARNINGS_RELEASE, "20-F"):
        return
    label = f"Q{quarter} FY{year}" if quarter else f"FY{year}"
    if meta.period_end is None or _consistent(quarter or 4, year, meta.period_end):
        meta.fiscal_period, meta.sources["fiscal_period"] = label, FILE_NAME


__all__ = ["FORM_TYPES", "FilingMeta", "detect_filing", "proper_case", "structured_name"]
