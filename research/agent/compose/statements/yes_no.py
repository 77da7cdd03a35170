"""A yes/no question whose answer is one calculation over statement cells, answered "Yes." or "No."
first, then the calculation with its cited cells.

* a share against a threshold: "Did services exceed 25% of net sales?", "more than half of";
* growth against a threshold: "Did net revenues grow by more than 5% year over year?";
* a margin or rate against a threshold: "Was the gross margin above 70%?";
* a multiple: "Did net income more than double year over year?" (new over old against 2);
* a direction: "Did operating income decline year over year?" (the change against 0);
* one line against another: "Did R&D exceed gross margin in dollars?" (the difference against 0),
  "Did R&D grow faster than total revenue?" (the two growth rates).

The verdict compares the calculator's result, a claim on cited cells, with the threshold the
question states; nothing is typed. Pure: no database.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from core import formatting
from research.agent.compose.composer import Composer
from research.agent.compose.statements.cells import amount, calc_ref, cell_ref, in_one_document, placeholder, title
from research.agent.question.statements import YES_NO, Ask, pick_cell, prior_cell, same_column
from research.retrieval.statement_terms import BY_KEY, concepts_asked

Handler = Callable[[Composer, Ask, list[dict[str, Any]]], bool]

_MORE = r"(?:exceed\w*|(?:make|made|makes) up more than|more than|greater than|higher than|larger than|above|over)"
_LESS = r"(?:(?:make|made|makes) up less than|less than|lower than|smaller than|below|under)"
_PCT = r"(\d+(?:\.\d+)?)\s*(?:%|per ?cent|percent)"
_GROW = r"(?:grow|grew|grown|increas\w*|rise|rose|risen)"
_PARTS = r"(half)|(a third|one third)|(a quarter|one quarter)"
_CALC_OF = {"share": "share of revenue", "growth": "growth in", "change": "change in"}
_FALL = r"(?:declin\w*|decreas\w*|fall|fell|fallen|drop\w*|shrink|shrank)"


@dataclass(frozen=True)
class Test:
    measure: str  # share | growth | level | times | change | versus | faster
    above: bool  # "yes" when the result is above the threshold (else below)
    threshold: float = 0.0
    words: str = ""  # the threshold as the question says it ("25%", "half", "double")


def parse_test(question: str) -> Test | None:
    """The yes/no test ``question`` asks of one calculation, or None."""
    if not YES_NO.search(question):
        return None
    q = question.lower()
    if re.search(r"\bmore than (?:doubl|twice)", q):
        return Test("times", True, 2.0, "double")
    if re.search(rf"\b{_GROW}\w* faster than\b", q):
        return Test("faster", True)
    if m := re.search(rf"\b{_GROW}\w*\s+(?:by\s+)?({_MORE}|{_LESS}|at least)\s+{_PCT}", q):
        return Test("growth", not re.fullmatch(_LESS, m.group(1)), float(m.group(2)), f"{m.group(2)}%")
    if m := re.search(
        rf"\b({_MORE}|{_LESS})\s+(?:{_PCT}|(half)|(a third|one third)|(a quarter|one quarter))\s+of\b", q
    ):
        above = not re.fullmatch(_LESS, m.group(1))
        if m.group(2):
            return Test("share", above, float(m.group(2)), f"{m.group(2)}%")
        if m.group(3):
            return Test("share", above, 50.0, "half")
        return Test("share", above, 100 / 3 if m.group(4) else 25.0, "a third" if m.group(4) else "a quarter")
    if m := re.search(rf"\b({_MORE}|{_LESS})\s+{_PCT}(?!\s+of\b)", q):
        return Test("level", not re.fullmatch(_LESS, m.group(1)), float(m.group(2)), f"{m.group(2)}%")
    if re.search(rf"\b{_FALL}\b", q):
        return Test("change", False)
    if re.search(rf"\b{_GROW}\b", q) and not re.search(_PCT, q):
        return Test("change", True)
    if re.search(rf"\b{_MORE}\b", q) and not re.search(_PCT, q):
        return Test("versus", True)
    return None


def _split(question: str) -> tuple[str, str] | None:
    """The line compared (before "exceed"/"faster than") and the line it is compared with."""
    m = re.search(rf"\b(?:{_GROW}\w* faster than|{_MORE})\b", question, re.I)
    return (question[: m.start()], question[m.end() :]) if m else None


def _verdict(value: float, test: Test) -> str:
    return "Yes" if (value > test.threshold if test.above else value < test.threshold) else "No"


def _last_calc(c: Composer, since: int, label: str) -> float | None:
    found = [k for k in c.claims[since:] if k.get("kind") == "calc" and str(k.get("label", "")).startswith(label)]
    return float(found[-1]["value"]) if found else None


def yes_no(c: Composer, ask: Ask, rows: list[dict[str, Any]], handlers: Mapping[str, Handler]) -> bool:
    """Answer a yes/no test over cells (True), or leave the question to the other handlers (False)."""
    test = parse_test(c.question)
    if test is None:
        return False
    if test.measure in ("versus", "faster"):
        return _two_lines(c, ask, rows, test)
    op = {"share": "share", "level": "ratio"}.get(test.measure, "growth")
    if ask.op != op and not (op == "growth" and ask.op == "value"):
        return False
    at, since = len(c.parts), len(c.claims)
    if not handlers[op](c, replace(ask, op=op), rows):
        return False
    label = ask.ratio[2] if op == "ratio" and ask.ratio else _CALC_OF.get(test.measure, "")
    value = _times(c) if test.measure == "times" else _last_calc(c, since, label)
    if value is None:
        return False
    where = "above" if value > test.threshold else "at or below"
    suffix = {
        "share": f" That is {where} {test.words} of revenue.",
        "growth": f" That is {where} {test.words}.",
        "level": f" That is {where} {test.words}.",
        "times": f": {'more than double' if value > test.threshold else 'not more than double'}.",
    }.get(test.measure, "")
    c.parts[at] = f"{_verdict(value, test)}. {c.parts[at]}"
    if suffix:
        c.parts[-1 if test.measure == "times" else at] += suffix
    return True


def _times(c: Composer) -> float | None:
    """The new figure over the old one, by the calculator, from the growth answer's two cells."""
    cells = [f for f in c.figures if f.get("answers")][-2:]
    if len(cells) < 2:
        return None
    new, old = cells
    result = calc_ref(c, f"ratio({new['value']}, {old['value']})", "multiple of the year before", formatting.ratio)
    if result is None:
        return None
    c.parts.append(f"The later figure is {result[0]} the earlier one")
    return result[1]


def _two_lines(c: Composer, ask: Ask, rows: list[dict[str, Any]], test: Test) -> bool:
    """One line against another in the same column: their difference, or their growth rates."""
    sides = _split(c.question)
    first = concepts_asked(sides[0]) if sides else []
    second = concepts_asked(sides[1]) if sides else []
    if not first or not second or first[0] == second[0]:
        return False
    keys = (first[0].key, second[0].key)
    found = in_one_document(rows, keys, ask)
    top = pick_cell(found[keys[0]]["cells"], ask) if found else None
    other = same_column(found[keys[1]], top) if found and top else None
    if found is None or top is None or other is None:
        return False
    at = placeholder(c)
    names = [BY_KEY[k].name for k in keys]
    if test.measure == "versus":
        a, b = cell_ref(c, found[keys[0]], top, names[0]), cell_ref(c, found[keys[1]], other, names[1])
        unit = found[keys[0]]["unit"]
        gap = calc_ref(
            c,
            f"{top['value']} - {other['value']}",
            f"{names[0]} less {names[1]}",
            lambda v: amount(v, unit, signed=True),
        )
        if gap is None:
            return False
        line = f"{title(names[0])} {a} against {names[1]} {b} ({top['label']}): a difference of {gap[0]}."
        c.parts[at] = f"{_verdict(gap[1], test)}. {line}"
        return True
    rates = [_rate(c, found[k], cell, name) for k, cell, name in zip(keys, (top, other), names, strict=True)]
    if rates[0] is None or rates[1] is None:
        return False
    verdict = "Yes" if rates[0][1] > rates[1][1] else "No"
    c.parts[at] = f"{verdict}. {title(names[0])} grew {rates[0][0]}; {names[1]} grew {rates[1][0]}."
    return True


def _rate(c: Composer, row: dict[str, Any], cell: dict[str, Any], name: str) -> tuple[str, float] | None:
    """The year-over-year growth of one line, from its cell and the cell a year before."""
    before = prior_cell(row["cells"], cell)
    if before is None:
        return None
    new, old = cell_ref(c, row, cell, name), cell_ref(c, row, before, name)
    rate = calc_ref(
        c,
        f"pct_change({before['value']}, {cell['value']})",
        f"growth in {name}",
        lambda v: formatting.percent(v, signed=True),
    )
    if rate is None:
        return None
    return f"{rate[0]} (from {old}, {before['label']}, to {new}, {cell['label']})", rate[1]
