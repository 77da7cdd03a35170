from typing import Any

from django.http import HttpRequest

from core.roles import can_access, user_roles

NAV = (
    ("research", "Research", "research:index"),
    ("briefs", "Briefs", "briefs:index"),
    ("portfolios", "Portfolios", "portfolios:index"),
    ("reviews", "Reviews", "reviews:index"),
    ("evaluation", "Evaluation", "evaluation:index"),
)


def navigation(request: HttpRequest) -> dict[str, Any]:
    """The nav items this user's roles open, and which one is current."""
    user = request.user
    if not user.is_authenticated:
        return {"nav_items": [], "user_roles": frozenset()}
    match = getattr(request, "resolver_match", None)
    current = match.namespace if match else ""
    items = [
        {"key": key, "label": label, "url_name": url_name, "active": key == current}
        for key, label, url_name in NAV
        if can_access(user, key)
    ]
    # Each app adds its own badge (e.g. reviews.context_processors.navigation): core knows no app above it.
    return {"nav_items": items, "user_roles": user_roles(user), "show_admin": can_access(user, "admin")}
