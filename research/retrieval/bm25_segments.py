"""Segments: the immutable pieces the shared BM25 index is made of.

A segment holds a set of rows (one per chunk: chunk id, document id, length in tokens) and their
postings grouped by term — for each term present, the rows holding it and how often (a
column-compressed matrix of raw term frequencies). Nothing in a segment depends on the rest of
the library, so a segment is written once, memory-mapped by every process, and reused by every
later version of the index; what changes with the library (document frequencies, the corpus
size and mean length, deleted rows) lives beside it in the version (see ``bm25_store``).

Pure numpy: no Django, no database, no files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from itertools import chain

import numpy as np

from research.retrieval.text import tokenize

EMPTY_ROWS = np.zeros(0, dtype=np.int32)


@dataclass(frozen=True)
class Segment:
    """Rows ordered by chunk id and their postings ordered by (term, row). Arrays may be memmaps."""

    chunk_ids: np.ndarray  # int64 [rows], ascending
    doc_ids: np.ndarray  # int64 [rows]
    doc_set: np.ndarray  # int64 [documents]: the distinct document ids, ascending
    lengths: np.ndarray  # int32 [rows]: tokens in the row (BM25's document length)
    terms: np.ndarray  # int32 [t], ascending term ids present in the segment
    term_ptr: np.ndarray  # int64 [t + 1]: postings of terms[i] are [term_ptr[i], term_ptr[i + 1])
    post_rows: np.ndarray  # int32 [postings]: local row
    post_tf: np.ndarray  # int32 [postings]: occurrences of the term in the row

    @classmethod
    def array_names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    def __len__(self) -> int:
        return len(self.chunk_ids)

    @property
    def n_postings(self) -> int:
        return len(self.post_rows)

    def locate(self, term_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(which of ``term_ids`` this segment has, their positions in :attr:`terms`)."""
        pos = np.searchsorted(self.terms, term_ids)
        inside = pos < len(self.terms)
        found = np.zeros(len(term_ids), dtype=bool)
        found[inside] = self.terms[pos[inside]] == term_ids[inside]
        return np.flatnonzero(found), pos[found]

    def rows_of(self, chunk_ids: np.ndarray) -> np.ndarray:
        """Local rows of those of ``chunk_ids`` (sorted) that are in this segment."""
        if len(self) == 0 or len(chunk_ids) == 0:
            return EMPTY_ROWS
        pos = np.searchsorted(self.chunk_ids, chunk_ids)
        inside = pos < len(self)
        pos = pos[inside]
        return pos[self.chunk_ids[pos] == chunk_ids[inside]].astype(np.int32)

    def document_frequencies(self, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(term ids, how many of ``rows`` — all rows when None — hold each term)."""
        if rows is None:
            return np.asarray(self.terms), np.diff(self.term_ptr)
        mask = np.zeros(len(self), dtype=bool)
        mask[rows] = True
        hit = np.flatnonzero(mask[self.post_rows])
        which = np.searchsorted(self.term_ptr, hit, side="right") - 1
        counts = np.bincount(which, minlength=len(self.terms))
        present = np.flatnonzero(counts)
        return np.asarray(self.terms)[present], counts[present]

    def rows(self, dead: np.ndarray = EMPTY_ROWS) -> Rows:
        """This segment's rows except ``dead`` ones, as loose rows (to merge into a new segment)."""
        keep = np.ones(len(self), dtype=bool)
        keep[dead] = False
        new_row = np.cumsum(keep) - 1
        post_terms = np.repeat(np.asarray(self.terms), np.diff(self.term_ptr))
        live_post = keep[self.post_rows]
        return Rows(
            chunk_ids=np.asarray(self.chunk_ids)[keep],
            doc_ids=np.asarray(self.doc_ids)[keep],
            lengths=np.asarray(self.lengths)[keep],
            p_rows=new_row[self.post_rows[live_post]].astype(np.int32),
            p_terms=post_terms[live_post],
            p_tf=np.asarray(self.post_tf)[live_post],
        )


@dataclass(frozen=True)
class Rows:
    """Rows in any order with their postings as (row, term, tf) triples, before they are a segment."""

    chunk_ids: np.ndarray
    doc_ids: np.ndarray
    lengths: np.ndarray
    p_rows: np.ndarray
    p_terms: np.ndarray
    p_tf: np.ndarray

    @classmethod
    def concat(cls, parts: list[Rows]) -> Rows:
        if not parts:
            return cls.empty()
        offsets = np.cumsum([0] + [len(p.chunk_ids) for p in parts[:-1]])
        return cls(
            chunk_ids=np.concatenate([p.chunk_ids for p in parts]).astype(np.int64),
            doc_ids=np.concatenate([p.doc_ids for p in parts]).astype(np.int64),
            lengths=np.concatenate([p.lengths for p in parts]).astype(np.int32),
            p_rows=np.concatenate([p.p_rows + off for p, off in zip(parts, offsets, strict=True)]).astype(np.int32),
            p_terms=np.concatenate([p.p_terms for p in parts]).astype(np.int32),
            p_tf=np.concatenate([p.p_tf for p in parts]).astype(np.int32),
        )

    @classmethod
    def empty(cls) -> Rows:
        i64, i32 = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
        return cls(chunk_ids=i64, doc_ids=i64, lengths=i32, p_rows=i32, p_terms=i32, p_tf=i32)

    def without(self, chunk_ids: Iterable[int]) -> Rows:
        """These rows minus those whose chunk id is in ``chunk_ids``."""
        drop = np.isin(self.chunk_ids, np.fromiter(chunk_ids, dtype=np.int64))
        if not drop.any():
            return self
        keep = ~drop
        new_row = np.cumsum(keep) - 1
        live_post = keep[self.p_rows]
        return Rows(
            chunk_ids=self.chunk_ids[keep],
            doc_ids=self.doc_ids[keep],
            lengths=self.lengths[keep],
            p_rows=new_row[self.p_rows[live_post]].astype(np.int32),
            p_terms=self.p_terms[live_post],
            p_tf=self.p_tf[live_post],
        )

    def segment(self) -> Segment:
        """Rows sorted by chunk id, postings sorted by (term, row)."""
        order = np.argsort(self.chunk_ids, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        p_rows = rank[self.p_rows].astype(np.int32)
        by_term = np.lexsort((p_rows, self.p_terms))
        p_terms = self.p_terms[by_term]
        terms, starts = np.unique(p_terms, return_index=True)
        return Segment(
            chunk_ids=self.chunk_ids[order].astype(np.int64),
            doc_ids=self.doc_ids[order].astype(np.int64),
            doc_set=np.unique(self.doc_ids).astype(np.int64),
            lengths=self.lengths[order].astype(np.int32),
            terms=terms.astype(np.int32),
            term_ptr=np.append(starts, len(p_terms)).astype(np.int64),
            post_rows=p_rows[by_term],
            post_tf=self.p_tf[by_term].astype(np.int32),
        )


def merge(parts: list[tuple[Segment, np.ndarray]]) -> Segment:
    """One segment holding the live rows of ``(segment, dead rows)`` parts (dead rows dropped)."""
    return Rows.concat([segment.rows(dead) for segment, dead in parts]).segment()


class Tokeniser:
    """Turns ``(chunk id, document id, text)`` rows into :class:`Rows` with the project's one
    tokenizer. Terms are looked up with ``known`` (the vocabulary so far, many terms at a time); a
    term it does not know gets the next free id, recorded in ``new_terms`` in id order."""

    def __init__(self, known: Callable[[list[str]], list[int | None]], first_new_id: int) -> None:
        self._known = known
        self._next = first_new_id
        self._ids: dict[str, int] = {}
        self.new_terms: list[str] = []

    def _learn(self, terms: list[str]) -> None:
        """Give each of ``terms`` (not seen before, in order of first use) its id."""
        for term, found in zip(terms, self._known(terms), strict=True):
            if found is None:
                found = self._next
                self._next += 1
                self.new_terms.append(term)
            self._ids[term] = found

    def rows(self, rows: Iterable[tuple[int, int, str]]) -> Rows:
        chunk_ids: list[int] = []
        doc_ids: list[int] = []
        tokens: list[list[str]] = []
        for chunk_id, doc_id, text in rows:
            chunk_ids.append(chunk_id)
            doc_ids.append(doc_id)
            tokens.append(tokenize(text))
        ids = self._ids
        self._learn([t for t in dict.fromkeys(chain.from_iterable(tokens)) if t not in ids])
        lengths = [len(row) for row in tokens]
        flat = [ids[t] for row in tokens for t in row]
        n_rows = len(chunk_ids)
        row_of = np.repeat(np.arange(n_rows, dtype=np.int64), lengths)
        # One (row, term) key per token; unique keys with their counts are the postings.
        keys, tf = np.unique((row_of << 32) | np.asarray(flat, dtype=np.int64), return_counts=True)
        return Rows(
            chunk_ids=np.asarray(chunk_ids, dtype=np.int64),
            doc_ids=np.asarray(doc_ids, dtype=np.int64),
            lengths=np.asarray(lengths, dtype=np.int32),
            p_rows=(keys >> 32).astype(np.int32),
            p_terms=(keys & 0xFFFFFFFF).astype(np.int32),
            p_tf=tf.astype(np.int32),
        )
