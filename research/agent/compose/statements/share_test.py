"""A yes/no question whose answer is a calculation over cells: "Did any segment exceed 20% of
revenue?" — each segment's net sales over total revenue, computed by the calculator from cited
cells, compared with the threshold the question states; the answer says yes or no and shows every
share. Pure: no database."""

from __future__ import annotations

import re
from typing import Any

from core import formatting
from research.agent.compose.composer import Composer
from research.agent.compose.statements.cells import calc_ref, cell_ref, placeholder
from research.agent.question.statements import Ask, best_rows, pick_cell, same_column
from research.retrieval.statement_terms import BY_KEY, concepts_asked


def _members(ask: Ask, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The revenue row of each segment (or product category) of the first document, one per
    member, in order: "Americas: Net sales" in a segment note (the member is the heading), or
    "Americas" in a "net sales by reportable segment" table (the member is the label)."""
    revenue = BY_KEY["revenue"]
    word = r"segment" if ask.group == "segment" else r"categor|product"
    document = rows[0]["document_id"] if rows else None
    members: dict[str, dict[str, Any]] = {}
    for row in rows:
        where = f"{row['section']} {row['caption']}"
        if row["document_id"] != document or row["label_key"].startswith("total"):
            continue
        if not (re.search(word, where, re.I) or (ask.group == "segment" and row["statement"] == "segment_note")):
            continue
        if row["section"] and revenue in concepts_asked(row["label_key"]):
            name = row["section"]
        elif revenue in concepts_asked(where) and not concepts_asked(row["label_key"]):
            name = row["label"].rsplit(": ", 1)[-1]
        else:
            continue
        members.setdefault(name, dict(row, member=name))
    return list(members.values())


def share_test(c: Composer, ask: Ask, rows: list[dict[str, Any]]) -> bool:
    members = [m for m in _members(ask, rows) if m.get("chunk_id")]
    if not members or ask.threshold is None:
        return False
    document = members[0]["document_id"]
    same = [r for r in rows if r["document_id"] == document and r["statement"] != "segment_note"]
    totals = best_rows("revenue", same)
    first = pick_cell(members[0]["cells"], ask)
    total = same_column(totals[0], first) if totals and first else None
    if first is None or total is None:
        return False
    at = placeholder(c)
    base = cell_ref(c, totals[0], total, "revenue")
    over: list[str] = []
    under: list[str] = []
    for member in members:
        cell = same_column(member, first)
        if cell is None:
            continue
        ref = cell_ref(c, member, cell, f"{member['member']} revenue")
        expression = f"{cell['value']} / {total['value']} * 100"
        share = calc_ref(c, expression, f"{member['member']} share", formatting.percent)
        if share is None:
            return False
        (over if share[1] > ask.threshold else under).append(f"{member['member']} {ref}: {share[0]}")
    what = "segment" if ask.group == "segment" else "product category"
    verdict = "Yes" if over else "No"
    line = f"{verdict} — in the {first['label']}, against revenue of {base}"
    if over:
        line += f", these exceeded {ask.threshold:g}%: " + "; ".join(over)
    else:
        line += f", no {what} exceeded {ask.threshold:g}%"
    if under:
        line += ". At or below it: " + "; ".join(under)
    c.parts[at] = line + "."
    return True
