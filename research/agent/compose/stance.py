"""A yes/no question about a change of the policy stance ("Did the MPC change its stance at the
August 2024 meeting?"), answered "Yes." or "No." from the committee's own decision on its stance in
the minutes asked about, quoted and cited, with the members' votes for another stance quoted after it.

The verdict is read from the decision's verb: "decided to change the stance to neutral" changes it,
"decided to maintain the neutral stance" keeps it. A decision to "remain focused on withdrawal of
accommodation" names no stance, so it answers "No" only beside members' votes for another stance
("voted for a change in stance to neutral"), which say the majority kept it; a member's vote is
never the committee's decision. Otherwise nothing is answered here, and the question takes the
general document path. Pure: passages in, answer parts out.
"""

from __future__ import annotations

import re
from typing import Any

from research.agent.compose.composer import Composer, document_name
from research.agent.evidence.select import FIRST_PERSON
from research.agent.question.statements import YES_NO
from research.agent.text.sentences import sentences
from research.packs import registry

_CHANGE = r"(?:chang\w*|alter\w*|shift\w*|revis\w*|modif\w*)"
STANCE_CHANGE_ASKED = re.compile(rf"\b{_CHANGE}\b.*\bstance\b|\bstance\b.*\b{_CHANGE}", re.I)
_KEEPS = ("remain", "continue", "retain", "maintain", "keep")
_CHANGES = ("change", "shift", "move", "alter")
# "The MPC also decided to remain focused on withdrawal of accommodation …", "the MPC decided to
# change the stance to neutral": the committee, its decision, and what it is about.
STANCE_DECISION = re.compile(
    r"\b(?:"
    + "|".join((*registry.COMMITTEES, "Committee"))
    + r")\b[^.;•]{0,40}?\bdecided\b[^.;•]{0,20}?\bto (?P<verb>"
    + "|".join(_KEEPS + _CHANGES)
    + r")\b[^.;•]{0,80}?\b(?:stance|accommodat\w*|neutral)",
    re.I,
)
# A decision that keeps one thing and changes the stance ("decided to keep the policy rate unchanged
# and to change the stance to neutral") changes it; "a change in stance" is a noun, not a decision.
STANCE_CHANGED = re.compile(
    r"\b(?:chang|shift|alter)\w*\s+(?:the\s+|its\s+)?(?:monetary\s+)?(?:policy\s+)?stance\b", re.I
)
MEMBERS_FOR_ANOTHER_STANCE = re.compile(r"\bvoted for (?:a )?change in (?:the )?stance\b", re.I)


# "What was the policy stance in August 2024?", "What is the stance now?": what the committee decided
# on it. A question about the vote on it ("What was the vote on the stance?") is the vote table's.
STANCE_WHAT_ASKED = re.compile(r"^\s*(?:what|which)\b[^?]*\bstance\b", re.I)
_ABOUT_THE_VOTE = re.compile(r"\b(?:vot\w*|dissent\w*|members?|who)\b", re.I)


def asks_stance_change(question: str) -> bool:
    return bool(YES_NO.search(question) and STANCE_CHANGE_ASKED.search(question))


def asks_stance(question: str) -> bool:
    """Whether the question asks what the stance was, not whether it changed nor how members voted."""
    return bool(STANCE_WHAT_ASKED.search(question)) and not _ABOUT_THE_VOTE.search(question)


def stance_query(question: str, passages: list[dict[str, Any]]) -> str | None:
    """What to search the document for when the question asks about a change of stance and no
    passage holds the committee's decision on it (a resolution's passage can rank below others)."""
    if not (asks_stance_change(question) or asks_stance(question)) or _first(passages, STANCE_DECISION) is not None:
        return None
    return registry.STANCE_QUERY or None  # worded after the pack's resolutions


def compose_stance(c: Composer, passages: list[dict[str, Any]]) -> bool:
    """The verdict line and its quotes for a stance question, from the decision in the one document
    the passages are from (the question named its meeting, or asked it now: research/agent/dialogue/latest.py);
    what the stance was, the decision quoted; False when that cannot be told."""
    what = asks_stance(c.question)
    if not (what or asks_stance_change(c.question)) or len({p.get("document_id") for p in passages}) != 1:
        return False  # several meetings: which decision answers is not this rule's to choose
    decision = _first(passages, STANCE_DECISION)
    if decision is None:
        return False
    passage, sentence, match = decision
    if what:
        c.parts.append(f"In {document_name(passage)}, the committee decided on its stance:")
        c.assessment["stance_decision"] = True  # the decision quoted says what the stance was
        c.quote(passage, sentence, "stance", figure_claim=False)
        return True
    changed = match.group("verb").lower() in _CHANGES or bool(STANCE_CHANGED.search(sentence))
    vote = _first(passages, MEMBERS_FOR_ANOTHER_STANCE)
    if not changed and "stance" not in sentence.lower() and vote is None:
        # "decided to remain focused on withdrawal of accommodation" keeps a course, but not
        # necessarily the words of the last stance (June 2022 dropped "accommodative"): only a
        # decision that names its stance, or members voting for another one, says it was kept.
        return False
    kept = "changed its stance" if changed else "did not change its stance"
    c.parts.append(f"{'Yes' if changed else 'No'}. In {document_name(passage)}, the committee {kept}:")
    c.assessment["stance_decision"] = True  # the decision quoted answers whether the stance changed
    c.quote(passage, sentence, "stance", figure_claim=False)
    if vote is not None and not changed:
        c.parts.append("Members who voted for another stance:")
        c.quote(vote[0], vote[1], "stance", figure_claim=False)
    return True


Found = tuple[dict[str, Any], str, re.Match[str]]


def _first(passages: list[dict[str, Any]], pattern: re.Pattern[str]) -> Found | None:
    """The first sentence matching ``pattern``, in page order, that is not a member's own words
    ("My preferred formulation … would have been: “The MPC also decided to continue …”")."""
    ordered = sorted(passages, key=lambda p: (int(p.get("page_number") or 0), p.get("chunk_id") or 0))
    for passage in ordered:
        for sentence in sentences(passage.get("text", "")):
            if (match := pattern.search(sentence)) and not FIRST_PERSON.search(sentence):
                return passage, sentence, match
    return None
