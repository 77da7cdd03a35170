"""The API's token lookup: one fixed SQL statement (core.selectors.active_token_by_prefix) in
place of two ORM queries, because compiling them was a third of an API read's CPU under load.
It must give exactly what the ORM gives — every field of the token and its user, and the user's
roles — and refuse exactly what the ORM's ``active()`` refuses."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from core.models import ApiToken
from core.roles import ROLES, user_roles
from core.selectors import active_token_by_prefix
from core.services import api_token_authenticate, api_token_create


def _prefix(raw: str) -> str:
    return raw.split("_")[1]


def _fields(instance: Any) -> dict[str, Any]:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


@pytest.mark.django_db
def test_every_field_of_the_token_and_its_user_is_what_the_orm_reads(analyst: Any) -> None:
    token, raw = api_token_create(user=analyst, name="fields", scopes=["api", "mcp"])
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now() - timedelta(hours=2))
    found = active_token_by_prefix(_prefix(raw))
    assert found is not None
    orm = ApiToken.objects.select_related("user").get(pk=token.pk)
    assert _fields(found) == _fields(orm)
    assert _fields(found.user) == _fields(orm.user)
    assert found.scopes == ["api", "mcp"]  # JSON decoded, not its text
    assert found.user.email == "analyst@example.test"


@pytest.mark.django_db
def test_roles_come_with_the_token_in_one_query(make_user: Any, django_assert_num_queries: Any) -> None:
    user = make_user("analyst", "reviewer")
    user.groups.add(Group.objects.create(name="book-club"))  # not a role: never reported as one
    raw = api_token_create(user=user, name="roles")[1]
    with django_assert_num_queries(1):
        token = active_token_by_prefix(_prefix(raw))
        assert token is not None
        assert user_roles(token.user) == {"analyst", "reviewer"}


@pytest.mark.django_db
def test_a_superuser_holds_every_role_and_a_user_without_groups_none(make_user: Any) -> None:
    admin = make_user(admin=True)
    nobody = make_user()
    for user, roles in ((admin, set(ROLES)), (nobody, set())):
        token = active_token_by_prefix(_prefix(api_token_create(user=user, name="r")[1]))
        assert token is not None and user_roles(token.user) == roles


@pytest.mark.django_db
def test_revoked_expired_and_unknown_tokens_are_not_found(analyst: Any) -> None:
    revoked = api_token_create(user=analyst, name="revoked")
    expired = api_token_create(user=analyst, name="expired")
    live = api_token_create(user=analyst, name="live")
    ApiToken.objects.filter(pk=revoked[0].pk).update(revoked_at=timezone.now())
    ApiToken.objects.filter(pk=expired[0].pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert active_token_by_prefix(_prefix(revoked[1])) is None
    assert active_token_by_prefix(_prefix(expired[1])) is None
    assert active_token_by_prefix("nosuchprefix") is None
    assert active_token_by_prefix(_prefix(live[1])) is not None
    # The same refusals through the one door the API and MCP use, and the ORM's own view of them.
    assert [api_token_authenticate(raw) is not None for _, raw in (revoked, expired, live)] == [False, False, True]
    assert set(ApiToken.objects.active().values_list("name", flat=True)) == {"live"}


@pytest.mark.django_db
def test_a_deactivated_user_or_a_wrong_secret_is_refused(analyst: Any) -> None:
    raw = api_token_create(user=analyst, name="who")[1]
    assert api_token_authenticate(raw[:-1] + ("A" if raw[-1] != "A" else "B")) is None
    analyst.is_active = False
    analyst.save(update_fields=["is_active"])
    assert api_token_authenticate(raw) is None
