"""Commits that need not wait for the disk.

A committed write waits for the write-ahead log to reach the disk (an fsync: ~4 ms on the
development machines, far more than the statement). The step log, the run's progress and the
graph's checkpoints are written many times per run; they commit with ``synchronous_commit`` off,
and the writes that matter (the run's start, the gate, the ending) commit synchronously — which
also flushes every earlier write, since the log is sequential. See ``briefs/runs.py``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def relaxed_commit() -> Iterator[None]:
    """A transaction whose commit does not wait for the disk (nested: the outer one decides)."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")
        yield
