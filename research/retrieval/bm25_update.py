"""Building the next version of the shared BM25 index from the last one: drop the rows of
removed chunks, add a segment for the added ones, merge small segments, publish.

Cost of an update: tokenising the added chunks, plus the version's own files (document
frequencies by term, deleted rows), plus occasional merges of small segments — never a rewrite of
the big segments, so adding one document to a million-chunk library takes well under a second.
Merges are tiered (``MERGE_FACTOR`` segments of a similar size become one) and capped at
``MERGE_MAX_POSTINGS``, so the number of segments grows with the logarithm of the library and
a merge never takes long. ``manage.py bm25_rebuild`` writes one segment again from scratch.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from research.retrieval.bm25_index import mean_idf
from research.retrieval.bm25_segments import EMPTY_ROWS, Rows, Segment, Tokeniser, merge
from research.retrieval.bm25_store import (
    HashVocab,
    Manifest,
    StoredVersion,
    write_segment,
    write_version,
    write_vocab,
)

MERGE_FACTOR = 4
MERGE_MAX_POSTINGS = 4_000_000  # about half a second of merging on this machine


@dataclass
class _Part:
    segment: Segment
    name: str | None  # None until written
    dead: np.ndarray  # sorted local rows

    @property
    def live(self) -> int:
        return len(self.segment) - len(self.dead)

    @property
    def live_postings(self) -> int:
        rows = len(self.segment)
        return self.segment.n_postings * self.live // rows if rows else 0


class Draft:
    """The next version, built in memory from a published one (or from nothing)."""

    def __init__(self, root: Path, base: StoredVersion | None) -> None:
        self.root = root
        if base is None:
            self.parts: list[_Part] = []
            self.vocab, self.vocab_name = HashVocab.empty(), None
            self.df = np.zeros(0, dtype=np.int64)
            self.n = self.total_length = 0
        else:
            self.parts = [
                _Part(segment, name, np.asarray(dead))
                for segment, name, dead in zip(base.segments, base.manifest.segments, base.deads, strict=True)
            ]
            self.vocab, self.vocab_name = base.vocab, base.manifest.vocab
            self.df = np.array(base.df, dtype=np.int64)
            self.n, self.total_length = base.manifest.n, base.manifest.total_length
        self.tokeniser = Tokeniser(self.vocab.get_many, len(self.vocab))

    def chunk_ids(self) -> np.ndarray:
        """Chunk ids of the live rows, ascending."""
        live = [np.delete(np.asarray(p.segment.chunk_ids), p.dead) for p in self.parts]
        return np.sort(np.concatenate(live)) if live else np.zeros(0, dtype=np.int64)

    def remove(self, chunk_ids: np.ndarray) -> None:
        """Retire the rows of ``chunk_ids`` (sorted): they count no more in any statistic."""
        if len(chunk_ids) == 0:
            return
        for part in self.parts:
            rows = np.setdiff1d(part.segment.rows_of(chunk_ids), part.dead)
            if rows.size == 0:
                continue
            terms, counts = part.segment.document_frequencies(rows)
            self.df[terms] -= counts
            self.n -= int(rows.size)
            self.total_length -= int(np.asarray(part.segment.lengths)[rows].astype(np.int64).sum())
            part.dead = np.union1d(part.dead, rows).astype(np.int32)
        self.parts = [p for p in self.parts if p.live > 0]

    def add(self, batches: Iterable[Iterable[tuple[int, int, str]]]) -> None:
        """Add ``(chunk id, document id, text)`` rows, given in batches, as one new segment."""
        rows = Rows.concat([self.tokeniser.rows(batch) for batch in batches])
        if len(rows.chunk_ids) == 0:
            return
        segment = rows.segment()
        vocab_size = len(self.vocab) + len(self.tokeniser.new_terms)
        self.df = np.concatenate([self.df, np.zeros(vocab_size - len(self.df), dtype=np.int64)])
        terms, counts = segment.document_frequencies()
        self.df[terms] += counts
        self.n += len(segment)
        self.total_length += int(np.asarray(segment.lengths, dtype=np.int64).sum())
        self.parts.append(_Part(segment, None, EMPTY_ROWS))

    def compact(self) -> int:
        """Merge small segments (tiered) and rewrite small ones that are mostly deleted rows;
        returns how many merges ran."""
        merges = 0
        while (plan := self._merge_plan()) is not None:
            merged = merge([(self.parts[i].segment, self.parts[i].dead) for i in plan])
            self.parts = [p for i, p in enumerate(self.parts) if i not in plan] + [_Part(merged, None, EMPTY_ROWS)]
            merges += 1
        return merges

    def _merge_plan(self) -> list[int] | None:
        tiers: dict[int, list[int]] = {}
        for i, part in enumerate(self.parts):
            tiers.setdefault(int(math.log(max(part.live_postings, 1), MERGE_FACTOR)), []).append(i)
        for _tier, members in sorted(tiers.items()):
            if len(members) >= MERGE_FACTOR:
                group = members[:MERGE_FACTOR]
                if sum(self.parts[i].live_postings for i in group) <= MERGE_MAX_POSTINGS:
                    return group
        for i, part in enumerate(self.parts):
            if 2 * len(part.dead) > len(part.segment) and part.segment.n_postings <= MERGE_MAX_POSTINGS:
                return [i]
        return None

    def write_files(self) -> None:
        """Write the segments and vocabulary not written yet (no version lists them until published)."""
        for part in self.parts:
            if part.name is None:
                part.name = write_segment(self.root, part.segment)
        if self.tokeniser.new_terms:
            self.vocab = self.vocab.extended(self.tokeniser.new_terms)
            self.vocab_name = write_vocab(self.root, self.vocab)
            self.tokeniser = Tokeniser(self.vocab.get_many, len(self.vocab))

    def publish(self, version: int) -> bool:
        """Write what is new and publish it as ``version``; False if that version exists already."""
        self.write_files()
        names = [p.name for p in self.parts if p.name is not None]
        deads = {p.name: p.dead for p in self.parts if p.name is not None and len(p.dead)}
        manifest = Manifest(
            version=version,
            segments=names,
            dead={name: f"dead-{name}.npy" for name in deads},
            vocab=self.vocab_name,
            n=self.n,
            total_length=self.total_length,
            average_idf=mean_idf(self.df, self.n),
        )
        return write_version(self.root, manifest, self.df, deads)
