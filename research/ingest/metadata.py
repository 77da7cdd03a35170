"""Metadata a document states about itself, for uploads that come without it.

Questions name periods ("the August 2024 meeting") and series ("the minutes"); a file uploaded
through the API with no date, period or type would match none of them. When the uploader gave none,
ingestion reads them from the document: the date it was issued (the first full date on its first
page), the period it covers (a date range there — "Meeting, August 6 to 8, 2024", "September
28-30, 2022" — or a fiscal year in a report's title), and a series key from the file name with its
dates removed ("reserve_bank_of_india_06-08-2024.pdf" → "reserve_bank_of_india"), so the files of
one series form one dated series. Generic: dates and names, nothing issuer-specific.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING

from research.ingest.parsed import Page
from research.packs import registry
from research.packs.dates import first_date, first_range
from research.packs.filings.cover import FORM_TYPES, structured_name

if TYPE_CHECKING:
    from research.models import Document

FY_TITLE_RE = re.compile(
    r"\b(?:annual report|report|review|statement)\b[^.\n]{0,40}?\b((?:19|20)\d{2})\s?[-–]\s?(\d{2})\b", re.I
)


@dataclass
class Inferred:
    doc_date: dt.date | None = None
    period_start: dt.date | None = None
    period_end: dt.date | None = None
    doc_type: str = ""


def series_key(filename: str) -> str:
    """The file name without its dates, numbers and extension, as a lower-case slug."""
    stem = PurePath(filename).name.split(".")[0].lower()
    stem = re.sub(r"\d+", " ", stem)
    words = [w for w in re.split(r"[^a-z]+", stem) if w]
    while len(words) > 1 and len("_".join(words)) > 60:  # the type field's length, in whole words
        words.pop()
    return "_".join(words)[:60]


def infer(pages: list[Page], filename: str, title: str) -> Inferred:
    """What the first page and the names say: issue date, covered period, series key."""
    first = " ".join(p.text for p in pages[0].paragraphs) if pages else ""
    found = Inferred(doc_date=first_date(first[:3000]), doc_type=series_key(filename))
    span = first_range(first[:3000])
    if span:
        found.period_start, found.period_end = span
    elif fy := FY_TITLE_RE.search(f"{title}\n{first[:500]}"):
        year = int(fy.group(1))
        if (year + 1) % 100 == int(fy.group(2)):
            start = dt.date(year, registry.FISCAL_YEAR_START_MONTH, 1)  # the packs' calendar
            found.period_start, found.period_end = start, dt.date(year + 1, start.month, 1) - dt.timedelta(days=1)
    return found


def fill_missing_metadata(document: Document, pages: Sequence[Page]) -> None:
    """Set on ``document`` (not saved) what the uploader did not say, read from the document itself:
    its date, the period it covers and its series — so "the August 2024 meeting" finds it."""
    if document.doc_type in FORM_TYPES:
        return  # a filing: its cover was read at upload (packs/filings/cover.py); its first date is not its issue
    named = structured_name(document.filename)
    if named is not None:  # "APPLE_2023Q3_10Q.pdf" is a 10-Q, not a series called "apple q q"
        document.doc_type = document.doc_type or str(named["form"])
        return
    found = infer(list(pages), document.filename, document.title)
    document.doc_date = document.doc_date or found.doc_date
    if document.period_start is None and found.period_start is not None:
        document.period_start, document.period_end = found.period_start, found.period_end
    document.doc_type = document.doc_type or found.doc_type


def recognise_pack(document: Document, pages: Sequence[Page], first: int = 3) -> str:
    """The corpus pack that reads ``document``: from its first pages' text and the type and issuer
    read from it (research/packs/registry.py), never from its file name."""
    text = "\n".join(p.text for page in pages[:first] for p in page.paragraphs)
    return registry.recognise(text, doc_type=document.doc_type, issuer=document.issuer)
