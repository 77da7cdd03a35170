"""Token-aware chunking with overlap that keeps sentences whole.

A chunk never crosses a page (a citation names one page) and is at most
``RESEARCH_CHUNK_TOKENS`` word pieces of the embedding model's own tokenizer, which must stay
below the model's window (256 for all-MiniLM-L6-v2, minus [CLS]/[SEP]) so the whole chunk is
embedded. Consecutive chunks of a page share up to ``RESEARCH_CHUNK_OVERLAP`` tokens of whole
sentences. Only a sentence longer than a chunk is split, at word boundaries.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from research.ingest.parsers import Page
from research.packs import registry

# A sentence ends at . ! ? followed by space and an upper-case letter, digit, bracket or quote;
# "Dr. Smith" style abbreviations are guarded by the list below, the packs' own ("Rs.") among them.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[“\"‘'•])")
_GENERIC_ABBREVIATIONS = (
    r"[A-Z]|Dr|Mr|Mrs|Ms|Prof|St|No|vs|viz|i\.e|e\.g|etc|Fig|Sec|Vol|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
_ABBREVIATIONS = re.compile(rf"\b(?:{_GENERIC_ABBREVIATIONS}|{'|'.join(registry.ABBREVIATIONS)})\.$")


@dataclass
class ChunkDraft:
    page_number: int
    page_label: str
    section: str
    text: str
    token_count: int
    # The text's word pieces as the embedding model reads them (its sentences' pieces in order: BERT
    # word pieces never span whitespace), handed to the model so that it does not tokenize again.
    pieces: list[int] = field(default_factory=list)


def split_sentences(text: str) -> list[str]:
    pieces = _SENTENCE_END.split(text)
    sentences: list[str] = []
    for piece in pieces:
        if sentences and _ABBREVIATIONS.search(sentences[-1]):
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return [s.strip() for s in sentences if s.strip()]


def _section_label(sections: list[str]) -> str:
    distinct = [s for i, s in enumerate(sections) if s and s not in sections[:i]]
    if not distinct:
        return ""
    if len(distinct) == 1:
        return distinct[0]
    return f"{distinct[0]} – {distinct[-1]}"[:120]


def _draft(page: Page, window: list[tuple[str, str, list[int]]]) -> ChunkDraft:
    pieces = [piece for _, _, ids in window for piece in ids]
    return ChunkDraft(
        page_number=page.number,
        page_label=page.label,
        section=_section_label([s for _, s, _ in window]),
        text=" ".join(t for t, _, _ in window),
        token_count=len(pieces),
        pieces=pieces,
    )


def chunk_pages(
    pages: Sequence[Page],
    *,
    word_pieces: Callable[[Sequence[str]], list[list[int]]],
    max_tokens: int,
    overlap: int,
) -> list[ChunkDraft]:
    drafts: list[ChunkDraft] = []
    # (sentence, section) of each page; every sentence of the file is tokenized in one call (the
    # tokenizer's batch runs on all cores: parsing and chunking the ingestion bench's 7 files took
    # 0.49 s counted page by page, 0.33 s at once).
    page_units = [
        [(sentence, paragraph.section) for paragraph in page.paragraphs for sentence in split_sentences(paragraph.text)]
        for page in pages
    ]
    all_pieces = iter(word_pieces([text for units in page_units for text, _ in units]))
    for page, units in zip(pages, page_units, strict=True):
        if not units:
            continue
        tokenized = [next(all_pieces) for _ in units]
        # Split the rare over-long sentence at word boundaries into parts that fit.
        fitted: list[tuple[str, str, list[int]]] = []
        for (text, section), ids in zip(units, tokenized, strict=True):
            if len(ids) <= max_tokens:
                fitted.append((text, section, ids))
                continue
            words = text.split()
            per_part = max(1, int(len(words) * max_tokens / len(ids) * 0.9))
            parts = [" ".join(words[i : i + per_part]) for i in range(0, len(words), per_part)]
            for part, part_ids in zip(parts, word_pieces(parts), strict=True):
                fitted.append((part, section, part_ids))
        window: list[tuple[str, str, list[int]]] = []
        size = 0
        fresh = 0  # sentences in the window that no earlier chunk contains

        for unit in fitted:
            # BERT word pieces never span whitespace, so a joined chunk is its parts' pieces in order.
            n = len(unit[2])
            if window and size + n > max_tokens:
                drafts.append(_draft(page, window))
                carried: list[tuple[str, str, list[int]]] = []
                carried_size = 0
                for previous in reversed(window):
                    m = len(previous[2])
                    if carried_size + m > overlap or carried_size + m + n > max_tokens:
                        break
                    carried.insert(0, previous)
                    carried_size += m
                window, size, fresh = carried, carried_size, 0
            window.append(unit)
            size += n
            fresh += 1
        if window and fresh:
            drafts.append(_draft(page, window))
    return drafts
