"""Parse → chunk → embed for one file, reporting progress. Storage is the service's job.

Embedding runs ahead of its consumer (:class:`EmbeddingAhead`): while the service writes the
passages of step k into the database (and the HNSW index), a background thread is already
embedding step k + 1, so the model is never idle waiting for the writes; each of a step's model
batches is handed over as soon as it is done. Texts embedded before by the same model come from
the embedding cache (research/retrieval/embed_cache.py) and cost no model time; a file embedded
afresh is stored there for next time.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import closing
from functools import partial
from typing import cast

import numpy as np
from django.conf import settings
from django.db import connections

from research.ingest.chunking import ChunkDraft, chunk_pages
from research.ingest.parsers import NO_TEXT, Page, ParseError, parse
from research.retrieval.embed_cache import cached_vectors, store_vectors
from research.retrieval.embeddings import get_embedder

Progress = Callable[[float, str], None]
_DONE = object()  # the end of the batches


def parse_and_chunk(
    kind: str, data: bytes, *, progress: Progress | None = None, name: str = ""
) -> tuple[list[Page], list[ChunkDraft]]:
    """The pages and passages of one file; ``name`` (the file's name) is named in its errors."""
    report = progress or (lambda fraction, message: None)
    embedder = get_embedder()
    pages = parse(kind, data, name=name)
    report(0.1, f"Parsed {len(pages)} pages")
    max_tokens = min(settings.RESEARCH_CHUNK_TOKENS, embedder.max_tokens - 2)  # [CLS] and [SEP]
    drafts = chunk_pages(
        pages,
        word_pieces=embedder.word_pieces,
        max_tokens=max_tokens,
        overlap=settings.RESEARCH_CHUNK_OVERLAP,
    )
    if not drafts:
        raise ParseError(NO_TEXT)
    report(0.15, f"Embedding {len(drafts)} passages")
    return pages, drafts


def last_step_start(count: int) -> int:
    """Where the last of :func:`embedding_steps` starts: 0 for a file of one step (or none)."""
    steps = embedding_steps(count)
    return steps[-1][0] if steps else 0


def embedding_steps(count: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each step: ``RESEARCH_EMBED_PROGRESS_STEP`` texts at a time, with the
    last step kept to ``RESEARCH_EMBED_LAST_STEP`` texts. The writes of the last step are the
    only ones the model's work cannot hide (each passage is an insert into the HNSW index), so
    the remainder is split to make them few: 56 texts → 0–32, 32–48, 48–56."""
    step, last = settings.RESEARCH_EMBED_PROGRESS_STEP, max(1, settings.RESEARCH_EMBED_LAST_STEP)
    bounds, start = [], 0
    while count - start > step:
        bounds.append((start, start + step))
        start += step
    if count - start > last:
        bounds.append((start, count - last))
        start = count - last
    if count > start:
        bounds.append((start, count))
    return bounds


class EmbeddingAhead(Iterator[tuple[list[int], np.ndarray]]):
    """Iterate ``(positions, vectors)`` for each model batch of :func:`embedding_steps`, the steps
    in order and the batches of a step as each is done (positions index ``texts``), while a
    background thread embeds ahead (the model runs outside the GIL). ``pieces``: each text's word
    pieces (the chunker's), which the model then reads instead of tokenizing.

    The thread starts at once, so the caller's own preparations (locks, deletions) run while the
    first step is embedded; :meth:`close` stops it (use ``contextlib.closing``). It runs at most
    ``RESEARCH_EMBED_AHEAD_STEPS`` steps ahead of the caller, plus the one it is on. From that
    thread, ``progress`` is called after each step with the fraction 0.15–1.0 of the file's work,
    and ``on_last_step`` as the last of two or more steps starts (the caller may still be writing
    an earlier one). Its error is raised here."""

    def __init__(
        self,
        texts: Sequence[str],
        *,
        pieces: Sequence[Sequence[int]] | None = None,
        progress: Progress | None = None,
        on_last_step: Callable[[], None] | None = None,
    ) -> None:
        # The model runs ahead of slow writes by a few steps, not a whole file: a step is taken
        # from the room before it is embedded, and given back once the caller has all its batches.
        self._room = threading.Semaphore(settings.RESEARCH_EMBED_AHEAD_STEPS + 1)
        self._out: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._stop = threading.Event()
        work = partial(self._work, texts, pieces, progress, on_last_step)
        self._thread = threading.Thread(target=work, name="embed-ahead", daemon=True)
        self._thread.start()

    def __next__(self) -> tuple[list[int], np.ndarray]:
        item = _DONE if self._stop.is_set() else self._out.get()
        if item is _DONE or isinstance(item, BaseException):
            self.close()
            if item is _DONE:
                raise StopIteration
            raise cast(BaseException, item)
        positions, vectors, ends_step = cast(tuple[list[int], np.ndarray, bool], item)
        if ends_step:
            self._room.release()
        return positions, vectors

    def close(self) -> None:
        self._stop.set()
        self._thread.join()

    def _make_room(self) -> bool:
        while not self._stop.is_set():
            if self._room.acquire(timeout=0.1):
                return True
        return False

    def _work(
        self,
        texts: Sequence[str],
        pieces: Sequence[Sequence[int]] | None,
        progress: Progress | None,
        on_last_step: Callable[[], None] | None,
    ) -> None:
        try:
            done = 0
            with closing(_embedded_batches(texts, pieces, on_last_step, before_step=self._make_room)) as batches:
                for positions, vectors, ends_step in batches:
                    if self._stop.is_set():
                        return
                    done += len(positions)
                    if ends_step and progress is not None:
                        progress(0.15 + 0.85 * done / len(texts), f"Embedded {done} of {len(texts)} passages")
                    self._out.put((positions, vectors, ends_step))
            self._out.put(_DONE)
        except BaseException as exc:  # handed to the consumer, raised there
            self._out.put(exc)
        finally:
            connections.close_all()  # this thread's own connection, if ``progress`` used one


def _embedded_batches(
    texts: Sequence[str],
    pieces: Sequence[Sequence[int]] | None,
    on_last_step: Callable[[], None] | None,
    *,
    before_step: Callable[[], bool],
) -> Generator[tuple[list[int], np.ndarray, bool], None, None]:
    """``(positions, vectors, ends_step)`` of each model batch of :func:`embedding_steps`: from the
    embedding cache when it holds the whole file (a step a batch), else from the model (reading
    ``pieces`` when given), the file's vectors stored in the cache once all are embedded.
    ``before_step`` is called before each step, which is skipped (and the rest) when it says
    False; ``on_last_step`` as the last of two or more steps starts."""
    embedder = get_embedder()
    # The whole file's texts are the cache key (as embed_cache.embed_texts keys them); a list
    # holding a non-text is not looked up, so the model reports it at its own step.
    hit = cached_vectors(embedder, texts) if all(isinstance(t, str) for t in texts) else None
    fresh = np.zeros((0 if hit is not None else len(texts), embedder.dim), dtype=np.float32)
    last = last_step_start(len(texts))
    for start, end in embedding_steps(len(texts)):
        if not before_step():
            return
        if on_last_step is not None and start == last > 0:
            on_last_step()
        if hit is not None:
            yield list(range(start, end)), hit[start:end], True
            continue
        left = end - start
        for picks, vectors in embedder.embed_batches(texts[start:end], None if pieces is None else pieces[start:end]):
            positions = [start + pick for pick in picks]
            fresh[positions] = vectors
            left -= len(picks)
            yield positions, vectors, left == 0
    if hit is None and len(texts):
        store_vectors(embedder, texts, fresh)
