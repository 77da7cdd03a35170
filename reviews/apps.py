from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "reviews"
    verbose_name = "Reviews and audit"

    def ready(self) -> None:
        from reviews import tasks  # noqa: F401  (registers the tasks services enqueue by name)
        from reviews.graphs import register_graph
        from reviews.probe_graph import GRAPH_NAME, build_graph

        register_graph(GRAPH_NAME, build_graph)
