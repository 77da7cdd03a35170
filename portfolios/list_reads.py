"""The API's lists of portfolios and watchlists, read with one fixed SQL statement each.

``selectors.portfolio_list`` / ``watchlist_list`` return querysets (pages paginate and filter
them); the API lists every row the user may see at once, and under load compiling that ORM query
— visibility, owner, ordering — was a quarter of an API read's CPU. These give the same rows, in
the same order, as the same instances (the owner's e-mail attached, holdings prefetched): one
statement per model, built once per process (core/fixed_sql.py). The visibility rule is the
one ``OwnedQuerySet.visible_to`` states — own rows and rows shared with the team — and
tests/portfolios/test_list_reads.py compares both, row by row, for owners, teammates and roles."""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Model, prefetch_related_objects

from core.fixed_sql import columns, instance, table
from core.roles import can_access
from portfolios.models import Portfolio, Watchlist

_LIST_SQL = (
    "SELECT {own_columns}, {owner_columns} FROM {rows} r JOIN {users} u ON u.id = r.owner_id"
    " WHERE r.owner_id = %s OR r.shared_with_team ORDER BY {order}"
)


def portfolio_rows(*, user: Any) -> list[Portfolio]:
    """What ``portfolio_list(user=user)`` lists, as a list (holdings prefetched)."""
    rows = _visible_rows(Portfolio, user)
    prefetch_related_objects(rows, "holdings")
    return rows


def watchlist_rows(*, user: Any) -> list[Watchlist]:
    """What ``watchlist_list(user=user)`` lists, as a list."""
    return _visible_rows(Watchlist, user)


def _visible_rows(model: type[Model], user: Any) -> list[Any]:
    if not can_access(user, "portfolios"):
        return []
    sql, own, owner = _statement(model)
    with connection.cursor() as cursor:
        cursor.execute(sql, [user.pk])
        found = cursor.fetchall()
    user_model, split = get_user_model(), len(own)
    rows = []
    for values in found:
        row = instance(model, own, values[:split])
        row.owner = instance(user_model, owner, values[split:])  # id and e-mail; the rest deferred
        rows.append(row)
    return rows


@cache
def _statement(model: type[Model]) -> tuple[str, list[Any], list[Any]]:
    """The list's SQL, its own fields and the owner's (id, e-mail); ordered as the model's Meta."""
    user_model = get_user_model()
    own = list(model._meta.concrete_fields)
    owner: list[Any] = [user_model._meta.get_field("id"), user_model._meta.get_field("email")]
    quote = connection.ops.quote_name
    order = []
    for name in model._meta.ordering or ["id"]:  # plain field names (asserted): "name", "-id"
        assert isinstance(name, str), model
        field = model._meta.get_field(name.lstrip("-"))
        order.append(f"r.{quote(str(field.column))}{' DESC' if name.startswith('-') else ''}")  # type: ignore[union-attr]
    names = {"own_columns": columns("r", own), "owner_columns": columns("u", owner), "order": ", ".join(order)}
    sql = _LIST_SQL.format(rows=table(model), users=table(user_model), **names)  # nosec B608  (names from metadata)
    return sql, own, owner
