"""What a question asks of a company's financial statements, and which stored rows and cells answer it.

:func:`parse_ask` reads the operation — a line's value ("capital expenditure in the nine months
ended July 1, 2023"), a ratio of two lines ("gross margin percentage", "effective tax rate", "free
cash flow"), growth over a year ("by how much did services revenue grow year over year"), a share
of revenue, or a yes/no test of shares against a threshold ("did any segment exceed 20% of
revenue?") — the statement concepts it names (research/retrieval/statement_terms.py) and the
period (length in months, end date, year). :func:`pick_cell` chooses the column that period names.
Pure: rows arrive as dicts (the store reads them through the selector). Generic across filers.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace
from typing import Any

from research.retrieval.statement_terms import BY_KEY, Concept, concepts_asked, label_rank, match_key

# (question pattern, numerator concept, denominator concept, name, how: "pct" | "minus" | "times")
RATIOS: tuple[tuple[str, str, str, str, str], ...] = (
    (
        r"gross (?:profit )?margin (?:percentage|percent|%|ratio|rate)|gross margin as a percent\w*|"
        r"percentage gross margin|gross margin\b(?!\s+(?:in dollars|dollars|amount))",
        "gross_profit",
        "revenue",
        "gross margin percentage",
        "pct",
    ),
    (r"operating (?:profit )?margin", "operating_income", "revenue", "operating margin", "pct"),
    (r"net (?:profit )?margin|profit margin", "net_income", "revenue", "net margin", "pct"),
    (r"effective (?:income )?tax rate", "income_tax", "pretax_income", "effective tax rate", "pct"),
    (r"free cash flow|\bfcf\b", "operating_cash_flow", "capex", "free cash flow", "minus"),
    (r"current ratio", "current_assets", "current_liabilities", "current ratio", "times"),
)
_DIRECT = {"effective tax rate": "effective_tax_rate", "free cash flow": "free_cash_flow"}
_GROWTH = re.compile(
    r"\b(?:grow|grew|grown|growth|increas\w*|decreas\w*|declin\w*|chang\w*|year[- ]over[- ]year|yoy|y/y|"
    r"compared (?:to|with)|versus|vs\.?|by how much)\b",
    re.I,
)
# A question opening with an auxiliary asks yes or no ("Did …", "Was more than half of …").
YES_NO = re.compile(r"^\s*(?:did|does|do|was|were|is|are|has|have)\b", re.I)
_THRESHOLD = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|per ?cent|percent)")
_SHARE = re.compile(r"\b(?:share|percent(?:age)?|proportion|portion|fraction)\s+of\b|%\s+of\b", re.I)
_MONTHS = (
    (re.compile(r"\b(?:three|3)[- ]months?\b|\bquarter(?:ly)?\b|\bq[1-4]\b", re.I), 3),
    (re.compile(r"\b(?:six|6)[- ]months?\b|\bhalf[- ]year\b|\bh[12]\b", re.I), 6),
    (re.compile(r"\b(?:nine|9)[- ]months?\b", re.I), 9),
    (re.compile(r"\b(?:twelve|12)[- ]months?\b|\bfull[- ]year\b|\bannual\b|\bfiscal (?:year )?\d{4}\b", re.I), 12),
)
_WEEKS = re.compile(r"\b(\d{1,2})[- ]weeks?\b", re.I)
_DATE = re.compile(
    r"\b(january|february|march|april|may|june|july|august|september|october|november|december)\s+(\d{1,2}),?\s+"
    r"((?:19|20)\d{2})\b",
    re.I,
)
_YEAR = re.compile(r"(?<![\d,.])((?:19|20)\d{2})(?![\d,.])")
_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october")
_MONTH_NUMBERS = {m: i for i, m in enumerate((*_MONTH_NAMES, "november", "december"), start=1)}


@dataclass(frozen=True)
class Ask:
    op: str  # value | ratio | growth | share | share_test
    concepts: tuple[str, ...]  # concept keys named, most specific first
    ratio: tuple[str, str, str, str] | None = None  # (numerator, denominator, name, how)
    months: int | None = None
    end: dt.date | None = None
    year: int | None = None
    threshold: float | None = None
    group: str = ""  # "segment" | "category" for a share test
    fiscal: bool = False  # the year is a fiscal year ("fiscal 2023"): its columns may end the year before

    @property
    def needed(self) -> tuple[str, ...]:
        """Every concept whose rows the answer may need."""
        extra = self.ratio[:2] if self.ratio else ()
        direct = (_DIRECT[self.ratio[2]],) if self.ratio and self.ratio[2] in _DIRECT else ()
        base = ("revenue",) if self.op in ("share", "share_test") else ()
        return tuple(dict.fromkeys((*self.concepts, *extra, *direct, *base)))


_FISCAL = re.compile(r"\b(?:fiscal(?: year)?|FY)\s*'?(?:19|20)\d{2}\b", re.I)


def _period(question: str) -> tuple[int | None, dt.date | None, int | None]:
    months = next((n for pattern, n in _MONTHS if pattern.search(question)), None)
    weeks = _WEEKS.search(question)
    if weeks:
        months = max(1, round(int(weeks.group(1)) / 52 * 4)) * 3
    date = _DATE.search(question)
    end = None
    if date:
        try:
            end = dt.date(int(date.group(3)), _MONTH_NUMBERS[date.group(1).lower()], int(date.group(2)))
        except ValueError:
            end = None
    years = _YEAR.findall(_DATE.sub(" ", question))
    year = end.year if end else (int(years[0]) if years else None)
    return months, end, year


def parse_ask(question: str) -> Ask | None:
    """What ``question`` asks of the statements, or None when it names no statement line."""
    ask = _parse_ask(question)
    return replace(ask, fiscal=True) if ask and _FISCAL.search(question) else ask


def _parse_ask(question: str) -> Ask | None:
    concepts = tuple(c.key for c in concepts_asked(question))
    months, end, year = _period(question)
    threshold = _THRESHOLD.search(question)
    if YES_NO.search(question) and threshold and re.search(r"\bsegments?\b|\bcategor|\bproducts?\b", question, re.I):
        group = "segment" if re.search(r"\bsegments?\b", question, re.I) else "category"
        return Ask(
            "share_test",
            concepts or ("revenue",),
            threshold=float(threshold.group(1)),
            group=group,
            months=months,
            end=end,
            year=year,
        )
    for pattern, numerator, denominator, name, how in RATIOS:
        if re.search(pattern, question, re.I):
            return Ask("ratio", concepts, ratio=(numerator, denominator, name, how), months=months, end=end, year=year)
    if not concepts:
        return None
    if _SHARE.search(question) and "revenue" in concepts:
        return Ask("share", concepts, months=months, end=end, year=year)
    if _GROWTH.search(question):
        return Ask("growth", concepts, months=months, end=end, year=year)
    return Ask("value", concepts, months=months, end=end, year=year)


# Labels that name no line of their own: a question saying "total revenue" names revenue, not a "Total" row.
GENERIC_LABELS = frozenset({"total", "totals", "subtotal", "other", "net", "all other", "total other"})


def own_label(row: dict[str, Any]) -> str:
    """The row's label without the section heading it was printed under ("Membership fees" of
    "REVENUE: Membership fees")."""
    return str(row["label"]).rsplit(": ", 1)[-1]


def _named(question: str, row: dict[str, Any]) -> bool:
    """The question names the row's own label: word for word, or every word of a label of three
    words or more ("sales by McDonald's company-operated restaurants" names "Sales by
    Company-operated restaurants"), a leading "Total" aside ("Digital Media segment revenue" names
    "Total Digital Media revenue")."""
    return named_words(question, row) > 0


def named_words(question: str, row: dict[str, Any]) -> int:
    """How many words of the row's own label the question names (0: it does not name the row, by
    :func:`_named`'s rule). More words is a fuller naming: "Digital Media segment revenue" names
    "Total Digital Media revenue" (3 words) more fully than a "Digital Media" line (2 words)."""
    key = match_key(own_label(row))
    asked = match_key(question)
    if len(key) < 3 or key in GENERIC_LABELS:
        return 0
    words = key.split()
    if f" {key} " in f" {asked} ":
        return len(words)
    named = words[1:] if words[0] == "total" and len(words) > 1 else words
    return len(named) if len(named) >= 3 and set(named) <= set(asked.split()) else 0


def named_lines(question: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows the question names most fully (:func:`named_words`), in order; [] when it names none."""
    counts = [named_words(question, r) for r in rows]
    most = max(counts, default=0)
    return [r for r, n in zip(rows, counts, strict=True) if most and n == most]


def _counts(concept: Concept, row: dict[str, Any], rows: list[dict[str, Any]]) -> bool:
    """The row counts the concept: its heading, table or label says so, or its table (same caption
    and heading, neither the heading nor the label naming another line) totals the concept ("Data Center and AI" above
    "Total net revenue")."""
    if concept in concepts_asked(f"{row['section']} {row['caption']} {row['label']}"):
        return True
    if concepts_asked(row["section"]) or concepts_asked(own_label(row)):
        return False
    same = (row["document_id"], row["caption"], row["section"])
    return any(
        (r["document_id"], r["caption"], r["section"]) == same and label_rank(concept, own_label(r)) is not None
        for r in rows
    )


def item_rows(question: str, concept: Concept, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows whose own label the question names ("services", "iPhone", "Americas", "membership
    fees") and that count the concept asked (a "Services" row under "Net sales", not under "Cost of
    sales") without being the concept's own line ("Total net sales")."""
    named = [r for r in rows if _named(question, r) and label_rank(concept, own_label(r)) is None]
    counted = [r for r in named if _counts(concept, r, rows)]
    return sorted(counted, key=lambda r: -named_words(question, r))  # the fullest naming first


def asked_lines(question: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The line the question asks, when it names one (:func:`item_rows` of the first concept it
    names that has any): the rows naming it most fully — "Digital Media segment revenue" asks the
    "Total Digital Media revenue" line, not the "Digital Media" line of subscription revenue beside
    it. [] when the question names no line but the concept's own ("revenue"), and for a ratio (a
    printed "Gross margin percentage" line and the margin computed from its two lines agree)."""
    ask = parse_ask(question)
    for key in ask.concepts if ask and ask.op in ("value", "growth", "share") else ():
        items = item_rows(question, BY_KEY[key], rows)
        if items:
            most = named_words(question, items[0])
            return [r for r in items if named_words(question, r) == most]
    return []


def _rank(concept: Concept, row: dict[str, Any]) -> int | None:
    found = label_rank(concept, row["label"])
    return found if found is not None else label_rank(concept, own_label(row))


def best_rows(concept_key: str, rows: list[dict[str, Any]], question: str = "") -> list[dict[str, Any]]:
    """The rows that print the concept, best label first, its own statement before notes, in order.
    A line of the concept's own statement that the question names (:func:`_named`) comes first:
    "net sales" is the "Net sales" line, not "Total revenue" (which adds membership fees), though both
    print revenue — but not a segment's "Americas: Net sales" in a note."""
    concept = BY_KEY[concept_key]
    ranked = [(_rank(concept, r), r) for r in rows]
    fits = [(rank, r) for rank, r in ranked if rank is not None and r.get("chunk_id")]

    def order(item: tuple[int, dict[str, Any]]) -> tuple[bool, int, bool, int]:
        rank, row = item
        named = row["statement"] in concept.statements and _named(question, row)
        return (not named, rank, row["statement"] not in concept.statements, row["order"])

    fits.sort(key=order)
    return [r for _rank, r in fits]


def pick_cell(cells: list[dict[str, Any]], ask: Ask) -> dict[str, Any] | None:
    """The column the question's period names — its length, end date or year — the first (latest)
    when it names none; None when the table has no column for the period asked."""

    def score(item: tuple[int, dict[str, Any]]) -> tuple[int, int]:
        index, cell = item
        points = 0
        if ask.months and cell.get("months") is not None:
            points += 4 if cell["months"] == ask.months else -4
        if ask.end:
            points += 6 if cell.get("end") == ask.end.isoformat() else -2
        elif ask.year:
            points += 3 if cell.get("year") == ask.year else 1 if ask.fiscal else -3
        return points, -index

    usable = [(i, c) for i, c in enumerate(cells) if c.get("value") is not None and _matches(c, ask)]
    return max(usable, key=score)[1] if usable else None


def _matches(cell: dict[str, Any], ask: Ask) -> bool:
    """The column is for the period asked (a period the table does not have is never swapped for
    another): same end date, else same year; same length unless the column is a point in time."""
    if ask.end and cell.get("end") != ask.end.isoformat():
        return False
    years = (ask.year, ask.year - 1) if ask.fiscal and ask.year else (ask.year,)
    if not ask.end and ask.year and cell.get("year") not in years:
        return False
    return not (ask.months and cell.get("months") is not None and cell["months"] != ask.months)


def prior_cell(cells: list[dict[str, Any]], current: dict[str, Any]) -> dict[str, Any] | None:
    """The same-length column a year before ``current`` (for a balance sheet, the other date)."""
    for cell in cells:
        if cell is current or cell.get("value") is None or cell.get("months") != current.get("months"):
            continue
        if current.get("year") and cell.get("year") == current["year"] - 1:
            return cell
    if current.get("months") is None:
        return next((c for c in cells if c is not current and c.get("value") is not None), None)
    return None


def same_column(row: dict[str, Any], cell: dict[str, Any]) -> dict[str, Any] | None:
    """The cell of ``row`` in the column labelled like ``cell`` (same period)."""
    return next((c for c in row["cells"] if c["label"] == cell["label"] and c.get("value") is not None), None)


def wanted(ask: Ask, question: str, rows: list[dict[str, Any]], limit: int = 80) -> list[dict[str, Any]]:
    """The rows an answer to ``ask`` may use: those printing a needed concept, the lines the
    question names, and for a share test the segment (or category) rows."""
    concepts = [BY_KEY[key] for key in ask.needed]
    keep: list[dict[str, Any]] = []
    for row in rows:
        fits = any(_rank(concept, row) is not None for concept in concepts)
        named = _named(question, row)
        where = f"{row['section']} {row['caption']}"
        grouped = ask.op == "share_test" and (
            row["statement"] == "segment_note" or bool(re.search(r"segment|categor|product", where, re.I))
        )
        if fits or named or grouped:
            keep.append(row)
    return keep[:limit]


_TITLE_NOISE = frozenset({"form", "quarterly", "annual", "report", "earnings", "release", "results", "filing"})


def documents_for(question: str, passages: list[dict[str, Any]], limit: int = 3) -> list[int]:
    """The documents to read statement rows from when the question named none: those of the
    retrieved passages, best ranked first, a document whose title the question names ("Apple")
    before the others."""
    titles = {int(p["document_id"]): str(p.get("document_title", "")) for p in reversed(passages)}
    ranked = list(dict.fromkeys(int(p["document_id"]) for p in passages))
    return prefer_named(question, [(doc, titles[doc]) for doc in ranked])[:limit]


def prefer_named(question: str, documents: list[tuple[int, str]]) -> list[int]:
    """Document ids in the given order, those whose title the question names ("Costco") first."""
    asked = set(re.findall(r"[a-z]{3,}", question.lower()))

    def named(title: str) -> bool:
        return bool((set(re.findall(r"[a-z]{3,}", title.lower())) - _TITLE_NOISE) & asked)

    return [doc for doc, _title in sorted(documents, key=lambda d: not named(d[1]))]
