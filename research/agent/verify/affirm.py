"""Whether an answer establishes what was asked, not only that its figures trace.

"Answers the question" is affirmative: a document answer is shown as verified only when a check that
applies has established it. One that no check could establish is *not confirmed*: it is shown as
found, without the tick, and nobody is told it answers the question.

The quantity asked is the check that most often cannot run: when the engine names no metric for the
question, its figure is labelled generically ("figure", "figure asked") and nothing said which
quantity it is. Then the question's own words for what it asks (its content words, less its
period, its reporting verbs and the document's own name) must name the figure in the quoted text,
in the clause the figure stands in, not merely somewhere in the sentence: "CPI inflation had
fallen to 6.7%" does not name an unemployment rate, and neither does a sentence that mentions
unemployment in another clause. Pure: the composer's claims and quotes in, a verdict out.
"""

from __future__ import annotations

import math
import re
from typing import Any

from research.agent.compose.composer import Composer
from research.agent.question.periods import MONTHS
from research.agent.text.sentences import keywords

# Labels the composers give a figure when no metric named it.
GENERIC_LABELS = frozenset({"figure", "figure asked"})
# Words that ask or report rather than name a quantity ("What was … cited at …", "according to").
_NOT_THE_QUANTITY = frozenset(
    w[:5]
    for w in (
        "cited", "according", "said", "stated", "reported", "given", "gave", "mentioned", "noted", "described",
        "meeting", "minutes", "report", "document", "filing", "quarter", "year", "fiscal", "month", "period",
        "ended", "ending", "time", "level", "figure", "value", "number", "total", "what", "which", "there",
        *MONTHS,
    )
)  # fmt: skip
# Where a clause ends around a figure: a semicolon, a colon, a dash, "while" or "whereas", a comma
# before a new subject.
_CLAUSE_END = re.compile(r"[;:–—]|\s(?:while|whereas|but)\s|,\s(?=(?:and|while|with|the|a|its)\b)", re.I)
# How much of the question's words for the quantity the figure's clause must name.
SHARE_NAMED = 0.6


def target_words(question: str, title: str = "") -> set[str]:
    """The question's words for what it asks, as 5-letter stems (the cited document's name and the
    question's period and reporting words taken out)."""
    return keywords(question) - keywords(title) - _NOT_THE_QUANTITY


def clause_of(text: str, figure: str) -> str:
    """The clause of ``text`` that holds ``figure``: from the boundary before it to the one after."""
    at = text.find(figure)
    if at < 0:
        return text
    starts = [m.end() for m in _CLAUSE_END.finditer(text, 0, at)]
    after = _CLAUSE_END.search(text, at + len(figure))
    return text[(starts[-1] if starts else 0) : after.start() if after else len(text)]


def _quoted(c: Composer, claim: dict[str, Any]) -> str:
    quotes = [x["quote"] for x in c.citations if x["chunk_id"] == claim.get("chunk_id")]
    return next((q for q in quotes if str(claim.get("quote_figure")) in q), "")


# A question asking yes or no, after an opening clause if any ("According to the minutes, was …?").
_YES_NO_ASKED = re.compile(
    r"^\s*(?:[^,?]{0,80},\s*)?(?:did|does|do|was|were|is|are|has|have|had|will|would|could|can)\b", re.I
)
_YES_NO_SAID = re.compile(r"^\W*(?:yes|no)\b", re.I)


def kind_answered(c: Composer) -> dict[str, Any]:
    """``{"affirmed": bool, "why": str}``: a yes/no question is answered with a yes or a no first (a
    figure or a quote alone leaves the analyst to decide what it means)."""
    said = " ".join(part for part in c.parts if part).strip()
    if _YES_NO_ASKED.search(c.question) and not _YES_NO_SAID.search(said):
        return {"affirmed": False, "why": "a yes/no question, and the answer says neither yes nor no"}
    return {"affirmed": True, "why": ""}


def affirm(c: Composer) -> dict[str, Any]:
    """What the answer must establish beyond the checks of its evidence: the kind of answer asked,
    and the quantity asked when no metric named it. The first that fails says why."""
    for verdict in (kind_answered(c), quantity_named(c)):
        if not verdict["affirmed"]:
            return verdict
    return {"affirmed": True, "why": ""}


def quantity_named(c: Composer) -> dict[str, Any]:
    """``{"affirmed": bool, "why": str}``: every generically labelled figure the answer gives is named
    by the question's words in its own clause (affirmed when the answer has no such figure: a named
    metric's checks apply to it instead)."""
    for claim in c.claims:
        if claim.get("kind") != "quote" or str(claim.get("label", "")).lower() not in GENERIC_LABELS:
            continue
        wanted = target_words(c.question, str(claim.get("citation", "")))
        clause = clause_of(_quoted(c, claim), str(claim.get("quote_figure")))
        named = wanted & keywords(clause)
        if not wanted or len(named) < math.ceil(SHARE_NAMED * len(wanted)):
            what = ", ".join(sorted(wanted)) or "what was asked"
            return {"affirmed": False, "why": f"the quoted text does not name the quantity asked ({what})"}
    return {"affirmed": True, "why": ""}


def statement_check(c: Composer) -> dict[str, Any] | None:
    """A figure read from a statement line: the line was chosen by the concept the question asks
    (``statement_answer``: the statement composer parsed the ask and matched the row's concept and
    the period's column), which establishes the quantity; ``None`` when the answer reads no line."""
    op = (c.assessment or {}).get("statement_answer")
    cells = [x for x in c.claims if x.get("kind") == "cell"]
    if not op or not cells:
        return None
    lines = ", ".join(dict.fromkeys(f"{x.get('label')} ({x.get('period')})" for x in cells))
    return {"check": "statement", "ok": True, "detail": f"read from the statement line asked: {lines}"}
