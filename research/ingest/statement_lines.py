"""One line of a financial table, as PDFium extracts it: a row label followed by its values.

"Payments for acquisition of property, plant and equipment (8,796) (7,419)" splits into the label
and the cells "(8,796)" and "(7,419)"; "Americas $ 35,383 $ 37,472 (6)% …" into the label and
"35,383", "37,472", "(6)%" …. A cell keeps its text as printed (what a citation quotes) and its value
as a Decimal: parentheses are negative, a dash is a nil amount (zero), "%" marks a percentage.
Pure; generic across filers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

DASHES = frozenset({"—", "–", "-", "−"})
# One value token: "$", "(1,234)", "1,234.5", "-0.1%", "(6)%", "5", "%", "—", "**", "n/m".
_NUMBER = re.compile(r"^\$?\(?\$?-?\d(?:[\d,]*\d)?(?:\.\d+)?\)?%?\)?$|^\$?\.\d+%?$")
# A label ending in a date's month and day ("Balance at December 31,") continues with its year.
_ENDS_WITH_MONTH_DAY = re.compile(r"\b[A-Z][a-z]{2,8}\.? \d{1,2},?$")
_NOT_MEANINGFUL = frozenset({"**", "*", "n/m", "nm", "n/a", "nmf"})


@dataclass(frozen=True)
class Cell:
    """A value as printed ("(8,796)", "1.26", "—", "(6)%") and as a number (None: not meaningful)."""

    text: str
    value: Decimal | None
    percent: bool = False

    @property
    def figure(self) -> str:
        """The digits as printed, without sign marks ("8,796" for "(8,796)"): what a quote shows."""
        return self.text.strip("$()%−- ") if self.value is not None else self.text


def parse_cell(text: str) -> Cell | None:
    """The cell printed as ``text`` ("$ (1,234)" written without spaces), or None if it is not one."""
    raw = text.replace("$", "").strip()
    if raw in DASHES:
        return Cell(text=raw, value=Decimal(0))
    if raw.lower() in _NOT_MEANINGFUL:
        return Cell(text=raw, value=None)
    if not _NUMBER.match(text.replace(" ", "")):
        return None
    percent = raw.endswith("%") or raw.endswith("%)")
    negative = raw.startswith("(") or raw.startswith("-") or raw.startswith("−")
    digits = raw.strip("()%−-").replace(",", "")
    try:
        value = Decimal(digits)
    except InvalidOperation:
        return None
    return Cell(text=raw, value=-value if negative else value, percent=percent)


def _tokens(line: str) -> list[str]:
    """Whitespace tokens with a lone "$" joined to the number after it and a lone "%" to the one before."""
    out: list[str] = []
    for token in line.split():
        if out and out[-1] == "$":
            out[-1] = "$" + token
        elif token in ("%", ")%") and out:
            out[-1] += token
        else:
            out.append(token)
    return out


def split_row(line: str) -> tuple[str, list[Cell]]:
    """(label, cells) of a table line: the longest run of value tokens at the line's end, and the
    words before it. A line with no trailing values has no cells; a label must hold a word (or an
    abbreviation: eBay's GMV by region prints "U.S. $ 9,010 …")."""
    tokens = _tokens(line)
    cells: list[Cell] = []
    cut = len(tokens)
    while cut > 0:
        cell = parse_cell(tokens[cut - 1])
        if cell is None:
            break
        cells.insert(0, cell)
        cut -= 1
    label = " ".join(tokens[:cut])
    if cells and _ENDS_WITH_MONTH_DAY.search(label) and re.fullmatch(r"(?:19|20)\d{2}", cells[0].text):
        label = f"{label} {cells.pop(0).text}"
    label = label.rstrip(" $:")
    if not re.search(r"[A-Za-z]{2,}|\b(?:[A-Z]\.){2,}", label):  # a word, or an abbreviation: "U.S."
        return line, []
    return label, cells


def is_footnote_marker(cell: Cell) -> bool:
    """ "(1)" printed after a label ("Cost of net revenues (1) 700 689") is a note, not a value."""
    return bool(re.fullmatch(r"\(\d\)", cell.text))
