"""Moves of a rate: the move a sentence states ("reduce" → cut) and the move a yes/no question asks
("Did the MPC change the repo rate …?", "Did Prof. Varma vote to cut …?"), so that a decision or a
vote quoted answers it "Yes." or "No.". Pure.
"""

from __future__ import annotations

import re

from research.agent.question.statements import YES_NO

_CUT = ("reduc", "cut", "lower")
_RAISE = ("increas", "rais", "hik")
_KEEP = ("keep", "maintain", "retain", "hold", "leave", "status")  # "voted for status quo"
MOVES = ("cut", "raised", "unchanged")


def verb_of(word: str) -> str:
    """The move a verb states ("reduce" → "cut", "keep" → "unchanged"), else the verb itself."""
    word = word.lower()
    if word.startswith(_KEEP):
        return "unchanged"
    return "cut" if word.startswith(_CUT) else "raised" if word.startswith(_RAISE) else word


# "Did the MPC change the repo rate …?", "Was the repo rate cut …?", "Did it keep the rate unchanged?"
ASKED_MOVE = {
    "unchanged": re.compile(r"\b(keep|kept|hold|held|leave|left|unchanged|paus\w*|maintain\w*)\b", re.I),
    "cut": re.compile(r"\b(cut|cuts|reduc\w*|lower\w*|eas\w*)\b", re.I),
    "raised": re.compile(r"\b(rais\w*|hik\w*|increas\w*|tighten\w*)\b", re.I),
    "any": re.compile(r"\b(chang\w*|alter\w*|mov\w*|revis\w*)\b", re.I),
}


def asks_if_kept(question: str) -> bool:
    """ "Did the MPC keep the repo rate unchanged …?": a decision asked, though no move is named."""
    return bool(YES_NO.search(question) and ASKED_MOVE["unchanged"].search(question))


def verdict(question: str, move: str) -> str:
    """ "Yes. " or "No. " before a decision line, when ``question`` asks whether that move was made."""
    if not YES_NO.search(question):
        return ""
    asked = next((name for name, rx in ASKED_MOVE.items() if rx.search(question)), None)
    if asked is None or move not in MOVES:
        return ""
    made = move == asked or (asked == "any" and move != "unchanged")
    return "Yes. " if made else "No. "


_ASK = re.compile(r"\b(?:when|what|which|how|by how much)\b", re.I)


def other_move(question: str, move: str) -> bool:
    """Whether a question that is not a yes/no asks for one move ("When did the MPC last raise the
    rate?", "By how much did it cut …?") and ``move`` is another: the decision found does not answer."""
    if YES_NO.search(question) or move not in MOVES:
        return False
    # The ask itself, not a premise before it ("Since the MPC cut the rate …, what rate did it decide?").
    wh = _ASK.search(question)
    ask = question[wh.start() :] if wh else ""
    asked = [name for name in ("cut", "raised") if ASKED_MOVE[name].search(ask)]
    return len(asked) == 1 and move != asked[0]
