from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "AlphaDesk core: accounts, roles, API tokens, health"

    def ready(self) -> None:
        from core import schema, signals  # noqa: F401  (login audit receivers, OpenAPI auth scheme)
