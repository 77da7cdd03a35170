"""The one BM25 tokenizer, shared by indexing, querying, highlighting and the rank-bm25 reference."""

from __future__ import annotations

import re

# Words and numbers; a decimal like 6.50 stays one token so figures can be searched for.
_TOKEN = re.compile(r"\d+(?:\.\d+)+|\w+", re.UNICODE)

# A short list: BM25's idf already discounts common words; this only drops pure glue.
STOPWORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "which",
        "with",
    }
)


def tokenize(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]
