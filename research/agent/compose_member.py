"""A yes/no question about one member's vote ("Did Prof. Varma vote to cut the rate in June
2024?"), answered yes or no from the minutes' sentence that says how that member voted on the rate
("Dr. Ashima Goyal and Prof. Jayanth R. Varma voted to reduce the policy repo rate by 25 basis
points."), quoted and cited.

A question about what one member argued ("Why did Prof. Jayanth R. Varma vote for a cut in
February 2024?", "What did the Governor say about inflation?"), answered from that member's own
statement in the minutes: the sentences that give the member's reasons (or speak to what was
asked), then the member's vote, each quoted and cited to its page.

Only the passages ``rag_search`` marked ``statement_by`` (research/agent/members.py cut them to the
statement) are read: a member's reasons are never taken from the resolution or from another member.
Pure: passages in, answer parts out.
"""

from __future__ import annotations

import re
from typing import Any

from research.agent.composer import Composer, document_name
from research.agent.evidence import FIRST_PERSON
from research.agent.extract import sentences
from research.agent.lexicon import ASPECTS
from research.agent.members import asks_reasons, named, people, reasons
from research.agent.moves import MOVES, verb_of, verdict
from research.agent.statement_question import YES_NO


def compose_member(c: Composer, passages: list[dict[str, Any]]) -> bool:
    """Answer from the statement of the member the question names; ``False`` when there is none."""
    statement = [p for p in passages if p.get("statement_by")]
    if not statement or not asks_reasons(c.question):
        return False
    name = str(statement[0]["statement_by"])
    picked = reasons(c.question, statement, name)
    if not picked:
        return False
    where = document_name(statement[0])
    if ASPECTS["why"].search(c.question):
        c.parts.append(f"{name}’s reasons, in the member’s own statement in {where}:")
    else:
        c.parts.append(f"From {name}’s own statement in {where}:")
    for passage, sentence in picked:
        c.quote(passage, sentence, "member statement", figure_claim=False)
    c.assessment = {"member_statement": name}
    return True


# "… voted to reduce the policy repo rate …", "… voted to keep the policy repo rate unchanged …".
_VOTED_ON_RATE = re.compile(
    r"\bvoted (?:to|for) (?:an? )?(?P<verb>\w+)\b[^.;]{0,60}?\b(?:policy repo rate|repo rate|policy rate)\b", re.I
)


def _move_voted(sentence: str) -> str | None:
    found = _VOTED_ON_RATE.search(sentence)
    moved = verb_of(found.group("verb")) if found else None
    return moved if moved in MOVES else None


def compose_member_vote(c: Composer, passages: list[dict[str, Any]]) -> bool:
    """ "Did Prof. Varma vote to cut the rate …?": yes or no from the sentence that says how the
    member the question names voted on the rate; ``False`` when the question is not such or none says."""
    if not YES_NO.search(c.question) or not re.search(r"\bvot(?:e|ed)\b", c.question, re.I):
        return False
    texts = [str(p.get("text", "")) for p in passages]
    member = named(c.question, people(texts), texts)
    if member is None:
        return False
    for passage in passages:
        for sentence in sentences(str(passage.get("text", ""))):
            move = _move_voted(sentence)
            if move is None or member not in " ".join(sentence.split()) or FIRST_PERSON.search(sentence):
                continue
            said_yes = verdict(c.question, move)
            if not said_yes:
                return False
            said = {"cut": "to cut it", "raised": "to raise it", "unchanged": "to keep it unchanged"}[move]
            c.parts.append(f"{said_yes}{member} voted {said}, according to {document_name(passage)}.")
            c.quote(passage, sentence, "member vote", figure_claim=False)
            c.assessment = {"member_vote": member}
            return True
    return False
