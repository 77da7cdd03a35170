"""A member's own reasons: "Why did Prof. Varma vote for a cut?" is answered from that member's
statement in the minutes ("Statement by Prof. Jayanth R. Varma", up to the next member's), not from
the committee's resolution or the vote table, which say how a member voted but never why.

The members are read from the documents themselves (the names in their text, the statements'
headings, the office the opening sentence gives a member), never from a list kept here. Pure: texts in,
choices out.
"""

from __future__ import annotations

import re
from typing import Any

from research.agent.question.lexicon import ASPECTS
from research.agent.question.periods import MONTHS
from research.agent.text.sentences import figures_in, keywords, sentences
from research.agent.text.tables import HONORIFIC, normal_name
from research.packs import registry

# A person named with an honorific: "Dr. Ashima Goyal", "Prof. Jayanth R. Varma" (words and initials;
# a vote table's "Yes"/"No" after a name is not part of it).
PERSON = rf"\b{HONORIFIC}\s*[A-Z][a-z’'\-]+(?:\s+(?!(?:Yes|No|Abstain|Absent)\b)(?:[A-Z][a-z’'\-]+|[A-Z]\.)){{0,4}}"
_PERSON = re.compile(PERSON)
# "Statement by Prof. Jayanth R. Varma 42. Inflation is …": the heading, then the first paragraph's
# number, or the passage's end (its first paragraph begins the next passage).
STATEMENT_BY = re.compile(rf"\bStatement by\s+({PERSON})(?=\s+\d{{1,3}}\.\s|\s*$)")
# A member named with the office the pack's minutes give them ("…, <office> in charge …"), and a
# question naming the office instead of the member.
_OFFICE_NAMES = "|".join(o.name for o in registry.CHAIRS.offices) if registry.CHAIRS else "(?!)"
_ROLE = re.compile(rf"({PERSON}),\s+({_OFFICE_NAMES})\b")
_ROLE_ASKED = re.compile(rf"\b({_OFFICE_NAMES})\b", re.I)
# What a member argued is asked by "why", "what reasons", and by "what did X say / argue / think".
_SAY = re.compile(r"\b(argu\w*|say|said|says|views?|think|thought|position|concerns?|worr\w*|case for)\b", re.I)
# "I therefore vote to reduce …", "Hence, I vote for keeping …", "I would vote …".
VOTE_SENTENCE = re.compile(r"(?:^|[\s,(])I\s+(?:\w+\s+){0,2}vote\b")
# The sentences that give a reason: a consequence, a judgement in the first person, a risk.
_REASONING = re.compile(
    r"\b(because|therefore|hence|thus|implying|implies|warrant\w*|calls? for|in my view|"
    r"I (?:do not|don't) (?:believe|think|see)|I (?:believe|think|am of the view)|case for|risks?|"
    r"too (?:high|low|long))\b",
    re.I,
)
# A footnote's reference ("Available at: https://…", "Quarterly Review of Economics, 89 (June 2023)").
# A footnote's reference ("Available at: https://…", "Quarterly Review of Economics and Finance, 89 (June
# 2023): 369-393.", "Goyal, A and A. Verma.", "6 BIS Quarterly Review, September 2021."): a link, a year in
# brackets, a page range at its end, an author cited by surname and initial, a periodical and its date.
_FOOTNOTE = re.compile(
    r"https?://|\bAvailable at\b|\b(?i:doi)\b|\bpp\. \d|\((?:[A-Z][a-z]+\s+)?\d{4}\)|\d+\s*[-–]\s*\d+\.?$"
    r"|^[A-Z][\w’'\-]+,\s+[A-Z](?:\.|,|\s+and\b)"
    r"|\b(?:Review|Journal|Bulletin|Working Paper)\b.*,\s+(?:[A-Z][a-z]+\s+)?\d{4}\.?$"
)
# Question words that name the vote or the asking, not the subject of the member's reasons.
_ASKING = frozenset({"vote", "voted", "votin", "why", "reaso", "give", "gave", "argue", "argum", "say", "said"})


def asks_reasons(question: str) -> bool:
    """Whether the question asks what someone argued: why, what reasons, what did they say."""
    return bool(ASPECTS["why"].search(question) or _SAY.search(question))


def people(texts: list[str]) -> list[str]:
    """The people the texts name with an honorific ("Dr. Ashima Goyal"), in order of first mention."""
    return list(dict.fromkeys(normal_name(m.group(0)) for text in texts for m in _PERSON.finditer(text)))


def statement_names(texts: list[str]) -> list[str]:
    """The members whose statements the texts begin, in order."""
    return list(
        dict.fromkeys(normal_name(m.group(1)) for text in texts for m in STATEMENT_BY.finditer(" ".join(text.split())))
    )


def _own_words(name: str) -> list[str]:
    """The words that name ``name`` without its honorific or initials: "Jayanth", "Varma"."""
    bare = re.sub(rf"^{HONORIFIC}\s*", "", name)
    return [w for w in re.findall(r"[A-Za-z][\w’'\-]+", bare) if len(w) > 2]


def named(question: str, names: list[str], texts: list[str] = ()) -> str | None:  # type: ignore[assignment]
    """The member ``question`` names among ``names``: by surname ("Varma"), by more of the name
    when two share one, or by role ("the Governor") as ``texts`` give it; ``None`` when none."""
    scored = []
    for name in dict.fromkeys(names):
        words = _own_words(name)
        hits = [w for w in words if re.search(rf"\b{re.escape(w)}\b", question, re.I)]
        if words and words[-1] in hits:
            scored.append((len(hits), name))
    if scored:
        best = max(scored)
        return best[1] if [s for s in scored if s[0] == best[0]] == [best] else None  # two of a name: ask which
    asked = _ROLE_ASKED.search(question)
    if asked is None:
        return None
    roles = {
        m.group(2).lower(): normal_name(m.group(1)) for text in texts for m in _ROLE.finditer(" ".join(text.split()))
    }
    return roles.get(asked.group(1).lower())


def member_asked(question: str, ordered: list[dict[str, Any]]) -> str | None:
    """The member ``question`` names among those whose statements ``ordered`` (one document's
    passages in order) holds, or ``None``."""
    texts = [str(p.get("text", "")) for p in ordered]
    names = statement_names(texts)
    return named(question, names, texts) if names else None


def apart_from_statements(passages: list[dict[str, Any]], ordered: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``passages`` with those inside the members' statements of ``ordered``'s document marked
    ``in_statement`` (a member's view is not the committee's reason), and the passage where the
    first statement begins cut to the text before it."""
    heading = next((i for i, p in enumerate(ordered) if STATEMENT_BY.search(" ".join(str(p["text"]).split()))), None)
    if heading is None:
        return passages
    first = ordered[heading]
    inside = {p["chunk_id"] for p in ordered[heading + 1 :]}
    marked = []
    for passage in passages:
        if passage["chunk_id"] in inside:
            passage = {**passage, "in_statement": True}
        elif passage["chunk_id"] == first["chunk_id"]:
            text = " ".join(str(passage["text"]).split())
            found = STATEMENT_BY.search(text)
            passage = {**passage, "text": text[: found.start()].rstrip() if found else text}
        marked.append(passage)
    return marked


def statement_of(name: str, ordered: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The passages of ``name``'s statement (``ordered``: one document's passages in order), each
    a copy whose text is cut to the statement, marked ``statement_by``; [] when it has none."""
    found: list[dict[str, Any]] = []
    for passage in ordered:
        text = " ".join(str(passage.get("text", "")).split())
        # Its own heading begins the statement; repeated in a later passage (the chunker's overlap), the
        # text before it there is the previous member's.
        heading = next((m for m in STATEMENT_BY.finditer(text) if normal_name(m.group(1)) == name), None)
        if heading is None and not found:
            continue
        start = heading.end() if heading is not None else 0
        # The next member's statement ends this one (a passage may repeat this one's heading: overlap).
        following = next((m for m in STATEMENT_BY.finditer(text, start) if normal_name(m.group(1)) != name), None)
        cut = text[start : following.start() if following else len(text)].strip()
        found.append({**passage, "text": cut, "statement_by": name})
        if following:
            break
    return found


def reasons(question: str, statement: list[dict[str, Any]], name: str) -> list[tuple[dict[str, Any], str]]:
    """(passage, sentence) from the member's statement that answer ``question``, in their order: the
    two that best give the member's reasons (or say what was asked about), then the member's vote."""
    found: list[tuple[dict[str, Any], str]] = []
    seen: set[str] = set()
    for passage in statement:
        for sentence in sentences(passage["text"]):
            # A fragment ("close vigilance with a view to …", after a colon) does not read as a reason.
            if sentence not in seen and not _FOOTNOTE.search(sentence) and not sentence[0].islower():
                seen.add(sentence)  # overlapping passages repeat sentences
                found.append((passage, sentence))
    if not found:
        return []
    votes = [i for i, (_, s) in enumerate(found) if VOTE_SENTENCE.search(s)]
    vote = votes[-1] if votes else None
    own = {w.lower()[:5] for w in _own_words(name)}
    wanted = keywords(question) - own - _ASKING - {m[:5] for m in MONTHS}  # the month names the meeting

    def score(i: int) -> float:
        sentence = found[i][1]
        words = {w[:5] for w in re.findall(r"[a-z][a-z\-]+", sentence.lower())}
        coverage = len(wanted & words) / len(wanted) if wanted else 0.0
        # The reasons a member sums up right before voting: the nearer, the likelier.
        near_vote = max(0, 4 - (vote - i)) / 10 if vote is not None and i < vote else 0.0
        concrete = 0.1 * bool(figures_in(sentence))  # a reason with its figure ("a real rate of 2%")
        reasoned = 0.6 * bool(_REASONING.search(sentence))
        return 1.5 * coverage + reasoned + near_vote + concrete - 0.002 * max(0, len(sentence) - 300)

    best = sorted((i for i in range(len(found)) if i != vote), key=score, reverse=True)[:2]
    return [found[i] for i in sorted(best + ([vote] if vote is not None else []))]
