from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone

from core.fixed_sql import columns, instance, table
from core.models import ApiToken
from core.roles import remember_roles


def api_token_list(*, user: Any) -> QuerySet[ApiToken]:
    """The user's own tokens, newest first (revoked ones included, so history is visible)."""
    return ApiToken.objects.filter(user=user).order_by("revoked_at", "-created_at")


def active_token_by_prefix(prefix: str) -> ApiToken | None:
    """The unrevoked, unexpired token with ``prefix``, its user attached and the user's roles
    remembered on it — in one fixed SQL statement (core/fixed_sql.py).

    Every API request authenticates, and under load the ORM's work for the same two queries
    (token with user, then the user's groups) was about a third of a read request's CPU."""
    sql, token_fields, user_fields = _token_statement()
    with connection.cursor() as cursor:
        cursor.execute(sql, [prefix, timezone.now()])
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(token_fields)
    token = instance(ApiToken, token_fields, row[:split])
    user = instance(get_user_model(), user_fields, row[split:-1])
    token.user = user
    remember_roles(user, row[-1] or [])
    return token


_LOOKUP_SQL = (
    "SELECT {token_columns}, {user_columns},"
    " ARRAY(SELECT g.name FROM {membership} m JOIN {group} g ON g.id = m.group_id WHERE m.user_id = u.id)"
    " FROM {token} t JOIN {user} u ON u.id = t.user_id"
    " WHERE t.prefix = %s AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > %s)"
)


@cache
def _token_statement() -> tuple[str, list[Any], list[Any]]:
    user_model = get_user_model()
    membership: Any = user_model._meta.get_field("groups").remote_field.through
    token_fields, user_fields = list(ApiToken._meta.concrete_fields), list(user_model._meta.concrete_fields)
    names = {"token": table(ApiToken), "user": table(user_model), "membership": table(membership)}
    names |= {
        "group": table(Group),
        "token_columns": columns("t", token_fields),
        "user_columns": columns("u", user_fields),
    }
    sql = _LOOKUP_SQL.format(**names)  # nosec B608  (names from the models' metadata)
    return sql, token_fields, user_fields


def totp_active(*, user: Any) -> bool:
    """Whether the user signs in with an authenticator app (allauth.mfa) as a second factor."""
    from allauth.mfa.models import Authenticator

    return Authenticator.objects.filter(user=user, type=Authenticator.Type.TOTP).exists()
