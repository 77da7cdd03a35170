"""Why a statement line moved, in the filing's own words: "What drove the increase in Apple's services
net sales in the third quarter of fiscal 2023?" is answered by the change read from the statement
cells and then the management discussion's sentence on that line ("Services net sales increased
during the third quarter of 2023 … due primarily to higher net sales from advertising, cloud services
and the App Store."), quoted and cited to its page.

The sentence names the line the cells were read from and gives a cause ("due primarily to",
"driven by"); of several, the one for the span the cells cover (the quarter, not "the first nine
months"). Pure: the composed cells and the passages in, one quoted sentence out.
"""

from __future__ import annotations

import re
from typing import Any

from research.agent.compose.composer import Composer, document_name
from research.agent.evidence.select import CAUSE_RE
from research.agent.text.sentences import sentences

# The span a cell covers, by its column label, and how the discussion names it.
_SPANS = {
    "three months": re.compile(r"\bquarter\b", re.I),
    "six months": re.compile(r"\bsix months\b|\bfirst half\b", re.I),
    "nine months": re.compile(r"\bnine months\b", re.I),
    "twelve months": re.compile(r"\b(?:fiscal )?year\b|\btwelve months\b", re.I),
}


def _span(label: str) -> str | None:
    low = label.lower()
    return next((span for span in _SPANS if span in low), "three months" if "quarter" in low else None)


def _score(sentence: str, span: str | None) -> int:
    """The span the cells cover named +2; another span named −2 ("the first nine months" for a quarter)."""
    if span is None:
        return 0
    others = any(pattern.search(sentence) for key, pattern in _SPANS.items() if key != span)
    return 2 * bool(_SPANS[span].search(sentence)) - 2 * others


def compose_drivers(c: Composer, passages: list[dict[str, Any]]) -> bool:
    """Add the filing's sentence on why the line read moved; ``False`` when no passage gives one."""
    cell = next((x for x in c.claims if x.get("kind") == "cell" and x.get("line")), None)
    if cell is None:
        return False
    # The row as printed ("Services 21,213 19,604 62,886 58,941") without its values: the line's name.
    line = re.sub(r"[\s$€£(),.%\d-]+$", "", str(cell["line"])).rsplit(":", 1)[-1].strip()
    names_line = re.compile(rf"(?<![\w-]){re.escape(line)}\b", re.I)
    span = _span(str(cell.get("period") or ""))
    found = [
        (_score(sentence, span), -rank, passage, sentence)
        for rank, passage in enumerate(passages)
        for sentence in sentences(str(passage.get("text", "")))
        if names_line.search(sentence) and CAUSE_RE.search(sentence)
    ]
    if not found:
        return False
    *_, passage, sentence = max(found, key=lambda f: (f[0], f[1]))
    c.parts.append(f"Why, in {document_name(passage)}:")
    # A heading the page runs into its first sentence ("Services Services net sales increased …") goes.
    heading = re.match(rf"{re.escape(line)}\s+(?={re.escape(line)}\b)", sentence, re.I)
    c.quote(passage, sentence[heading.end() :] if heading else sentence, "reason", figure_claim=False)
    c.assessment = {**c.assessment, "drivers": line}
    return True
