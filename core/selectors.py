from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone

from core.models import ApiToken
from core.roles import remember_roles


def api_token_list(*, user: Any) -> QuerySet[ApiToken]:
    """The user's own tokens, newest first (revoked ones included, so history is visible)."""
    return ApiToken.objects.filter(user=user).order_by("revoked_at", "-created_at")


def active_token_by_prefix(prefix: str) -> ApiToken | None:
    """The unrevoked, unexpired token with ``prefix``, its user attached and the user's roles
    remembered on it — in one fixed SQL statement.

    Every API request authenticates, and under load the ORM's work for the same two queries
    (token with user, then the user's groups) was about a third of a read request's CPU: compiling
    the query costs more than running it. The statement below is built once from the models'
    metadata; the result is the same model instances the ORM would give."""
    sql, token_fields, user_fields = _token_statement()
    with connection.cursor() as cursor:
        cursor.execute(sql, [prefix, timezone.now()])
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(token_fields)
    token = ApiToken.from_db(connection.alias, [f.attname for f in token_fields], _converted(token_fields, row[:split]))
    user_values = _converted(user_fields, row[split:-1])
    user = get_user_model().from_db(connection.alias, [f.attname for f in user_fields], user_values)
    token.user = user
    remember_roles(user, row[-1])
    return token


def _converted(fields: list[Any], values: tuple[Any, ...]) -> list[Any]:
    """The values as the ORM gives them: each field's own decoding (JSON text → list, …)."""
    out = []
    for field, value in zip(fields, values, strict=True):
        for convert in field.get_db_converters(connection):
            value = convert(value, field, connection)
        out.append(value)
    return out


@cache
def _token_statement() -> tuple[str, list[Any], list[Any]]:
    """The lookup's SQL; every name in it comes from the models' metadata, never from input."""
    user_model = get_user_model()
    membership = user_model._meta.get_field("groups").remote_field.through._meta  # type: ignore[union-attr]
    token_fields = list(ApiToken._meta.concrete_fields)
    user_fields = list(user_model._meta.concrete_fields)
    q = connection.ops.quote_name
    names = {
        "token": q(ApiToken._meta.db_table),
        "user": q(user_model._meta.db_table),
        "user_pk": q(str(user_model._meta.pk.column)),
        "membership": q(membership.db_table),
        "group": q(Group._meta.db_table),
        "columns": ", ".join(
            [f"t.{q(str(f.column))}" for f in token_fields] + [f"u.{q(str(f.column))}" for f in user_fields]
        ),
    }
    sql = (  # noqa: S608  (names from the models' metadata, values as parameters)
        "SELECT {columns}, ARRAY(SELECT g.name FROM {membership} m JOIN {group} g ON g.id = m.group_id"
        " WHERE m.user_id = u.{user_pk})"
        " FROM {token} t JOIN {user} u ON u.{user_pk} = t.user_id"
        " WHERE t.prefix = %s AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > %s)"
    ).format(**names)  # nosec B608
    return sql, token_fields, user_fields
