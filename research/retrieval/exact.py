"""Exact evidence for a query: a quoted phrase, a long verbatim run of the query's words, or a rare
term, found in the candidates BM25 already retrieved — the third ranked list of the hybrid search.

Why: the embedding reads meaning, and with BM25 only re-ranking its list, a passage that holds the
*exact* phrase an analyst pasted, or the one rare name they typed, could fall out of the top ten.
An analyst who types an exact phrase means that passage. This list puts such passages first
(``RESEARCH_RRF_WEIGHT_EXACT``); a query with no such evidence adds nothing to the fusion.

Pure functions over texts; the caller gives each term's document frequency.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from research.retrieval.text import STOPWORDS, stem

_WORD = re.compile(r"\w+", re.UNICODE)
_QUOTED = re.compile(r"[\"“”']([^\"“”']{6,300})[\"“”']")
MIN_RUN_WORDS = 5  # a verbatim run this long, with at least three content words, is a phrase
MIN_RUN_CONTENT = 3


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _joined(words: Sequence[str]) -> str:
    return " " + " ".join(words) + " "


def longest_run(query_words: Sequence[str], text: str) -> int:
    """The most consecutive query words (at least :data:`MIN_RUN_WORDS`, with enough content
    words) that appear verbatim in ``text``; 0 when none."""
    body = _joined(_words(text))
    best = 0
    n = MIN_RUN_WORDS
    while n <= len(query_words):
        found = False
        for start in range(len(query_words) - n + 1):
            gram = query_words[start : start + n]
            if sum(w not in STOPWORDS for w in gram) >= MIN_RUN_CONTENT and _joined(gram) in body:
                found = True
                break
        if not found:
            break
        best = n
        n += 1
    return best


_NAMEISH = re.compile(r"(?<!^)(?<![.?!]\s)\b(?:[A-Z][\w’'-]*[a-z][\w’'-]*|[A-Z]{2,}\w*|\w*\d\w*)\b")


def rare_terms(query: str, df: Callable[[str], int], n_docs: int) -> set[str]:
    """Words the analyst wrote as a name or code (capitalised mid-sentence, upper case, with digits)
    that occur in very few passages (but in some) — a person, a place, a programme, a code — and
    long words found in at most two passages (an unusual term or spelling the analyst copied)."""
    limit = max(3, int(0.002 * n_docs))
    named = {w.lower() for w in _NAMEISH.findall(query.strip())}
    found = {w for w in named if w not in STOPWORDS and len(w) > 2 and 0 < df(stem(w)) <= limit}
    return found | {w for w in _words(query) if len(w) >= 7 and 0 < df(stem(w)) <= 2}


def exact_ranking(
    query: str, candidates: Sequence[tuple[int, str]], df: Callable[[str], int], n_docs: int
) -> list[int]:
    """Ids of the ``candidates`` (``(id, text)``, in BM25 order) that hold exact evidence for
    ``query``, best first: a quoted phrase verbatim, then the longest verbatim run, then the most
    rare terms. Candidates without any are left out."""
    quoted = [" ".join(_words(q)) for q in _QUOTED.findall(query)]
    query_words = _words(query)
    rare = rare_terms(query, df, n_docs)
    scored: list[tuple[tuple[int, int, int, int], int]] = []
    for order, (chunk_id, text) in enumerate(candidates):
        body = _joined(_words(text))
        has_quote = sum(1 for q in quoted if q and f" {q} " in body)
        run = longest_run(query_words, text)
        rare_hits = sum(1 for w in rare if f" {w} " in body)
        if has_quote or run or rare_hits:
            scored.append(((has_quote, run, rare_hits, -order), chunk_id))
    scored.sort(key=lambda item: item[0], reverse=True)
    return [chunk_id for _, chunk_id in scored]
