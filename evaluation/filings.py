"""The filings golden set's own measures, shared by the evaluation runner and the test harness
(``tests/research/agent/test_filings_golden.py``), so both count the same way.

* **Evidence in the top 5**: the expected filing's expected PDF page is among the first five passages
  of the turn's first document search (as stored on its trace step), or among the first five
  statement-table rows any step returned (``rows`` / ``statement_rows`` with a ``page_number``).
* **Pages cited**: the physical PDF pages (``Chunk.page_number``) of what the answer cites — never
  the printed label, which can be offset or restart in an exhibit.
* **Yes or no**: the first standalone "yes" or "no" the answer says.

Pure functions over what the runner read from the database.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

TOP_K = 5
SEARCH_NODES = ("rag_search", "document_comparator")
ROW_KEYS = ("rows", "statement_rows")  # statement-table rows, when a step returns them
_YES_NO = re.compile(r"\b(yes|no)\b", re.IGNORECASE)

Page = tuple[int, int]  # (document id, 1-based PDF page)


def _pages(items: Iterable[Any], k: int) -> list[Page]:
    out: list[Page] = []
    for item in items:
        if isinstance(item, dict) and item.get("document_id") and item.get("page_number"):
            out.append((int(item["document_id"]), int(item["page_number"])))
        if len(out) == k:
            break
    return out


def top_evidence(steps: list[dict[str, Any]], k: int = TOP_K) -> list[Page]:
    """The (document, PDF page) of the top ``k`` passages of the first search step, then of the top
    ``k`` statement rows of every step that returned rows."""
    found: list[Page] = []
    searched = False
    for step in steps:
        outputs = step.get("outputs")
        if not isinstance(outputs, dict):
            continue
        if step.get("node") in SEARCH_NODES and not searched and outputs.get("passages") is not None:
            found += _pages(outputs.get("passages") or [], k)
            searched = True
        for key in ROW_KEYS:
            if isinstance(outputs.get(key), list):
                found += _pages(outputs[key], k)
    return found


def evidence_hit(document_ids: set[int], pages: list[int], steps: list[dict[str, Any]]) -> bool:
    """One of ``pages`` of one of the expected documents is in the turn's top evidence."""
    return any(doc in document_ids and page in pages for doc, page in top_evidence(steps))


def yes_no_of(answer: str) -> str | None:
    """ "yes" or "no": the first of the two words the answer says (``None``: neither)."""
    found = _YES_NO.search(answer or "")
    return found.group(1).lower() if found else None


def document_ids(steps: list[dict[str, Any]]) -> set[int]:
    """Every document id the turn's steps returned passages or rows of (to name them by file)."""
    ids: set[int] = set()
    for step in steps:
        outputs = step.get("outputs")
        if not isinstance(outputs, dict):
            continue
        for key in ("passages", *ROW_KEYS):
            for item in outputs.get(key) or []:
                if isinstance(item, dict) and item.get("document_id"):
                    ids.add(int(item["document_id"]))
    return ids
