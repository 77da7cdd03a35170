"""A margin whose formula the question spells out: "merchandise gross margin (net sales less
merchandise costs, as a percentage of net sales)" — (A − B) / C × 100, each term a cited cell of
the same column, computed by the calculator. Pure: no database."""

from __future__ import annotations

import re
from typing import Any

from core import formatting
from research.agent.compose.composer import Composer
from research.agent.compose.statements.cells import calc_ref, cell_ref, in_one_document, placeholder, title
from research.agent.question.statements import Ask, own_label, pick_cell, same_column
from research.retrieval.statement_terms import concepts_asked, match_key

_TERM = r"([a-z][a-z ,'&-]*?)"
_SPREAD = re.compile(
    rf"\(\s*{_TERM}\s+(?:less|minus)\s+{_TERM},?\s+(?:as an? (?:percentage|percent|share|proportion)|divided by|over)"
    rf"\s+(?:of\s+)?{_TERM}\s*\)",
    re.I,
)
_NAME = re.compile(r"((?:[a-z-]+ ){0,2}margin)\s*\($", re.I)


def spelled_terms(question: str) -> tuple[str, tuple[str, str, str], tuple[str, str, str]] | None:
    """The margin's name, the concept keys (A, B, C) of "(A less B, as a percentage of C)" and the
    three terms as written."""
    m = _SPREAD.search(question)
    if not m:
        return None
    keys = []
    for part in m.groups():
        found = concepts_asked(part)
        if not found:
            return None
        keys.append(found[0].key)
    name = _NAME.search(question[: m.start() + 1])
    return (name.group(1).lower() if name else "margin"), (keys[0], keys[1], keys[2]), (m[1], m[2], m[3])


def _as_written(rows: list[dict[str, Any]], found: dict[str, Any], key: str, term: str, ask: Ask) -> dict[str, Any]:
    """The row labelled as the question writes the term ("Net sales", not "Total revenue"), in the
    same document, else the concept's best row."""
    document = found[key]["document_id"]
    same = [
        r
        for r in rows
        if r["document_id"] == document and r.get("chunk_id") and match_key(own_label(r)) == match_key(term)
    ]
    return next((r for r in same if pick_cell(r["cells"], ask)), found[key])


def spelled_margin(c: Composer, ask: Ask, rows: list[dict[str, Any]]) -> bool:
    """Answer a spelled-out margin from cells (True), or leave it (False)."""
    spelled = spelled_terms(c.question)
    if spelled is None:
        return False
    name, keys, terms = spelled
    found = in_one_document(rows, tuple(dict.fromkeys(keys)), ask)
    if found is None:
        return False
    chosen = [_as_written(rows, found, key, term, ask) for key, term in zip(keys, terms, strict=True)]
    first = pick_cell(chosen[0]["cells"], ask)
    if first is None:
        return False
    cells = [same_column(row, first) for row in chosen]
    if any(cell is None for cell in cells):
        return False
    at = placeholder(c)
    refs: dict[int, str] = {}
    for row, cell in zip(chosen, cells, strict=True):
        assert cell is not None
        refs.setdefault(id(row), cell_ref(c, row, cell, own_label(row)))
    a, b, d = (str(cell["value"]) for cell in cells if cell is not None)
    result = calc_ref(c, f"({a} - {b}) / {d} * 100", name, formatting.percent)
    if result is None:
        return False
    x, y, z = (f"{own_label(row).lower()} {refs[id(row)]}" for row in chosen)
    words = f"({x} less {y}) over {z}"
    c.parts[at] = f"{title(name)} ({first['label']}): {result[0]} — {words}."
    return True
