"""Which page label a citation shows, chosen so that it cannot mislead.

1. The PDF's own page labels (``/PageLabels``), when it has them: the parser sets them before the
   text is looked at, and they are kept; only the line printing that label is taken out of the text.
2. Otherwise printed page numbers — but only where they form a consistent sequence. A number on one
   of the first or last lines of a page ("12", "Page 12", "- 12 -", "F-12", "xii", a footer ending
   "| 12" or "Page 12 of 40") is a *candidate*. Candidates of one style (arabic, roman, or a prefix
   such as "F-") at one offset from the physical page form a *run* when at least three pages carry
   them (two for a prefixed style), each within ``MAX_GAP`` pages of the next. Every page inside a
   run takes its label from it (a page of the run whose number sits mid-page, as tables often put
   it, is labelled from the run), so an exhibit that restarts at 1 is a run of its own, and a lone
   digit — a footnote mark, a table cell at the foot of a page — never becomes a page number.
3. Otherwise the physical page: the page's 1-based position in the file.

A citation shows the label, plus the physical page when the two differ (``Chunk.citation``); the
document viewer always opens the physical page.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from research.ingest.parsed import Page

EDGE_LINES = 3  # lines looked at on each edge of a page
MIN_RUN = 3  # pages that must agree before a printed number is trusted ...
MIN_RUN_PREFIXED = 2  # ... or two for numbers such as "F-1", "F-2", which no footnote or table cell looks like
MAX_GAP = 12  # physical pages from one page of a run to the next one that shows its number
MAX_LABEL = 20  # Chunk.page_label's length

# The whole line is a page number: "12", "Page 12", "- 12 -", "F-12", "xii".
_BARE = re.compile(
    r"^(?:[Pp]age\s+)?[-–]?\s*(?:(?P<prefix>[A-Z]{1,2}-)?(?P<num>\d{1,4})|(?P<roman>[ivxlc]{1,8}))\s*[-–]?$"
)
# A short running header or footer ending in the number: "Apple Inc. | Q3 2023 Form 10-Q | 4",
# "Intel/Page 4", "Confidential - page 4 of 5".
_TRAILING = re.compile(r"(?:\||\b[Pp]age)\s*(?P<num>\d{1,4})(?:\s+of\s+\d{1,4})?$")
_TRAILING_MAX_CHARS = 80
_ROMAN = [(100, "c"), (90, "xc"), (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]
ROMAN = "roman"  # the style of lower-case roman numerals; an arabic style is its prefix ("" or "F-")


def to_roman(value: int) -> str:
    out = ""
    for amount, letters in _ROMAN:
        while value >= amount:
            out, value = out + letters, value - amount
    return out


def from_roman(text: str) -> int | None:
    """The value of a canonical lower-case roman numeral ("xiv" → 14); None for anything else ("iiii", "vx")."""
    values = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
    total = 0
    for i, letter in enumerate(text):
        value = values[letter]
        total += -value if i + 1 < len(text) and values[text[i + 1]] > value else value
    return total if total and to_roman(total) == text else None


@dataclass(frozen=True)
class Candidate:
    line: int  # index into the page's lines
    style: str  # ROMAN, or the arabic prefix: "" or "F-"
    value: int

    def offset(self, number: int) -> int:
        return self.value - number


def render(style: str, value: int) -> str:
    return to_roman(value) if style == ROMAN else f"{style}{value}"


def _parse(line: str) -> tuple[str, int] | None:
    """(style, value) of a line that shows a page number, else None."""
    match = _BARE.match(line)
    if match and match["roman"]:
        value = from_roman(match["roman"])
        return (ROMAN, value) if value else None
    if match:
        return match["prefix"] or "", int(match["num"])
    match = _TRAILING.search(line) if len(line) <= _TRAILING_MAX_CHARS else None
    return ("", int(match["num"])) if match else None


def candidates(lines: Sequence[str]) -> list[Candidate]:
    """The page-number candidates among the first and last ``EDGE_LINES`` lines of a page."""
    count = len(lines)
    edge = sorted(set(range(min(EDGE_LINES, count))) | set(range(max(0, count - EDGE_LINES), count)))
    found = []
    for index in edge:
        parsed = _parse(lines[index])
        if parsed and parsed[1] > 0:
            found.append(Candidate(line=index, style=parsed[0], value=parsed[1]))
    return found


@dataclass(frozen=True)
class Run:
    style: str
    offset: int  # printed value minus physical page
    pages: frozenset[int]  # physical pages whose candidates show the run's number

    @property
    def first(self) -> int:
        return min(self.pages)

    @property
    def last(self) -> int:
        return max(self.pages)


def find_runs(found: dict[int, list[Candidate]], *, page_count: int) -> list[Run]:
    """Runs of candidates sharing a style and an offset over consecutive pages (gaps ≤ ``MAX_GAP``).

    At least half the pages of a run must carry no other candidate of its style: footnote marks
    numbered through a document ("1 2" on one page, "3" on the next, "4 5" on the third) line up
    at one offset too, but they come in clusters, and a page prints one page number."""
    bare = min(MIN_RUN, max(2, page_count))
    members: dict[tuple[str, int], set[int]] = defaultdict(set)
    per_style: dict[tuple[int, str], int] = defaultdict(int)
    for number, page_candidates in found.items():
        for candidate in page_candidates:
            members[(candidate.style, candidate.offset(number))].add(number)
            per_style[(number, candidate.style)] += 1
    runs = []
    for (style, offset), numbers in members.items():
        needed = bare if style in ("", ROMAN) else MIN_RUN_PREFIXED
        for group in _groups(sorted(numbers)):
            alone = sum(per_style[(number, style)] == 1 for number in group)
            if len(group) >= needed and 2 * alone >= len(group):
                runs.append(Run(style, offset, frozenset(group)))
    return runs


def _groups(numbers: list[int]) -> list[list[int]]:
    """``numbers`` (sorted) split wherever two neighbours are more than ``MAX_GAP`` apart."""
    groups: list[list[int]] = []
    for number in numbers:
        if groups and number - groups[-1][-1] <= MAX_GAP:
            groups[-1].append(number)
        else:
            groups.append([number])
    return groups


def _run_for(number: int, runs: list[Run], own: list[Candidate]) -> Run | None:
    """The run labelling physical page ``number``: one showing its number on this very page first,
    then the one with more pages. A page inside a run that prints a different number of the run's
    style (two printed pages fused into one PDF page, say) gets none: it is not part of the sequence."""
    covering = [run for run in runs if run.first <= number <= run.last]
    if not covering:
        return None
    run = max(covering, key=lambda run: (number in run.pages, len(run.pages), -run.first))
    if number not in run.pages and any(candidate.style == run.style for candidate in own):
        return None
    return run


def _drop_line(page: Page, label: str, hint: int | None) -> None:
    """Take the line printing ``label`` out of the text: the candidate line when there is one, else
    the last line reading exactly the label (a table-heavy page may put its number mid-page)."""
    if hint is not None:
        del page.lines[hint]
        return
    for index in range(len(page.lines) - 1, -1, -1):
        parsed = _parse(page.lines[index])
        if parsed is not None and render(*parsed) == label:
            del page.lines[index]
            return


def _keep_own_labels(pages: Sequence[Page]) -> None:
    """The PDF's /PageLabels stand; an edge line printing the same label is taken out of the text."""
    for page in pages:
        page.label = page.label[:MAX_LABEL] or str(page.number)
        printed = [c.line for c in candidates(page.lines) if render(c.style, c.value) == page.label]
        if printed:
            del page.lines[printed[-1]]


def assign_labels(pages: Sequence[Page]) -> None:
    """Set every page's ``label`` (see the module docstring) and remove the line its printed number
    was read from. ``pages`` have no blank lines; labels already set are the PDF's own."""
    if any(page.label for page in pages):
        _keep_own_labels(pages)
        return
    found = {page.number: candidates(page.lines) for page in pages}
    runs = find_runs(found, page_count=len(pages))
    for page in pages:
        run = _run_for(page.number, runs, found[page.number])
        if run is None:
            page.label = str(page.number)
            continue
        page.label = render(run.style, page.number + run.offset)
        own = [c.line for c in found[page.number] if (c.style, c.offset(page.number)) == (run.style, run.offset)]
        _drop_line(page, page.label, own[-1] if own else None)
