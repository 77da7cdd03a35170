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

    def get_many(self, terms: Sequence[str]) -> list[int | None]: ...

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


@dataclass(frozen=True)
class _Query:
    terms: np.ndarray  # int64 ids of the query's terms present in the corpus
    weights: np.ndarray  # count in the query × idf


class Bm25Index:
    """The live rows of ``parts`` — ``(segment, its deleted rows)`` — scored as one BM25Okapi corpus."""

    def __init__(
        self, parts: Sequence[tuple[Segment, np.ndarray]], vocab: Vocab, stats: CorpusStats, params: Bm25Params
    ) -> None:
        self.parts = list(parts)
        self.vocab = vocab
        self.stats = stats
        self.params = params
        self.avgdl = stats.total_length / stats.n if stats.n else 1.0
        self._views: dict[tuple[int, ...], Bm25Index] = {}

    def __len__(self) -> int:
        return self.stats.n

    def document_frequency(self, term: str) -> int:
        """In how many live rows (chunks) ``term`` — a token as :func:`tokenize` gives it — occurs."""
        term_id = self.vocab.get(term)
        if term_id is None or term_id >= len(self.stats.df):
            return 0
        return int(self.stats.df[term_id])

    @property
    def ids(self) -> np.ndarray:
        """Chunk ids of the live rows, ascending."""
        live = [np.delete(np.asarray(seg.chunk_ids), dead) for seg, dead in self.parts]
        return np.sort(np.concatenate(live)) if live else np.zeros(0, dtype=np.int64)

    def seen_without(self, hidden_doc_ids: Sequence[int]) -> Bm25Index:
        """This index as it would be built for someone who may not see ``hidden_doc_ids``: BM25's
        statistics (rows, total length, each term's document frequency, the mean idf) counted over
        the other rows only. Why: they enter every score, and a search shows its scores (the API,
        the MCP tool), so statistics that counted a colleague's private document would tell anyone
        probing with its words whether it holds them. Itself when none of those documents is
        indexed; a view is kept per set of hidden documents, so a version computes each once."""
        key = tuple(sorted(set(int(d) for d in hidden_doc_ids)))
        view = self._views.get(key)
        if view is not None:
            return view
        hidden = _doc_mask(key)
        rows_by_part = [_rows_of_docs(segment, dead, hidden) for segment, dead in self.parts]
        if not any(rows.size for rows in rows_by_part):
            view = self
        else:
            df = np.array(self.stats.df, dtype=np.int64)
            n, total_length = self.stats.n, self.stats.total_length
            for (segment, _dead), rows in zip(self.parts, rows_by_part, strict=True):
                if rows.size:
                    terms, counts = segment.document_frequencies(rows)
                    df[terms] -= counts
                    n -= int(rows.size)
                    total_length -= int(np.asarray(segment.lengths)[rows].astype(np.int64).sum())
            view = Bm25Index(self.parts, self.vocab, CorpusStats.of(df, n, total_length), self.params)
        if len(self._views) >= _VIEWS_KEPT:
            self._views.clear()
        self._views[key] = view
        return view

    def query(self, query: str | Sequence[str]) -> _Query:
        """The query's terms present in the corpus, each weighted count × idf (a repeated query
        token counts again, as in BM25Okapi; negative idf floored to ε × mean idf)."""
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
        return _Query(np.asarray(terms, dtype=np.int64), idf * np.asarray(counts, dtype=np.float64))

    def contribution(self, weight: float | np.ndarray, tf: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """``weight`` × BM25's term-frequency factor tf·(k1 + 1) / (tf + k1·(1 − b + b·length / avgdl)),
        in float64 with few temporaries (equal to BM25Okapi's value up to the last bits)."""
        k1, b = self.params.k1, self.params.b
        out = lengths * (k1 * b / self.avgdl)
        out += k1 * (1 - b)
        out += tf
        return np.divide(tf * (np.asarray(weight) * (k1 + 1)), out, out=out)

    def scores(self, query: str | Sequence[str]) -> np.ndarray:
        """BM25Okapi ``get_scores`` for every live row, rows in chunk-id order (see :attr:`ids`)."""
        ids = self.ids
        out = np.zeros(len(ids))
        terms = self.query(query)
        for segment, dead in self.parts:
            rows, scores = _Ranker(self, segment, dead, terms, None).top(None)
            out[np.searchsorted(ids, np.asarray(segment.chunk_ids)[rows])] = scores
        return out

    def top(
        self, query: str | Sequence[str], k: int, allowed_doc_ids: Sequence[int] | None = None
    ) -> list[tuple[int, float]]:
        """``(chunk id, score)`` of the best ``k`` rows containing at least one query term,
        restricted to ``allowed_doc_ids`` *before* ranking; ties in chunk-id order.

        Rows without any query term are never returned. (In a tiny corpus BM25Okapi's idf can
        be negative, so a matching row may score below zero; it is still a match.)"""
        terms = self.query(query)
        if not terms.terms.size or k <= 0:
            return []
        allowed = None if allowed_doc_ids is None else _doc_mask(allowed_doc_ids)
        ids_parts, score_parts = [], []
        for segment, dead in self.parts:
            rows, scores = _Ranker(self, segment, dead, terms, allowed).top(k)
            ids_parts.append(np.asarray(segment.chunk_ids)[rows])
            score_parts.append(scores)
        ids = np.concatenate(ids_parts) if ids_parts else np.zeros(0, dtype=np.int64)
        scores = np.concatenate(score_parts) if score_parts else np.zeros(0)
        order = np.lexsort((ids, -scores))[:k]
        return [(int(ids[i]), float(scores[i])) for i in order]


class _Ranker:
    """One query over one segment, term at a time into a dense score table.

    (An exact MaxScore variant — skipping the postings of common terms once they cannot lift a
    row into the top k — was measured on the 1M-passage bench and removed: it found the cut-off
    for two queries in three, but the checks cost as much as they saved; see git history.)"""

    def __init__(
        self, index: Bm25Index, segment: Segment, dead: np.ndarray, query: _Query, allowed: np.ndarray | None
    ) -> None:
        self.index, self.segment, self.dead = index, segment, dead
        self.row_allowed = self._row_filter(allowed)
        found, pos = segment.locate(query.terms)
        self.weights = query.weights[found]
        self.starts, self.ends = segment.term_ptr[pos], segment.term_ptr[pos + 1]

    def _row_filter(self, allowed: np.ndarray | None) -> np.ndarray | None:
        """Which rows are in an allowed document; None when they all are (the usual case)."""
        if allowed is None:
            return None
        docs = self.segment.doc_set
        inside = docs < len(allowed)
        if docs.size == 0 or (inside.all() and allowed[docs].all()):
            return None
        return _in_docs(self.segment, allowed)

    def top(self, k: int | None) -> tuple[np.ndarray, np.ndarray]:
        """The best ``k`` rows and every row tied with the k-th; all matching rows when None."""
        segment = self.segment
        scores, hit = np.zeros(len(segment)), np.zeros(len(segment), dtype=bool)
        for weight, start, end in zip(self.weights, self.starts, self.ends, strict=True):
            rows = segment.post_rows[start:end]
            scores[rows] += self.index.contribution(weight, segment.post_tf[start:end], segment.lengths[rows])
            hit[rows] = True
        hit[self.dead] = False
        if self.row_allowed is not None:
            hit &= self.row_allowed
        rows = np.flatnonzero(hit)
        return (rows, scores[rows]) if k is None else _best(rows, scores[rows], k)


# Views of one version kept at once (Bm25Index.seen_without): one per distinct set of documents
# hidden from a searcher, which is one per user who owns private documents, plus one for the rest
# (a view without hidden rows is the index itself).
_VIEWS_KEPT = 64


def _in_docs(segment: Segment, docs: np.ndarray) -> np.ndarray:
    """Per row of ``segment``, whether its document is in ``docs`` (a mask by document id, which
    may be shorter than the segment's largest id)."""
    padded = np.zeros(int(segment.doc_set[-1]) + 1 if len(segment.doc_set) else 0, dtype=bool)
    padded[: min(len(docs), len(padded))] = docs[: len(padded)]
    return padded[segment.doc_ids]


def _rows_of_docs(segment: Segment, dead: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """The live rows of ``segment`` in a document of ``docs`` (a mask by document id)."""
    ids = np.asarray(segment.doc_set)
    if not docs.size or not docs[ids[ids < len(docs)]].any():
        return EMPTY_ROWS
    inside = _in_docs(segment, docs)
    inside[dead] = False
    return np.flatnonzero(inside)


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

    def get_many(self, terms: Sequence[str]) -> list[int | None]:
        return [self.get(term) for term in terms]


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
        tokeniser = Tokeniser(self.vocab.get_many, len(self.vocab))
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
