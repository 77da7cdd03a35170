from django.apps import AppConfig


class ResearchConfig(AppConfig):
    name = "research"

    def ready(self) -> None:
        # Imported here, once the app registry is ready: the graph's modules import nothing from the
        # database at import time, and a review decision can then resume the chat graph by name.
        from research.agent.graph import GRAPH_NAME, build_graph
        from reviews.graphs import register_graph

        register_graph(GRAPH_NAME, build_graph)
