"""The one LangGraph Postgres checkpointer factory, shared by every graph that pauses.

Checkpoints live in the Django database (same server, same credentials, including the
embedded unix-socket server), so a graph paused in one process — a web request, a Celery
worker — is resumed from any other. The checkpoint tables are created once by the migration
``reviews/0004_langgraph_checkpoints`` (``checkpoint_setup``); calling it again is harmless.

Usage::

    with checkpointer() as saver:
        graph = build_graph(checkpointer=saver)
        graph.invoke(state, {"configurable": {"thread_id": thread_id}})
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections
from langgraph.checkpoint.postgres import PostgresSaver
from psycopg import Connection
from psycopg.rows import dict_row

# Django adds adapters and a cursor factory of its own; the saver needs plain psycopg.
_DJANGO_ONLY_PARAMS = {"cursor_factory", "context", "prepare_threshold", "client_encoding"}


def checkpoint_conninfo(alias: str = DEFAULT_DB_ALIAS) -> dict[str, Any]:
    """psycopg connection keywords of the Django database ``alias`` (the test database in tests)."""
    params = connections[alias].get_connection_params()
    return {key: value for key, value in params.items() if key not in _DJANGO_ONLY_PARAMS and value not in ("", None)}


@contextmanager
def checkpointer(alias: str = DEFAULT_DB_ALIAS) -> Iterator[PostgresSaver]:
    """A ``PostgresSaver`` on its own autocommit connection, closed on exit.

    Its own connection on purpose: checkpoints must be durable even when the caller's Django
    transaction rolls back (a paused run is real even if a later step fails)."""
    # prepare_threshold=0 and dict rows are what PostgresSaver expects (see from_conn_string).
    with Connection.connect(
        autocommit=True, prepare_threshold=0, row_factory=dict_row, **checkpoint_conninfo(alias)
    ) as conn:
        yield PostgresSaver(conn)


def checkpoint_setup(alias: str = DEFAULT_DB_ALIAS) -> None:
    """Create or upgrade the checkpoint tables (idempotent: LangGraph records its migrations)."""
    with checkpointer(alias) as saver:
        saver.setup()


F = TypeVar("F", bound=Callable[..., Any])


def db_node(fn: F) -> F:
    """Wrap a graph node that touches the database. LangGraph runs the nodes of a parallel
    superstep on pool threads, each with its own Django connection, which must be closed when
    the node ends or every run leaks a database session."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        finally:
            if threading.current_thread() is not threading.main_thread():
                connections.close_all()

    return wrapper  # type: ignore[return-value]
