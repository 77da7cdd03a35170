"""A question about what one member argued ("Why did Prof. Jayanth R. Varma vote for a cut in
February 2024?", "What did the Governor say about inflation?"), answered from that member's own
statement in the minutes: the sentences that give the member's reasons (or speak to what was
asked), then the member's vote, each quoted and cited to its page.

Only the passages ``rag_search`` marked ``statement_by`` (research/agent/members.py cut them to the
statement) are read: a member's reasons are never taken from the resolution or from another member.
Pure: passages in, answer parts out.
"""

from __future__ import annotations

from typing import Any

from research.agent.composer import Composer, document_name
from research.agent.lexicon import ASPECTS
from research.agent.members import asks_reasons, reasons


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
