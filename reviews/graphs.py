"""Which graph a review decision resumes: graph name → ``build_graph(checkpointer=...)``.

A paused run is identified by ``(graph_name, thread_id)``. To make a graph resumable by a
review decision, either add it to ``settings.REVIEW_GRAPHS`` (name → dotted path of its
``build_graph``) or call :func:`register_graph` from the app's ``AppConfig.ready()``. Names
are looked up only in this registry: a task row can never make a worker import arbitrary code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.utils.module_loading import import_string

GraphBuilder = Callable[..., Any]  # build_graph(checkpointer=...) -> compiled graph

_REGISTERED: dict[str, GraphBuilder] = {}


class UnknownGraph(LookupError):
    pass


def register_graph(name: str, builder: GraphBuilder) -> None:
    if name in _REGISTERED and _REGISTERED[name] is not builder:
        raise ValueError(f"graph {name!r} is registered twice")
    _REGISTERED[name] = builder


def graph_builder(name: str) -> GraphBuilder:
    if name in _REGISTERED:
        return _REGISTERED[name]
    path = getattr(settings, "REVIEW_GRAPHS", {}).get(name)
    if path is None:
        raise UnknownGraph(f"no graph called {name!r} is registered for review resumes")
    builder: GraphBuilder = import_string(path)
    return builder


def graph_names() -> set[str]:
    return set(_REGISTERED) | set(getattr(settings, "REVIEW_GRAPHS", {}))
