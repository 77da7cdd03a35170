"""The institutions and other proper names a question is about, and whether the evidence names them.

"Why did the Federal Open Market Committee pause in September 2019?" asked of a library of RBI
minutes found a sentence of the RBI's minutes with a reason in it; every word of it traced, and it
was about another committee. A name the question gives its subject — two or more capitalised words:
"Federal Open Market Committee", "European Central Bank", "Digital Media", "Greater China" — must
appear in the passages the answer cites (or in their documents' titles), whole or by its initials
("Monetary Policy Committee" as "MPC").

People and offices are left to the member check (``members``). One word counts only as an
owner ("Microsoft's Azure revenue", "Tesla's deliveries": the company whose figure is asked, found
in the documents' titles too, "Apple Inc. Form 10-Q"); otherwise "EPS" or "CPI" is a metric the
passages may spell out. Pure: texts in, names out.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from typing import Any

from research.agent.evidence.members import PERSON
from research.packs import registry

_CAPITALISED = r"[A-Z][a-z]+"
_WORD = rf"(?:{_CAPITALISED}|[A-Z]{{2,}})"
_JOINS = ("of", "and", "for", "the", "on")
_NAME = re.compile(rf"\b{_WORD}(?:\s+(?:(?:{'|'.join(_JOINS)})\s+)?{_WORD})*\b")
# "Microsoft's", "Tesla's", "FOMC's", "eBay's": one word, but the owner of what is asked.
_OWNER = re.compile(r"\b([A-Z][A-Za-z]+|[a-z][A-Z][A-Za-z]+)['’]s\b")
# "eBay", "iShares": a word capitalised inside is a name wherever it stands.
_CAMEL = re.compile(r"\b[a-z]{1,2}[A-Z][A-Za-z]+\b")
# Words that are capitalised as dates, not as names ("the June 2024 meeting", "Monday").
_DATES = {*calendar.month_name[1:], *calendar.month_abbr[1:], "Sept", *calendar.day_name}
# An office ("the Chief Financial Officer", a pack's head of the bank) names a person, whom the passages name
# instead: the member check reads the office holder's statement by the member's name.
_OFFICES = {"Officer", "Chairman", "Chairperson", "Chair", "President", "Director", "Minister", "Secretary"} | set(
    registry.OFFICES
)
# A sentence's first word is capitalised by grammar ("What", "Since", "Compare").
_SENTENCE_START = re.compile(r"(?:^|[.?!:;]\s+|\n)\s*[\"“‘(]?([A-Z][a-z]+)\b")


def names_asked(question: str) -> list[str]:
    """The names of two or more capitalised words in ``question`` (a person's name left out),
    without a sentence's first word, and the owners named ("Microsoft's"): "Why did the Federal
    Open Market Committee pause?" → ["Federal Open Market Committee"]."""
    text = re.sub(PERSON, " ", question)
    starts = {m.start(1) for m in _SENTENCE_START.finditer(text)}
    found: list[str] = []
    for match in _NAME.finditer(text):
        words = match.group(0).split()
        if match.start() in starts:
            words = words[1:]
        while words and words[0] in _JOINS:
            words = words[1:]
        if any(w in _DATES for w in words) or (words and words[-1] in _OFFICES):
            continue
        if sum(1 for w in words if re.fullmatch(_CAPITALISED, w)) >= 2 and " ".join(words) not in found:
            found.append(" ".join(words))
    owners = [m.group(1) for m in _OWNER.finditer(text) if m.group(1) not in _DATES | _OFFICES]
    owners += [m.group(0) for m in _CAMEL.finditer(text) if m.group(0) not in owners]
    return found + [w for w in owners if not any(w in name.split() for name in found)]


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("’", "'")).lower()


def named_in(name: str, texts: Iterable[str], titles: Iterable[str] = ()) -> bool:
    """Do ``texts`` name ``name``: whole, by its initials ("MPC"), or — where the documents' ``titles``
    hold some of its words ("Adobe Digital Media" of "Adobe Inc. Form 10-Q") — by the rest?"""
    titles = list(titles)
    texts = [*texts, *titles]
    body = _normal(" ".join(texts))
    core = [w for w in name.split() if w not in _JOINS]
    titled = set(_normal(" ".join(titles)).split())
    rest = [w for w in name.split() if w.lower() not in titled]
    if not rest or _normal(name) in body or (rest != name.split() and _normal(" ".join(rest)) in body):
        return True  # (no rest: the document's title is the name — "RBI Annual Report 2023-24")
    initials = "".join(w[0] for w in core)
    if len(core) > 1:
        return any(re.search(rf"\b{initials}\b", t) for t in texts)
    return _ACRONYM.fullmatch(name) is not None and any(re.search(_spelled_out(name), t) for t in texts)


# An acronym a question may use for a name the documents spell out: "ECB", "FOMC", "BoC".
_ACRONYM = re.compile(r"(?=(?:[a-z]*[A-Z]){2})[A-Za-z]{2,6}")


def _spelled_out(acronym: str) -> str:
    """The words an acronym stands for, letter by letter: a capital starts a capitalised word, a
    small letter a small one ("BoC": "Bank of Canada", "ECB": "European Central Bank")."""
    return r"\b" + r"\s+".join(rf"{letter}[\w'’-]*" for letter in acronym) + r"\b"


def names_missing(question: str, passages: Iterable[dict[str, Any]]) -> list[str]:
    """The names ``question`` asks about that none of ``passages`` (each with its "text" and its
    document's "document_title" and "issuer") names."""
    passages = list(passages)
    texts = [str(p.get("text", "")) for p in passages]
    titles = [f"{p.get('document_title') or ''} {p.get('issuer') or ''}" for p in passages]
    return [name for name in names_asked(question) if not named_in(name, texts, titles)]
