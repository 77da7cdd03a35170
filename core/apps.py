from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "AlphaDesk core: accounts, roles, API tokens, health"

    def ready(self) -> None:
        from core import schema, signals, strict_text  # noqa: F401  (login audit receivers, OpenAPI auth scheme)

        strict_text.install()
