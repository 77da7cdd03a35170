"""A yes/no question about one member's vote ("Did Prof. Varma vote to cut the rate in June
2024?"), answered yes or no from the minutes' sentence that says how that member voted on the rate
("Dr. Ashima Goyal and Prof. Jayanth R. Varma voted to reduce the policy repo rate by 25 basis
points."), quoted and cited.

A question about what one member argued ("Why did Prof. Jayanth R. Varma vote for a cut in
February 2024?", "What did the Governor say about inflation?"), answered from that member's own
statement in the minutes: the sentences that give the member's reasons (or speak to what was
asked), then the member's vote, each quoted and cited to its page.

Only the passages ``rag_search`` marked ``statement_by`` (research/agent/evidence/members.py cut them to the
statement) are read: a member's reasons are never taken from the resolution or from another member.
Pure: passages in, answer parts out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from research.agent.compose.composer import Composer, document_name, source_name
from research.agent.evidence.members import asks_reasons, named, people, reasons
from research.agent.evidence.moves import ASKED_MOVE, MOVES, verb_of, verdict
from research.agent.evidence.select import FIRST_PERSON, STANCE_WORDS
from research.agent.question.lexicon import ASPECTS
from research.agent.question.statements import YES_NO
from research.agent.text.sentences import sentences
from research.agent.text.tables import PERSON, VoteTable, join_names, normal_name, vote_tables
from research.packs import registry


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


# The pack's headline policy rate: "… voted to reduce the <rate> …", "… voted to keep the <rate> unchanged".
_POLICY_RATE = registry.metric(registry.POLICY_RATE)
_RATE_NAMES = "|".join(re.escape(t).replace("\\ ", " ") for t in _POLICY_RATE.terms) if _POLICY_RATE else "(?!)"
_RATE_LABEL = _POLICY_RATE.label if _POLICY_RATE else "policy rate"
_VOTED_ON_RATE = re.compile(rf"\bvoted (?:to|for) (?:an? )?(?P<verb>\w+)\b[^.;]{{0,60}}?\b(?:{_RATE_NAMES})\b", re.I)


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
            c.parts.append(f"{said_yes}{member} voted {said}, according to {source_name(passage)}.")
            c.quote(passage, sentence, "member vote", figure_claim=False)
            c.assessment = {"member_vote": member}
            return True
    return False


_HOW_MANY_VOTED = re.compile(r"\bhow many\b[^?]*\bvot", re.I)
_RESOLUTION_MOVE = re.compile(r"\bResolution to (\w+)", re.I)
_TO = {"cut": "to cut it", "raised": "to raise it", "unchanged": "to keep it unchanged"}


def _members_voted(passages: list[dict[str, Any]], document_id: Any, move: str) -> tuple[dict[str, Any], str] | None:
    """The sentence of the document saying who voted for ``move`` ("Dr. Ashima Goyal and Prof.
    Jayanth R. Varma voted to reduce the policy repo rate by 25 basis points.")."""
    for passage in passages:
        if passage.get("document_id") != document_id:
            continue
        for sentence in sentences(str(passage.get("text", ""))):
            if _move_voted(sentence) == move and not FIRST_PERSON.search(sentence):
                return passage, " ".join(sentence.split())
    return None


_Side = tuple[str, list[str], "tuple[dict[str, Any], str] | None"]


def _sides(passages: list[dict[str, Any]], passage: dict[str, Any], table: VoteTable) -> dict[str, _Side]:
    """Each move voted for → (the table's side, its members, the sentence saying so): the resolution's
    move is the "Yes" side's; the "No" side's is the move the minutes say those very members voted for."""
    sides: dict[str, _Side] = {}
    resolution = _RESOLUTION_MOVE.search(table.caption)
    if resolution and verb_of(resolution.group(1)) in MOVES:
        sides[verb_of(resolution.group(1))] = ("for", table.yes, None)
    for move in [m for m in MOVES if m not in sides and table.no]:
        said = _members_voted(passages, passage.get("document_id"), move)
        if said and {normal_name(n).rstrip(".") for n in PERSON.findall(said[1])} == set(table.no):
            sides[move] = ("against", table.no, said)
    return sides


def compose_vote_count(c: Composer, passages: list[dict[str, Any]]) -> bool:
    """ "How many members voted for a rate cut in June 2024?": the members who voted for the move
    asked, counted as their side of the rate's vote table (re-counted by the verifier) and named; when
    no side voted for it, each side's move. ``False`` when the question is not such or the minutes do
    not say which move each side voted for."""
    asked = [move for move in MOVES if ASKED_MOVE[move].search(c.question)]
    if not _HOW_MANY_VOTED.search(c.question) or len(asked) != 1:
        return False
    tables = [
        (p, t) for p in passages for t in vote_tables(str(p.get("text", ""))) if not STANCE_WORDS.search(t.caption)
    ]
    if not tables:
        return False
    passage, table = tables[0]
    sides = _sides(passages, passage, table)
    if asked[0] not in sides and len(sides) < (2 if table.no else 1):
        return False  # what a side voted for is not said: the table alone (compose_docs) answers

    def counted(move: str) -> tuple[str, list[str]]:
        side, names, _ = sides[move]
        n = c.table_claim(passage, display=str(len(names)), value=len(names), against=0, side=side, label=move)
        return n, names

    where = document_name(passage)
    if asked[0] in sides:
        n, names = counted(asked[0])
        members = "member" if len(names) == 1 else "members"
        to = _TO[asked[0]].replace(" it", f" the {_RATE_LABEL}", 1)
        c.parts.append(f"{n} {members} voted {to} in {where}: {join_names(names)}.")
        quoted = [sides[asked[0]][2]]
    else:
        told: list[str] = []
        for move in sides:
            n, names = counted(move)
            told.append(f"{n} {'voted ' if not told else ''}{_TO[move]} ({join_names(names)})")
        to = _TO[asked[0]].replace(" it", f" the {_RATE_LABEL}", 1)
        c.parts.append(f"None of the members voted {to} in {where}: {' and '.join(told)}.")
        quoted = [x[2] for x in sides.values()]
    for said in [x for x in quoted if x]:
        c.quote(said[0], said[1], "member vote", figure_claim=False)
    c.parts.append(f"“{table.text}” {c.cite(passage, table.text)}")
    c.assessment = {"vote_count": asked[0]}
    return True


# "How many members voted for 35 basis points in August 2019?": a magnitude, not a move.
_MAGNITUDE_ASKED = re.compile(r"\bhow many\b[^?]*\bvot\w*\b[^?]*?\b(\d+(?:\.\d+)?)\s*(?:basis points?|bps)\b", re.I)


def asks_magnitude_count(question: str) -> bool:
    return _MAGNITUDE_ASKED.search(question) is not None


def compose_magnitude_count(
    c: Composer, passages: list[dict[str, Any]], lead: Callable[[], None] | None = None
) -> bool:
    """The members of the rate's vote table whose magnitude column (August 2019: "Magnitude of
    policy repo rate reduction (basis points)") reads the magnitude asked, counted (re-counted by the
    verifier) and named, then each other magnitude's; ``False`` when the question asks no magnitude
    or no such table holds it. ``lead`` puts the answer to the rest of the question first ("Policy
    repo rate: 5.40 per cent …" and its sentence), once the table is found."""
    asked = _MAGNITUDE_ASKED.search(c.question)
    if asked is None:
        return False
    tables = [
        (p, t)
        for p in passages
        for t in vote_tables(str(p.get("text", "")))
        if t.extra_header and not STANCE_WORDS.search(t.caption)
    ]
    if not tables:
        return False
    # The table holding the magnitude asked; else the first with a magnitude column (none voted for it).
    passage, table = next(((p, t) for p, t in tables if t.with_extra(asked.group(1))), tables[0])
    if lead is not None:
        lead()
    told = magnitude_counts(c, passage, table, first=asked.group(1))
    c.parts.append(f"In {document_name(passage)}, {told[0]}; {'; '.join(told[1:]) or 'no other magnitude'}.")
    c.parts.append(f"“{table.text}” {c.cite(passage, table.text)}")
    return True


def magnitude_counts(c: Composer, passage: dict[str, Any], table: VoteTable, first: str = "") -> list[str]:
    """ "4 members voted for 35 basis points (…)" for each magnitude of the table's magnitude column,
    ``first`` first, each count a table claim the verifier re-counts ([] without such a column)."""
    column = [r.extra for r in table.rows if r.extra]
    magnitudes = list(dict.fromkeys([first, *column] if first else column))
    told = []
    for magnitude in magnitudes:
        names = table.with_extra(magnitude)
        n = c.table_claim(
            passage, display=str(len(names)), value=len(names), against=0, label="members", extra=magnitude
        )
        # A magnitude nobody voted for is not in the table: the question's own words name it.
        size = c.quote_claim(passage, magnitude, "basis points", "magnitude") if names else f"{magnitude} basis points"
        members = "member" if len(names) == 1 else "members"
        told.append(f"{n} {members} voted for {size}" + (f" ({join_names(names)})" if names else ""))
    return told
