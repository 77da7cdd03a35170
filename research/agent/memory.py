"""Follow-up resolution by rules (the deterministic engine; an LLM does it when configured).

Handles the follow-ups analysts actually type: "and at the previous meeting?", "and the previous
year?", "what is the percentage change between those two?", "how does it compare with INFY?".
"""

from __future__ import annotations

import re
from typing import Any

MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
MEETING_RE = re.compile(r"\b(" + "|".join(m.capitalize() for m in MONTHS) + r")\s+(\d{4})\b", re.IGNORECASE)
YEAR_RE = re.compile(r"\b(19|20)(\d{2})\b")
FY_RE = re.compile(r"\b(20\d{2})-(\d{2})\b")
FOLLOW_UP_RE = re.compile(r"^\s*(and|what about|how about|same for|and for|and at|and in)\b", re.IGNORECASE)
BETWEEN_THOSE_RE = re.compile(
    r"\b(percentage|percent|%)\s*(change|increase|decrease|difference|growth)\b.*\b(those|these|them|the two)\b",
    re.IGNORECASE,
)
COMPARE_WITH_RE = re.compile(r"\b(?:compare|compares|comparison)\b.*\bwith\s+([A-Za-z.&^\-]+)\s*\??$", re.IGNORECASE)
MPC_MEETING_MONTHS = (2, 4, 6, 8, 10, 12)  # the RBI MPC meets every two months


def memory_entry(
    *,
    turn_id: int,
    question: str,
    resolved: str,
    answer: str,
    figures: list[dict[str, Any]],
    subjects: list[str],
) -> dict[str, Any]:
    """One finished turn as the memory window holds it (the graph's ``memory`` channel and the
    fallback built from Turn rows use this one shape). ``answer`` is the rendered text."""
    return {
        "turn_id": turn_id,
        "question": question,
        "resolved": resolved or question,
        "answer": answer,
        "figures": list(figures or []),
        "subjects": list(subjects or []),
    }


def previous_meeting(month: int, year: int) -> tuple[int, int]:
    """The MPC meeting before (month, year) on the bi-monthly calendar."""
    earlier = [m for m in MPC_MEETING_MONTHS if m < month]
    return (earlier[-1], year) if earlier else (MPC_MEETING_MONTHS[-1], year - 1)


def _shift_meeting(text: str) -> str | None:
    match = MEETING_RE.search(text)
    if not match:
        return None
    month = MONTHS.index(match.group(1).lower()) + 1
    prev_month, prev_year = previous_meeting(month, int(match.group(2)))
    return text[: match.start()] + f"{MONTHS[prev_month - 1].capitalize()} {prev_year}" + text[match.end() :]


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


def resolve(question: str, memory: list[dict[str, Any]]) -> tuple[str, str]:
    """(resolved question, the rule used or "none")."""
    text = question.strip()
    if not memory:
        return text, "none"
    last = memory[-1]
    previous = str(last.get("resolved") or last.get("question") or "")
    lowered = text.lower()
    if BETWEEN_THOSE_RE.search(text):
        figures = [f for turn in memory[-2:] for f in (turn.get("figures") or [])[:1]]
        if len(figures) >= 2:
            # Oldest period first, so "increase" reads forwards in time.
            a, b = sorted(figures[-2:], key=lambda f: str(f.get("period") or ""))
            verb = "increase" if "increase" in lowered else "change"
            return (
                f"pct_change({a['value']}, {b['value']}): the percentage {verb} from {a['value']} "
                f"({a.get('label', '')}, {a.get('period', '')}) to {b['value']} ({b.get('label', '')}, "
                f"{b.get('period', '')})",
                "between_those_two",
            )
    if "previous meeting" in lowered or "last meeting" in lowered or "meeting before" in lowered:
        shifted = _shift_meeting(previous)
        if shifted:
            return shifted, "previous_meeting"
    if "previous year" in lowered or "prior year" in lowered or "year before" in lowered:
        shifted = _shift_year(previous)
        if shifted:
            return shifted, "previous_year"
    compare = COMPARE_WITH_RE.search(text)
    if compare and re.search(r"\b(it|that|this|them)\b", lowered):
        subject = (last.get("subjects") or [None])[0]
        if subject:
            return f"Compare {subject} and {compare.group(1)}", "compare_with"
    if FOLLOW_UP_RE.match(text) and previous:
        # "and for TCS?" — the previous question with its subject swapped for the new one.
        subject = (last.get("subjects") or [None])[0]
        tail = FOLLOW_UP_RE.sub("", text).strip(" ?")
        if subject and tail and subject in previous:
            return previous.replace(subject, tail), "swap_subject"
    return text, "none"
