"""What a document says about a topic ("What did the MPC say about crude oil prices in August
2024?"): the sentences of one document that name the topic (``topics``), quoted and cited to their
pages, the committee's own before the members' statements.

Before, such a question got the first figure sentence the ranking liked, labelled "The figure"
(the SDF rate for crude oil prices, a line on core industries for rural demand). A question that
asks a metric ("What did the MPC say about inflation?") keeps the metric's answer, a figure in its
unit. Pure: passages in, answer parts out.
"""

from __future__ import annotations

import re
from typing import Any

from research.agent.compose.composer import Composer, document_name, excerpt
from research.agent.question.topics import names_topic, topic_asked, topic_at, topic_phrase
from research.agent.question.understand import Understanding
from research.agent.text.sentences import sentences

MOST = 3
# A sentence that names the topic in its first words is about it; one that names it late in passing
# ("… and geopolitical tensions.") less so.
_EARLY = 60
# A report's layout run into a sentence: a section number ("IX.28"), a list item's marker ("; and iii."),
# a heading ("Expanding and Deepening of Digital Payments Ecosystem IV."), a sentence the page cut short.
_LAYOUT = re.compile(r"\b[IVX]{1,6}\.(?:\d{1,3}\b|$)|\b[ivx]{1,4}\.$|^[\d(]|[^.!?”’)]$")


def _laid_out(sentence: str) -> bool:
    return bool(_LAYOUT.search(sentence)) or len(sentence.split()) < 8


def _found(passages: list[dict[str, Any]], topic: list[str]) -> list[tuple[int, dict[str, Any], str]]:
    """(rank, passage, sentence) of each sentence naming ``topic``, once each, in ranked order."""
    found, seen = [], set()
    for rank, passage in enumerate(passages):
        for sentence in sentences(str(passage.get("text", ""))):
            if sentence not in seen and names_topic(sentence, topic):
                seen.add(sentence)
                found.append((rank, passage, sentence))
    return found


def compose_topic(c: Composer, u: Understanding, passages: list[dict[str, Any]]) -> bool:
    """Answer what one document says about the topic asked; ``False`` when the question asks no
    topic, asks a metric, or no passage names the topic."""
    topic = topic_asked(c.question)
    found = _found(passages, topic) if topic and not u.metrics else []
    if not found:
        return False
    # No period asked: the latest document found that names it (the committee's view now, not in 2023).
    latest = not (u.doc_periods or u.targets or u.fiscal)
    document = (max(found, key=lambda f: (str(f[1].get("doc_date") or ""), -f[0])) if latest else found[0])[1].get(
        "document_id"
    )
    found = [f for f in found if f[1].get("document_id") == document]
    committee = [f for f in found if not f[1].get("in_statement")]
    chosen = sorted(committee or found, key=lambda f: (_laid_out(f[2]), topic_at(f[2], topic) > _EARLY, f[0]))[:MOST]
    # In the document's order: page, passage, place in the passage.
    chosen.sort(key=lambda f: (int(f[1].get("page_number") or 0), f[1].get("chunk_id") or 0, f[1]["text"].find(f[2])))
    where, about = document_name(chosen[0][1]), topic_phrase(c.question)
    if committee:
        c.parts.append(f"What {where} says about {about}:")
    else:  # only the members' statements name it: their words, not the committee's
        c.parts.append(f"In the members’ own statements in {where}, on {about}:")
    for _rank, passage, sentence in chosen:
        at = topic_at(sentence, topic)
        text = excerpt(sentence, sentence[at : at + len(topic[0])])
        c.parts.append(f"“{text}” {c.cite(passage, text)}")
    c.assessment = {"topic": about}
    return True


def compose_topic_absent(c: Composer, u: Understanding, passages: list[dict[str, Any]]) -> bool:
    """ "What did the MPC say about cryptocurrency in August 2024?" where no passage found names it:
    said so plainly, naming the documents searched, rather than quoting sentences about something else."""
    topic = topic_asked(c.question)
    if not topic or u.metrics or not passages or _found(passages, topic):
        return False
    names = list(dict.fromkeys(document_name(p) for p in passages))
    where = names[0] if len(names) == 1 else "the documents the search returned"
    c.parts.append(
        f"I found no passage in {where} that mentions {topic_phrase(c.question)}, so there is nothing to quote on it."
    )
    c.outcome = "no_document"
    return True
