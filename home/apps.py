from django.apps import AppConfig


class HomeConfig(AppConfig):
    """The portal's front page: composes reads from every app (top floor, beside mcp_bridge and evaluation)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "home"
