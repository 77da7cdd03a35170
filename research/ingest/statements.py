"""Financial statement tables as rows of data: :func:`extract_statements` reads a parsed document's
page lines and returns each table row with its label, the column periods, the values, the units, the
statement it belongs to and its page.

PDFium gives one line per table row ("Net sales $ 60,584 $ 63,355 …"), so a page is read line by
line, each line classified as one of:

* a **caption** — a statement title ("CONDENSED CONSOLIDATED STATEMENTS OF CASH FLOWS") or the
  sentence that introduces a note's table ("The following table shows … (in millions):") — which
  starts a table and names its statement;
* the **units** ("(In millions, except per share amounts)");
* the **period header** (research/ingest/statement_periods.py);
* a **row**: a label and its values (research/ingest/statement_lines.py);
* a **heading** inside the table ("Cost of sales:"), the parent of the rows under it: a generic
  label is stored with it ("Cost of sales: Products"); a label broken over two lines is joined;
* **prose**, which ends the table.

A table that runs onto the next page keeps its header there. Generic across filers: nothing here
names a company. Pure: no database.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from research.ingest.statement_lines import Cell, is_footnote_marker, split_row
from research.ingest.statement_periods import Column, header_columns, is_header_line
from research.ingest.statement_units import row_unit, statement_kind, table_scale

_TITLE_RE = re.compile(
    r"\bstatements? of (?:consolidated )?(?:operations|income|earnings|cash flows?|comprehensive (?:income|loss)"
    r"|financial (?:position|condition)|(?:changes in )?(?:stockholders|shareholders)['’]? equity)\b"
    r"|\bbalance sheets?\b|\bfinancial highlights\b|\bkey financial metrics\b|\bsummary of consolidated\b",
    re.I,
)
_INTRO_RE = re.compile(r"\bfollowing table\b|\bas follows\b", re.I)
_JOINERS = ("and", "or", "of", "to", "the", "for", "in", "on", "net", ",", "-")
_UNITS_RE = re.compile(
    r"^\(?\s*(?:(?:dollars|amounts|\$)(?: and shares)?\s+)?in (?:millions|thousands|billions)\b"
    r"|^(?:dollars|amounts)(?: and shares)? in (?:millions|thousands|billions)\b",
    re.I,
)
_SKIP_RE = re.compile(r"^(?:see accompanying|the accompanying notes|\(unaudited\)$|unaudited$)", re.I)
_GENERIC = frozenset(
    [
        "products",
        "services",
        "basic",
        "diluted",
        "other",
        "total",
        "net",
        "sales",
        "revenue",
        "revenues",
        "operating",
        "income",
        "beginning",
        "ending",
        "balances",
        "continuing",
        "discontinued",
        "operations",
    ]
)
PROSE_CHARS = 100


@dataclass
class StatementRowDraft:
    """One table row, ready to store: ``cells`` hold one entry per period column, as JSON."""

    statement: str
    caption: str
    section: str
    label: str
    line: str
    unit: str
    cells: list[dict[str, Any]]
    page_number: int
    page_label: str


@dataclass
class _Table:
    caption: str = ""
    statement: str = ""
    units: str = ""
    units_open: bool = False
    columns: list[Column] = field(default_factory=list)
    header: list[str] = field(default_factory=list)
    section: str = ""
    pending: str = ""
    rows: int = 0
    prose: str = ""
    pending_row: bool = False  # the pending line is a row whose values did not fit: only a continuation
    rows_since_header: int = 0

    def start(self, caption: str, *, note: bool = False) -> None:
        """A new table under ``caption``; ``note``: a sentence introducing a table in the notes or
        MD&A ("The following table shows …"), never one of the primary statements themselves."""
        self.__init__()  # type: ignore[misc]
        kind = statement_kind(caption)
        if note and kind not in ("segment_note", "note"):
            kind = "segment_note" if re.search(r"\bsegments?\b", caption, re.I) else "note"
        self.caption, self.statement = caption, kind
        self.units = caption if table_scale(caption) else ""
        # "… were as follows (in" / "millions):" — the caption's units continue on the next line.
        self.units_open = caption.count("(") > caption.count(")")
        if self.units_open:
            self.units = caption


def _continues(pending: str, label: str) -> bool:
    """Whether ``label`` finishes the label broken on the ``pending`` line ("… marketable debt" /
    "securities (282) …", "… 443,222,000 and" / "442,664,000 shares issued … 2 2")."""
    if pending.endswith(":"):
        return False
    return label[:1].islower() or label[:1].isdigit() or pending.lower().endswith(_JOINERS)


def _display_label(label: str, section: str) -> str:
    """ "Products" under "Cost of sales" → "Cost of sales: Products"; a specific label stays as it is."""
    words = re.findall(r"[a-z]+", label.lower())
    if label.lower().startswith("total"):
        return label
    generic = len(words) <= 2 or all(w in _GENERIC or w in ("and", "of", "per", "share") for w in words)
    return f"{section}: {label}" if section and generic else label


def _assign(columns: list[Column], cells: list[Cell]) -> list[tuple[Column, Cell]] | None:
    """The row's cells matched to the table's columns, or None when they cannot be matched."""
    while len(cells) > len(columns) and cells and is_footnote_marker(cells[0]):
        cells = cells[1:]
    periods = [c for c in columns if not c.change]
    plain = [c for c in cells if not c.percent]
    if len(cells) == len(columns):
        pairs = list(zip(columns, cells, strict=True))
    elif len(plain) == len(columns):
        pairs = list(zip(columns, plain, strict=True))
    elif len(columns) > len(periods) and len(cells) > len(columns):
        pairs = list(zip(columns, cells[: len(columns)], strict=True))  # a trailing "%" change column
    elif len(cells) == len(periods):
        pairs = list(zip(periods, cells, strict=True))
    else:
        return None
    return [(col, cell) for col, cell in pairs if not col.change]


def _row(t: _Table, label: str, line: str, cells: list[Cell], page: Any) -> StatementRowDraft | None:
    pairs = _assign(t.columns, cells)
    if not pairs:
        return None
    unit = row_unit(label, t.section, t.units, pairs[0][1])
    return StatementRowDraft(
        statement=t.statement or "table",
        caption=t.caption,
        section=t.section,
        label=_display_label(label, t.section),
        line=line,
        unit=unit,
        cells=[
            col.as_dict() | {"text": cell.text, "value": None if cell.value is None else str(cell.value)}
            for col, cell in pairs
        ],
        page_number=page.number,
        page_label=page.label or str(page.number),
    )


def _data_line(t: _Table, line: str, page: Any, out: list[StatementRowDraft]) -> bool:
    """Handle ``line`` as a table row if it is one (True)."""
    label, cells = split_row(line)
    if not cells or (all(re.fullmatch(r"(?:19|20)\d{2}", c.text) for c in cells) and is_header_line(line)):
        return False  # "Translation 2023 2022" is more of the header
    if t.columns and len(cells) < len(t.columns) and all(is_footnote_marker(c) for c in cells):
        return False  # "Gross Merchandise Volume (3)": a heading and its note's marker, not a row
    if t.header:
        t.columns, t.header = header_columns(" ".join(t.header)), []
        t.section, t.rows_since_header = "", 0
    if not t.columns:
        t.pending = ""
        return True
    if t.pending and _continues(t.pending, label):
        label, line = f"{t.pending} {label}", f"{t.pending} {line}"
    elif t.pending and not t.pending_row:
        t.section = _heading(t.pending)
    t.pending, t.pending_row = "", False
    row = _row(t, label, line, cells, page)
    if row is None:
        # "… 50,400,000 shares authorized; 15,647,868" / "and 15,943,425 shares issued … 70,667 64,849":
        # a label broken after a number; the next line may complete it.
        t.pending, t.pending_row = line, True
        return True
    out.append(row)
    t.rows += 1
    t.rows_since_header += 1
    if label.lower().startswith("total"):
        t.section = ""
    return True


def _text_line(t: _Table, line: str) -> None:
    """A line without values: units, header, prose (ends the table) or a heading."""
    if re.fullmatch(r"(?:[A-Z]{1,2}-)?\d{1,3}", line):
        return  # a printed page number ("F-4", "12")
    if t.units_open:
        t.units, t.units_open = f"{t.units} {line}", "(" in t.units and ")" not in line
        return
    if _UNITS_RE.search(line) and len(line) < PROSE_CHARS:
        t.units, t.units_open = line, line.startswith("(") and ")" not in line
        rest = line.split(")", 1)[1] if line.startswith("(") and ")" in line else ""
        if rest.strip() and is_header_line(rest):
            t.header.append(rest)  # "(In Millions; Unaudited) Apr 1, 2023 Apr 2, 2022"
        return
    if is_header_line(line):
        if not t.header and t.rows:
            t.section = ""
        t.header.append(line)
        return
    if len(line) > PROSE_CHARS and not line.endswith(":"):
        t.columns, t.header, t.pending, t.section = [], [], "", ""
        t.prose = line
        return
    if (
        t.pending
        and not t.pending_row
        and (
            (not t.pending.endswith(":") and line.endswith(":") and len(line.split()) <= 3)
            or _continues(t.pending, line)
        )
    ):
        t.pending = f"{t.pending} {line}"  # a label or heading broken over lines
        return
    if t.header and not t.rows_since_header and not (line.endswith(":") or line.isupper()):
        t.header.append(line)  # "Inc/ (Dec)", "Excluding Currency Translation": more of the header
        return
    if t.pending and not t.pending_row:
        t.section = _heading(t.pending)
    t.pending, t.pending_row = line, False


def _heading(line: str) -> str:
    """A section heading as printed, without its colon or its notes' markers ("Gross Merchandise Volume (3)")."""
    return re.sub(r"(?:\s*\(\d\))+$", "", line.rstrip(":").strip())


def _caption(t: _Table, line: str) -> bool:
    if len(line) <= 140 and _TITLE_RE.search(line) and not re.search(r"\d\s*$", line):
        t.start(line)
        return True
    if _INTRO_RE.search(line):
        # "A reconciliation of the segment operating income … periods" / "ended July 1, 2023 … as follows:"
        before = t.prose if line[:1].islower() else ""
        t.start(f"{before} {line}".strip(), note=True)
        return True
    return False


def extract_statements(pages: list[Any]) -> list[StatementRowDraft]:
    """Every table row found in ``pages`` (parsed pages with ``number``, ``label`` and ``lines``), in order."""
    out: list[StatementRowDraft] = []
    t = _Table()
    for page in pages:
        for raw in getattr(page, "lines", None) or []:
            line = " ".join(raw.split())
            if not line or _SKIP_RE.search(line):
                continue
            if t.units_open or (not _caption(t, line) and not _data_line(t, line, page, out)):
                _text_line(t, line)
    _date_like_columns(out)
    return out


def _date_like_columns(rows: list[StatementRowDraft]) -> None:
    """A column printed with its length and year only (Adobe's segment note: "Three Months" over
    "2023") takes the end date and label of the column of that length and year the filing prints
    most often elsewhere ("Three Months Ended June 2, 2023", its income statement's): the question's
    "quarter ended June 2, 2023" then finds it, and a share reads both lines from the same period.
    A tie leaves it undated."""
    printed: dict[tuple[int, int], Counter[str]] = {}
    labels: dict[tuple[int, str], str] = {}
    for row in rows:
        for cell in row.cells:
            if cell.get("end") and cell.get("months") and cell.get("year"):
                printed.setdefault((cell["months"], cell["year"]), Counter())[cell["end"]] += 1
                key = (cell["months"], cell["end"])
                labels[key] = max(labels.get(key, ""), cell["label"], key=len)
    for row in rows:
        for cell in row.cells:
            months, year = cell.get("months"), cell.get("year")
            counts = printed.get((months, year)) if months and year and not cell.get("end") else None
            ranked = counts.most_common(2) if counts else []
            if ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
                cell["end"] = ranked[0][0]
                cell["label"] = labels[(cell["months"], ranked[0][0])]
