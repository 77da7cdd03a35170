"""Instruments for ``bench/briefs.py``: SQL statements per run (every Django connection, the graph's
worker threads included), wall time per graph node, and what the checkpointer wrote per run.

Measurement only: the node timers wrap the functions ``build_graph`` wires, by patching the module
attributes before the graph is built; nothing in the product changes.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

NODE_NAMES = ("supervisor", "data_agent", "news_agent", "writer", "verifier", "regenerate", "gate", "finish")


class QueryCounter:
    """Counts statements on every Django connection while ``active`` (threads included)."""

    def __init__(self) -> None:
        self.count = 0
        self.by_table: Counter[str] = Counter()
        self.active = False
        self._lock = threading.Lock()

    def __call__(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        if self.active:
            with self._lock:
                self.count += 1
                self.by_table[_first_table(sql)] += 1
        return execute(sql, params, many, context)

    def install(self) -> None:
        from django.db import connections
        from django.db.backends.signals import connection_created

        def on_connect(sender: Any, connection: Any, **kwargs: Any) -> None:
            if self not in connection.execute_wrappers:
                connection.execute_wrappers.append(self)

        connection_created.connect(on_connect, weak=False)
        for conn in connections.all():
            if self not in conn.execute_wrappers:
                conn.execute_wrappers.append(self)

    @contextmanager
    def counting(self) -> Iterator[QueryCounter]:
        self.count = 0
        self.by_table = Counter()
        self.active = True
        try:
            yield self
        finally:
            self.active = False


def _first_table(sql: str) -> str:
    words = sql.replace('"', " ").split()
    verb = words[0].upper() if words else "?"
    for i, word in enumerate(words):
        if word.upper() in {"FROM", "INTO", "UPDATE"} and i + 1 < len(words):
            return f"{verb} {words[i + 1]}"
    return verb


class NodeTimer:
    """Wall time per graph node (summed over the node's executions in one run)."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self.cpu_ms: dict[str, float] = {}  # CPU time of the node's own thread
        self._lock = threading.Lock()

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started, cpu = time.perf_counter(), time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:  # the gate leaves by interrupt(): its time still counts
                with self._lock:
                    self.ms[name] = self.ms.get(name, 0.0) + (time.perf_counter() - started) * 1000
                    self.cpu_ms[name] = self.cpu_ms.get(name, 0.0) + (time.thread_time() - cpu) * 1000

        return timed

    def install(self) -> None:
        from briefs.agent import nodes

        for name in NODE_NAMES:
            if name != "supervisor" and hasattr(nodes, name):
                setattr(nodes, name, self.wrap(name, getattr(nodes, name)))
        make = nodes.make_supervisor
        nodes.make_supervisor = lambda planner: self.wrap("supervisor", make(planner))

    def take(self) -> tuple[dict[str, float], dict[str, float]]:
        """(wall ms, CPU ms) per node since the last call."""
        out = (dict(self.ms), dict(self.cpu_ms))
        self.ms, self.cpu_ms = {}, {}
        return out


def checkpoint_footprint(thread_id: str) -> tuple[int, int]:
    """(rows, bytes) the checkpointer holds for one run's thread: checkpoints, blobs and writes."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT (SELECT count(*) FROM checkpoints WHERE thread_id = %s)
                 + (SELECT count(*) FROM checkpoint_blobs WHERE thread_id = %s)
                 + (SELECT count(*) FROM checkpoint_writes WHERE thread_id = %s),
                   (SELECT coalesce(sum(pg_column_size(checkpoint) + pg_column_size(metadata)), 0)
                      FROM checkpoints WHERE thread_id = %s)
                 + (SELECT coalesce(sum(octet_length(blob)), 0) FROM checkpoint_blobs WHERE thread_id = %s)
                 + (SELECT coalesce(sum(octet_length(blob)), 0) FROM checkpoint_writes WHERE thread_id = %s)
            """,
            [thread_id] * 6,
        )
        rows, size = cursor.fetchone()
    return int(rows), int(size)
