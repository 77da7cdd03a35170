from importlib import import_module

from django.apps import AppConfig


class ResearchConfig(AppConfig):
    """Two wings under one app label: the document library (``research/models.py``) and the chat
    (``research/chat/models.py``). The chat's models are loaded here, beside the library's, rather
    than re-imported by ``research/models.py`` — so the library never depends on the chat."""

    name = "research"

    def import_models(self) -> None:
        super().import_models()
        import_module("research.chat.models")

    def ready(self) -> None:
        # Imported here, once the app registry is ready: the graph's modules import nothing from the
        # database at import time, and a review decision can then resume the chat graph by name.
        from research import tasks  # noqa: F401  (registers the tasks services enqueue by name)
        from research.agent.graph import GRAPH_NAME, build_graph
        from reviews.graphs import register_graph

        register_graph(GRAPH_NAME, build_graph)
