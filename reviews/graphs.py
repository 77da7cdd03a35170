"""Which graph a review decision resumes: graph name → ``build_graph(checkpointer=...)``.

A paused run is identified by ``(graph_name, thread_id)``. An app makes its graph resumable by
a review decision by calling :func:`register_graph` from its ``AppConfig.ready()``, so every
process that sets Django up (web, Celery worker, management command) has the same registry.
Names are looked up only in this registry: a task row can never make a worker import arbitrary
code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

GraphBuilder = Callable[..., Any]  # build_graph(checkpointer=...) -> compiled graph

_REGISTERED: dict[str, GraphBuilder] = {}


class UnknownGraph(LookupError):
    pass


def register_graph(name: str, builder: GraphBuilder) -> None:
    """Register ``builder`` under ``name``; registering the same builder again is a no-op."""
    if name in _REGISTERED and _REGISTERED[name] is not builder:
        raise ValueError(f"graph {name!r} is registered twice")
    _REGISTERED[name] = builder


def graph_builder(name: str) -> GraphBuilder:
    if name not in _REGISTERED:
        raise UnknownGraph(f"no graph called {name!r} is registered for review resumes")
    return _REGISTERED[name]


def graph_names() -> set[str]:
    return set(_REGISTERED)
