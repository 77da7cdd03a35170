from django.apps import AppConfig


class BriefsConfig(AppConfig):
    name = "briefs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # signals: connects the schedule sync. tasks: registers the Celery tasks in every process,
        # so services.py can enqueue brief_run_execute by name (core.tasks.enqueue).
        from briefs import signals, tasks  # noqa: F401
        from briefs.agent.graph import GRAPH_NAME, build_graph
        from reviews.graphs import register_graph

        # Every process that sets Django up (web, Celery worker, manage.py) can resume a brief.
        register_graph(GRAPH_NAME, build_graph)
