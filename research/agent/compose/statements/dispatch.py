"""Answers computed from statement cells, on the deterministic engine.

* A metric ("What was the capital expenditure in the nine months ended July 1, 2023?") is answered
  with the exact cell, in its units, with its column and page, and the row quoted as printed.
* Ratios, margins, growth, shares and differences are computed by the calculator
  (research/calculator.py) from cited cells and shown as ``[Calculated: …]``; the verifier
  recomputes each one another way and re-reads every cell from the stored passage.
* A yes/no question whose answer needs such a calculation ("Did any segment exceed 20% of
  revenue?") says yes or no and shows every share it compared.

Every figure is a ``[[cN]]`` claim: ``cell`` claims on the passage that holds the row, ``calc``
claims from the calculator. When the rows do not answer, nothing is written and the passage answer
runs as before. Pure: no database.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any

from core import formatting
from research.agent.compose.composer import Composer
from research.agent.compose.statements.cells import (
    amount,
    calc_ref,
    cell_ref,
    decimals,
    in_one_document,
    number,
    placeholder,
    title,
)
from research.agent.question.statements import (
    Ask,
    item_rows,
    own_label,
    parse_ask,
    pick_cell,
    prior_cell,
    same_column,
)
from research.retrieval.statement_terms import BY_KEY, label_rank


def _subject(c: Composer, ask: Ask, rows: list[dict[str, Any]]) -> tuple[dict[str, Any], str] | None:
    """The row the question is about and its name: a named line ("services revenue") or the concept."""
    concept = BY_KEY[ask.concepts[0]]
    # A named line counts only with a column for the period asked (a note's "Total" under "2023"
    # does not answer "the quarter ended June 2, 2023"; the income statement's line does).
    named = [r for r in item_rows(c.question, concept, rows) if pick_cell(r["cells"], ask)]
    if named:
        fits = label_rank(concept, named[0]["label"]) is not None  # the concept's own row, named as asked
        return named[0], concept.name if fits else named[0]["label"]
    found = in_one_document(rows, (concept.key,), ask, c.question)
    return (found[concept.key], concept.name) if found else None


def _value(c: Composer, ask: Ask, rows: list[dict[str, Any]]) -> bool:
    subject = _subject(c, ask, rows)
    cell = pick_cell(subject[0]["cells"], ask) if subject else None
    if subject is None or cell is None:
        return False
    row, name = subject
    at = placeholder(c)
    outflow = row["statement"] == "cash_flow" and float(cell["value"]) < 0
    ref = cell_ref(c, row, cell, name, outflow=outflow)
    paid = " paid out (in parentheses in the cash-flow statement)" if outflow else ""
    c.parts[at] = f"{title(name)} ({cell['label']}): {ref}{paid}, per {row['document_title']}."
    return True


def _growth(c: Composer, ask: Ask, rows: list[dict[str, Any]]) -> bool:
    subject = _subject(c, ask, rows)
    cell = pick_cell(subject[0]["cells"], ask) if subject else None
    before = prior_cell(subject[0]["cells"], cell) if subject and cell else None
    if subject is None or cell is None or before is None:
        return False
    row, name = subject
    at = placeholder(c)
    new, old = cell_ref(c, row, cell, name), cell_ref(c, row, before, name)
    digits = max(decimals(cell), decimals(before))
    x, y = number(before), number(cell)
    difference = calc_ref(c, f"{y} - {x}", f"change in {name}", lambda v: amount(v, row["unit"], digits, signed=True))
    change = calc_ref(c, f"pct_change({x}, {y})", f"growth in {name}", lambda v: formatting.percent(v, signed=True))
    if difference is None or change is None:
        c.parts[at] = f"{title(name)}: {new} ({cell['label']}) against {old} ({before['label']})."
        return True
    verb = "rose" if difference[1] > 0 else "fell" if difference[1] < 0 else "was unchanged"
    c.parts[at] = (
        f"{title(name)} {verb} from {old} ({before['label']}) to {new} ({cell['label']}): a change of "
        f"{difference[0]}, or {change[0]}."
    )
    return True


def _ratio(c: Composer, ask: Ask, rows: list[dict[str, Any]]) -> bool:
    assert ask.ratio is not None
    numerator, denominator, name, how = ask.ratio
    direct = {"effective tax rate": "effective_tax_rate", "free cash flow": "free_cash_flow"}.get(name)
    if direct and in_one_document(rows, (direct,), ask):
        return _value(c, replace(ask, op="value", concepts=(direct,), ratio=None), rows)
    found = in_one_document(rows, (numerator, denominator), ask, c.question)
    top = pick_cell(found[numerator]["cells"], ask) if found else None
    bottom = same_column(found[denominator], top) if found and top else None
    if found is None or top is None or bottom is None:
        return False
    at = placeholder(c)
    a = cell_ref(c, found[numerator], top, BY_KEY[numerator].name)
    paid = how == "minus" and float(bottom["value"]) < 0  # capital expenditure printed as an outflow
    b = cell_ref(c, found[denominator], bottom, BY_KEY[denominator].name, outflow=paid)
    x, y = number(top), number(bottom)
    if how == "pct":
        result = calc_ref(c, f"{x} / {y} * 100", name, lambda v: formatting.percent(v))
        words = f"{BY_KEY[numerator].name} {a} divided by {BY_KEY[denominator].name} {b}"
    elif how == "minus":
        result = calc_ref(c, f"{x} - {abs(Decimal(y))}", name, lambda v: amount(v, found[numerator]["unit"]))
        words = f"{BY_KEY[numerator].name} {a} less {BY_KEY[denominator].name} {b}"
    else:
        result = calc_ref(c, f"ratio({x}, {y})", name, lambda v: formatting.ratio(v))
        words = f"{BY_KEY[numerator].name} {a} over {BY_KEY[denominator].name} {b}"
    if result is None:
        return False
    c.parts[at] = f"{title(name)} ({top['label']}): {result[0]} — {words}."
    return True


def _share(c: Composer, ask: Ask, rows: list[dict[str, Any]]) -> bool:
    named = item_rows(c.question, BY_KEY["revenue"], rows)
    base = in_one_document([r for r in rows if not named or r["document_id"] == named[0]["document_id"]], ("revenue",))
    part = pick_cell(named[0]["cells"], ask) if named else None
    total = same_column(base["revenue"], part) if base and part else None
    if not named or part is None or base is None or total is None:
        return False
    at = placeholder(c)
    a = cell_ref(c, named[0], part, own_label(named[0]))
    b = cell_ref(c, base["revenue"], total, "revenue")
    result = calc_ref(c, f"{number(part)} / {number(total)} * 100", "share of revenue", formatting.percent)
    if result is None:
        return False
    c.parts[at] = f"{title(own_label(named[0]))} was {result[0]} of revenue ({part['label']}): {a} of {b}."
    return True


def compose_statements(c: Composer, out: dict[str, Any]) -> bool:
    """Answer from the statement rows of the rag_search result ``out`` (True), or leave the answer
    to the passages (False: not a statement question, or the rows do not hold what it needs)."""
    from research.agent.compose.statements.formula import spelled_margin
    from research.agent.compose.statements.share_test import share_test
    from research.agent.compose.statements.yes_no import yes_no

    rows = out.get("statement_rows") or []
    ask = parse_ask(c.question)
    if not rows or ask is None:
        return False
    handlers = {"value": _value, "ratio": _ratio, "growth": _growth, "share": _share, "share_test": share_test}
    parts, claims, citations, figures = list(c.parts), list(c.claims), list(c.citations), list(c.figures)
    first = (lambda: yes_no(c, ask, rows, handlers), lambda: spelled_margin(c, ask, rows))
    for answer in (*first, lambda: handlers[ask.op](c, ask, rows)):
        if answer():
            c.assessment = {"statement_answer": ask.op}
            return True
        c.parts, c.claims = list(parts), list(claims)  # nothing half-written
        c.citations, c.figures = list(citations), list(figures)
    return False
