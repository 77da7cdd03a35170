from django.apps import AppConfig


class BriefsConfig(AppConfig):
    name = "briefs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from briefs import signals  # noqa: F401  (connects the schedule sync)
