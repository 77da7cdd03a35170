"""The topic a question asks the documents about: "What did the MPC say about crude oil prices in
August 2024?" → "crude oil prices"; "What is the Reserve Bank's view on the monsoon?" → "monsoon".

Such a question is answered by the sentences that name the topic, not by whatever figure sentence
ranks first ("The figure: 6.25 per cent", the SDF rate, was the answer about crude oil prices).
A sentence names the topic when it holds each of the topic's words (cut to a five-letter stem, as
``extract.keywords`` cuts them: "tension" meets "tensions"). Pure: text in, words out.
"""

from __future__ import annotations

import re

from research.agent.question.periods import MONTH_ALT
from research.agent.text.sentences import STOPWORDS, WORD, stems
from research.packs import registry

# "say about", "said on", "view on", "views about", "comment on", "outlook for", "assessment of".
_ASKED_ABOUT = re.compile(
    r"\b(?:say|says|said|write|writes|wrote|note|notes|noted|state|states|stated|comments?|commented|remarks?|"
    r"mentions?|mentioned|views?|think|thinks|thought|assessment|position|concerns?|outlook|observ\w*)"
    r"(?:\s+\w+){0,4}?\s+(?:about|on|of|regarding|concerning|for)\s+(?P<topic>[^?.!;]+)",
    re.I,
)
# Where the topic ends: the period, the document or the meeting it is asked of.
_TOPIC_END = re.compile(
    rf"\s+(?:in|at|during|from|since|by|over|according|per|as of|for the|for (?:fy|q[1-4]|20\d\d)|"
    rf"(?:{MONTH_ALT})|(?:19|20)\d\d|q[1-4]|its|this|last)\b",
    re.I,
)
_NOT_TOPIC = {"the", "and", "its", "their", "our", "any", "committee", "minutes", "meeting", "report"} | set(
    registry.QUIET_WORDS
)


_SAYS = re.compile(
    r"(?:say|says|said|write|writes|wrote|note|notes|noted|state|states|stated|mentions?|mentioned)\b", re.I
)


def topic_phrase(question: str) -> str:
    """The topic as the question words it ("the monsoon", "crude oil prices"); "" when none. Of
    several verbs that could ask it, the last verb of saying: "What does the broker note on IT
    services say about margins?" asks "margins" ("note" there is the document)."""
    found = [
        m
        for at in range(len(question))
        if (m := _ASKED_ABOUT.match(question, at)) and (at == 0 or not question[at - 1].isalnum())
    ]
    said = [m for m in found if _SAYS.match(question, m.start())]
    best = said[-1] if said else found[0] if found else None
    return _TOPIC_END.split(best.group("topic"), maxsplit=1)[0].strip(" ,'\"’") if best else ""


def topic_asked(question: str) -> list[str]:
    """The topic's words as asked ("crude", "oil", "prices"); [] when the question asks about no topic."""
    words = WORD.findall(topic_phrase(question).lower())
    return [w for w in words if w not in _NOT_TOPIC and w not in STOPWORDS and len(w) > 2]


# Words the documents use for a word asked: "the stock market" is written "equity markets".
_ALSO = {"stock": ("equit",), "equit": ("stock",)}


def _forms(word: str) -> tuple[str, ...]:
    return (word[:5], *_ALSO.get(word[:5], ()))


def names_topic(sentence: str, topic: list[str]) -> bool:
    """Whether ``sentence`` holds every word of ``topic`` (five-letter stems, or a word the documents
    use for it)."""
    words = stems(sentence)
    return bool(topic) and all(any(form in words for form in _forms(t)) for t in topic)


def topic_at(sentence: str, topic: list[str]) -> int:
    """Where in ``sentence`` the topic is first named (its first word), for excerpts and ranking."""
    pattern = "|".join(re.escape(form) for form in _forms(topic[0])) if topic else ""
    found = re.search(rf"\b(?:{pattern})", sentence, re.I) if topic else None
    return found.start() if found else 0
