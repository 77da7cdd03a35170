from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"

    def ready(self) -> None:
        from evaluation import tasks  # noqa: F401  (registers the tasks services enqueue by name)
