"""Follow-up resolution by rules (the deterministic engine; an LLM does it when configured).

Handles the follow-ups analysts actually type:

* series moves — "and at the previous meeting?", "the following one", "the one before that",
  "the same meeting last year" — along the dated series of the document the last turn cited
  (``research/agent/dialogue/series.py``); the resolved question names the document's period and the
  turn's ``scope`` pins the document (or says the series has none there);
* "and the previous year?" — the fiscal or calendar year named, one earlier;
* "the percentage change between those two (rates)" — a calculation on the figures the last two
  turns established, each named with its source; refused when a turn did not establish its
  figure (it answered another period or metric) or the two are different metrics;
* "how does it compare with INFY?", "and for TCS?" — the subject swapped.
"""

from __future__ import annotations

import re
from typing import Any

from research.agent.question.periods import FY_RE, YEAR_RE, find_periods

FOLLOW_UP_RE = re.compile(r"^\s*(and|what about|how about|same for|and for|and at|and in)\b", re.IGNORECASE)
BETWEEN_THOSE_RE = re.compile(
    r"\b(percentage|percent|%)\s*(change|increase|decrease|difference|growth|rise|fall)\b.*"
    r"\b(those|these|them|the two|both)\b",
    re.IGNORECASE,
)
# "What is the difference between the two?": the later figure less the earlier, in their unit.
DIFFERENCE_RE = re.compile(r"\b(?:difference|gap)\b.*\b(?:those|these|them|the two|both)\b", re.IGNORECASE)
COMPARE_WITH_RE = re.compile(r"\b(?:compare|compares|comparison)\b.*\bwith\s+([A-Za-z.&^\-]+)\s*\??$", re.IGNORECASE)
Scope = dict[str, Any]


def memory_entry(
    *,
    turn_id: int,
    question: str,
    resolved: str,
    answer: str,
    figures: list[dict[str, Any]],
    subjects: list[str],
    documents: list[int] | None = None,
) -> dict[str, Any]:
    """One finished turn as the memory window holds it (the graph's ``memory`` channel and the
    fallback built from Turn rows use this one shape). ``answer`` is the rendered text;
    ``documents`` the ids of the documents it cited, first cited first (series moves start there)."""
    return {
        "turn_id": turn_id,
        "question": question,
        "resolved": resolved or question,
        "answer": answer,
        "figures": list(figures or []),
        "subjects": list(subjects or []),
        "documents": list(dict.fromkeys(documents or [])),
    }


def _shift_year(text: str) -> str | None:
    fy = FY_RE.search(text)
    if fy:
        start = int(fy.group(1)) - 1
        return text[: fy.start()] + f"{start}-{(start + 1) % 100:02d}" + text[fy.end() :]
    years = list(YEAR_RE.finditer(text))
    if not years:
        return None
    last = years[-1]
    return text[: last.start()] + str(int(last.group(0)) - 1) + text[last.end() :]


def _primary(turn: dict[str, Any]) -> dict[str, Any] | None:
    figures = [f for f in turn.get("figures") or [] if not str(f.get("label", "")).startswith("change in")]
    return next((f for f in figures if f.get("primary")), figures[0] if figures else None)


def _describe(f: dict[str, Any]) -> str:
    """A figure named by what it is and where it came from (no digits of its own: a refusal
    written from this shows no unverified number)."""
    return ", ".join(x for x in (f.get("label"), f.get("target"), f.get("source")) if x) or "an earlier figure"


def _operand(f: dict[str, Any]) -> str:
    return f"{f['value']} ({_describe(f)})"


def _between(text: str, memory: list[dict[str, Any]]) -> tuple[str, str, Scope]:
    """The calculation on the last two established figures, or a refusal saying why not."""
    turns = [t for t in memory if t.get("figures")][-2:]
    figures = [f for f in (_primary(t) for t in turns) if f]
    if len(figures) < 2:
        reason = "the earlier turns did not establish two figures to calculate with"
        return text, "between_those_two", {"refuse": reason}
    wrong = [f for f in figures if f.get("answers") is False]
    if wrong:
        reason = (
            f"the earlier answer did not establish the figure asked for: what it found ({_describe(wrong[0])}) "
            "is not the period or measure that turn asked about"
        )
        return text, "between_those_two", {"refuse": reason, "operands": figures}
    metrics = {f.get("metric") for f in figures if f.get("metric")}
    if len(metrics) > 1:
        reason = f"the two figures measure different things ({_describe(figures[0])}; {_describe(figures[1])})"
        return text, "between_those_two", {"refuse": reason, "operands": figures}
    # Oldest period first, so "increase" reads forwards in time.
    a, b = sorted(figures, key=lambda f: str(f.get("period") or ""))
    if not BETWEEN_THOSE_RE.search(text):
        resolved = f"{b['value']} - {a['value']}: the difference from {_operand(a)} to {_operand(b)}"
        return resolved, "between_those_two", {"operands": [a, b]}
    verb = "increase" if "increase" in text.lower() else "change"
    resolved = f"pct_change({a['value']}, {b['value']}): the percentage {verb} from {_operand(a)} to {_operand(b)}"
    return resolved, "between_those_two", {"operands": [a, b]}


def _swap_period(previous: str, tail: str) -> str | None:
    """ "And in April 2024?" after "What was CPI inflation in December 2023?": the previous question
    with its one period of that kind (month, quarter, fiscal or calendar year) replaced by the new one."""
    new = find_periods(tail)
    if len(new) != 1 or re.sub(
        r"\b(?:in|at|for|after|during|the|meeting|minutes|of|by|on)\b|[\s?.,]", "", _cut(tail, new[0])
    ):
        return None  # "and for TCS in 2024?" swaps more than a period
    old = [p for p in find_periods(previous) if p.kind == new[0].kind]
    if len(old) != 1:
        return None
    return previous[: old[0].at] + tail[new[0].at : new[0].at + new[0].length] + previous[old[0].at + old[0].length :]


def _cut(text: str, period: Any) -> str:
    return text[: period.at] + text[period.at + period.length :]


# What points back at the last question's meeting: "it", "the vote", and "then" ("What was the stance
# then?" after the previous meeting's rate asks about that meeting, not every year).
_BACK = re.compile(r"\b(?:it|that|this|them|those|the decision|the vote|then)\b", re.I)


def _carry_period(text: str, previous: str) -> str | None:
    """ "Who voted against it?" after "What was the repo rate after the August 2024 meeting?": the
    question with the one period the previous question named, so "it" is that meeting's decision."""
    periods = find_periods(previous)
    if not _BACK.search(text) or find_periods(text) or len(periods) != 1 or periods[0].kind not in ("month", "fy"):
        return None
    named = previous[periods[0].at : periods[0].at + periods[0].length]
    return f"{text.rstrip(' ?')} in {named}?"


def resolve(question: str, memory: list[dict[str, Any]]) -> tuple[str, str, Scope]:
    """(resolved question, the rule used or "none", scope). Series moves need the library and are
    resolved by :func:`research.agent.dialogue.series` in the node; this handles the rest."""
    text = question.strip()
    if not memory:
        return text, "none", {}
    last = memory[-1]
    previous = str(last.get("resolved") or last.get("question") or "")
    lowered = text.lower()
    if BETWEEN_THOSE_RE.search(text) or DIFFERENCE_RE.search(text):
        return _between(text, memory)
    if "previous year" in lowered or "prior year" in lowered or "year before" in lowered:
        shifted = _shift_year(previous)
        if shifted:
            return shifted, "previous_year", {}
    compare = COMPARE_WITH_RE.search(text)
    if compare and re.search(r"\b(it|that|this|them)\b", lowered):
        subject = (last.get("subjects") or [None])[0]
        if subject:
            return f"Compare {subject} and {compare.group(1)}", "compare_with", {}
    if FOLLOW_UP_RE.match(text) and previous and (swapped := _swap_period(previous, FOLLOW_UP_RE.sub("", text))):
        return swapped, "swap_period", {}
    if FOLLOW_UP_RE.match(text) and previous:
        # "and for TCS?" — the previous question with its subject swapped for the new one.
        subject = (last.get("subjects") or [None])[0]
        tail = FOLLOW_UP_RE.sub("", text).strip(" ?")
        if subject and tail and subject in previous:
            return previous.replace(subject, tail), "swap_subject", {}
    carried = _carry_period(text, previous)
    return (carried, "carry_period", {}) if carried else (text, "none", {})
