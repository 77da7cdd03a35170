from django.apps import AppConfig


class ResearchConfig(AppConfig):
    name = "research"

    def ready(self) -> None:
        from research.agent.graph import build_graph
        from reviews.graphs import register_graph

        register_graph("research_chat", build_graph)  # GRAPH_NAME constant lands with the agent split
