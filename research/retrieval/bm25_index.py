"""BM25 scoring that ranks exactly like ``rank_bm25.BM25Okapi``, over one or more segments.

Scores are computed at query time from raw term frequencies, document lengths and the corpus
statistics of the version (rows, total length, document frequency of each term, mean idf), so
the stored segments never change when the library does — only the small statistics do. A query
touches the postings of its own terms only. The arrays may be memory-mapped (``bm25_store``) or
in memory (:func:`build_index`, used by tests and the quality benchmark); the code is the same.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from research.retrieval.bm25_segments import EMPTY_ROWS, Rows, Segment, Tokeniser
from research.retrieval.text import tokenize


@dataclass(frozen=True)
class Bm25Params:
    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25


class Vocab(Protocol):
    def get(self, term: str) -> int | None: ...

    def __len__(self) -> int: ...


def mean_idf(df: np.ndarray, n: int) -> float:
    """BM25Okapi's mean idf over the terms present in the corpus (before its negative floor)."""
    present = np.asarray(df)[np.asarray(df) > 0].astype(np.float64)
    if present.size == 0:
        return 0.0
    return float((np.log(n - present + 0.5) - np.log(present + 0.5)).sum() / present.size)


@dataclass(frozen=True)
class CorpusStats:
    """What BM25 needs of the whole library at one version."""

    n: int  # live rows
    total_length: int  # tokens in the live rows
    average_idf: float
    df: np.ndarray  # live rows holding each term, by term id

    @classmethod
    def of(cls, df: np.ndarray, n: int, total_length: int) -> CorpusStats:
        return cls(n=n, total_length=total_length, average_idf=mean_idf(df, n), df=df)


class Bm25Index:
    """The live rows of ``parts`` — ``(segment, its deleted rows)`` — scored as one BM25Okapi corpus."""

    def __init__(
        self, parts: Sequence[tuple[Segment, np.ndarray]], vocab: Vocab, stats: CorpusStats, params: Bm25Params
    ) -> None:
        self.parts = list(parts)
        self.vocab = vocab
        self.stats = stats
        self.params = params

    def __len__(self) -> int:
        return self.stats.n

    @property
    def ids(self) -> np.ndarray:
        """Chunk ids of the live rows, ascending."""
        live = [np.delete(np.asarray(seg.chunk_ids), dead) for seg, dead in self.parts]
        return np.sort(np.concatenate(live)) if live else np.zeros(0, dtype=np.int64)

    def _weights(self, query: str | Sequence[str]) -> tuple[list[int], np.ndarray]:
        """Term ids of the query present in the corpus, and count × idf for each (a repeated
        query token counts again, as in BM25Okapi; negative idf floored to ε × mean idf)."""
        tokens = tokenize(query) if isinstance(query, str) else list(query)
        df_all = self.stats.df
        terms, counts = [], []
        for token, count in Counter(tokens).items():
            term = self.vocab.get(token)
            if term is not None and term < len(df_all) and df_all[term] > 0:
                terms.append(term)
                counts.append(count)
        df = np.asarray(df_all[terms], dtype=np.float64)
        n = self.stats.n
        idf = np.log(n - df + 0.5) - np.log(df + 0.5)
        idf[idf < 0] = self.params.epsilon * self.stats.average_idf
        return terms, idf * np.asarray(counts, dtype=np.float64)

    def _hits(
        self, segment: Segment, dead: np.ndarray, terms: list[int], weights: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(local rows holding a query term and not deleted, their BM25 scores)."""
        k1, b = self.params.k1, self.params.b
        avgdl = self.stats.total_length / self.stats.n if self.stats.n else 1.0
        scores: np.ndarray | None = None
        hit = np.zeros(0, dtype=bool)
        for term, weight in zip(terms, weights, strict=True):
            found = segment.postings(term)
            if found is None:
                continue
            rows, tf_raw = found
            if scores is None:
                scores, hit = np.zeros(len(segment)), np.zeros(len(segment), dtype=bool)
            tf = tf_raw.astype(np.float64)
            scores[rows] += weight * (tf * (k1 + 1) / (tf + k1 * (1 - b + b * segment.lengths[rows] / avgdl)))
            hit[rows] = True
        if scores is None:
            return EMPTY_ROWS, np.zeros(0)
        hit[dead] = False
        rows = np.flatnonzero(hit)
        return rows, scores[rows]

    def scores(self, query: str | Sequence[str]) -> np.ndarray:
        """BM25Okapi ``get_scores`` for every live row, rows in chunk-id order (see :attr:`ids`)."""
        ids = self.ids
        out = np.zeros(len(ids))
        terms, weights = self._weights(query)
        for segment, dead in self.parts:
            rows, scores = self._hits(segment, dead, terms, weights)
            out[np.searchsorted(ids, np.asarray(segment.chunk_ids)[rows])] = scores
        return out

    def top(
        self, query: str | Sequence[str], k: int, allowed_doc_ids: Sequence[int] | None = None
    ) -> list[tuple[int, float]]:
        """``(chunk id, score)`` of the best ``k`` rows containing at least one query term,
        restricted to ``allowed_doc_ids`` *before* ranking; ties in chunk-id order.

        Rows without any query term are never returned. (In a tiny corpus BM25Okapi's idf can
        be negative, so a matching row may score below zero; it is still a match.)"""
        terms, weights = self._weights(query)
        if not terms or k <= 0:
            return []
        allowed = None if allowed_doc_ids is None else _doc_mask(allowed_doc_ids)
        ids_parts, score_parts = [], []
        for segment, dead in self.parts:
            rows, scores = self._hits(segment, dead, terms, weights)
            if allowed is not None and rows.size:
                docs = np.asarray(segment.doc_ids[rows])
                inside = docs < len(allowed)
                keep = np.zeros(len(rows), dtype=bool)
                keep[inside] = allowed[docs[inside]]
                rows, scores = rows[keep], scores[keep]
            rows, scores = _best(rows, scores, k)
            ids_parts.append(np.asarray(segment.chunk_ids[rows]))
            score_parts.append(scores)
        ids = np.concatenate(ids_parts) if ids_parts else np.zeros(0, dtype=np.int64)
        scores = np.concatenate(score_parts) if score_parts else np.zeros(0)
        order = np.lexsort((ids, -scores))[:k]
        return [(int(ids[i]), float(scores[i])) for i in order]


def _doc_mask(allowed_doc_ids: Sequence[int]) -> np.ndarray:
    """A boolean lookup table indexed by document id."""
    allowed = np.asarray(allowed_doc_ids, dtype=np.int64)
    allowed = allowed[allowed >= 0]
    mask = np.zeros(int(allowed.max()) + 1 if allowed.size else 0, dtype=bool)
    mask[allowed] = True
    return mask


def _best(rows: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best rows and every row tied with the k-th (the caller breaks ties)."""
    if rows.size <= k:
        return rows, scores
    kth = np.partition(scores, rows.size - k)[rows.size - k]
    keep = scores >= kth
    return rows[keep], scores[keep]


class DictVocab(dict[str, int]):
    """An in-memory vocabulary (term → id)."""


def index_of(rows: Rows, vocab: Vocab, params: Bm25Params) -> Bm25Index:
    """An in-memory index of ``rows`` as a single segment."""
    segment = rows.segment()
    df = np.zeros(len(vocab), dtype=np.int64)
    terms, counts = segment.document_frequencies()
    df[terms] = counts
    stats = CorpusStats.of(df, len(segment), int(np.asarray(segment.lengths, dtype=np.int64).sum()))
    return Bm25Index([(segment, EMPTY_ROWS)], vocab, stats, params)


class _Builder:
    """Rows added and removed in memory, for an index of them (tests, the quality benchmark)."""

    def __init__(self) -> None:
        self.vocab = DictVocab()
        self._rows = Rows.empty()

    def add(self, rows: Sequence[tuple[int, int, str]]) -> None:
        tokeniser = Tokeniser(self.vocab.get, len(self.vocab))
        added = tokeniser.rows(rows)
        for term in tokeniser.new_terms:
            self.vocab[term] = len(self.vocab)
        self._rows = Rows.concat([self._rows.without(added.chunk_ids.tolist()), added])

    def remove(self, chunk_ids: set[int]) -> None:
        self._rows = self._rows.without(chunk_ids)

    def index(self, params: Bm25Params) -> Bm25Index:
        return index_of(self._rows, self.vocab, params)


def build_index(rows: Sequence[tuple[int, int, str]], params: Bm25Params | None = None) -> Bm25Index:
    """Build from ``(chunk id, document id, text)`` rows (used by tests and benchmarks)."""
    builder = _Builder()
    builder.add(rows)
    return builder.index(params or Bm25Params())
