"""Finding 7: the admin's user creation, role grants and deactivation were not audited, nor an
admin reading another user's conversation. (Throttled logins and unknown-address password resets:
tests/hardening/test_login_throttle.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.core.cache import cache
from django.test import Client

from core.models import AuditEvent
from research.chat.models import Conversation
from research.chat.selectors import conversation_get

pytestmark = pytest.mark.django_db


def _admin_client(admin_user: Any) -> Client:
    client = Client()
    client.force_login(admin_user)
    return client


def _change_data(client: Client, user: User) -> dict[str, Any]:
    """The change form's current values, as the browser would post them back."""
    form = client.get(f"/admin/auth/user/{user.pk}/change/").context["adminform"].form
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if name in {"last_login", "date_joined"}:
            data[f"{name}_0"], data[f"{name}_1"] = (
                (value.date().isoformat(), value.time().isoformat()) if value else ("", "")
            )
        elif name in {"groups", "user_permissions"}:
            data[name] = [getattr(v, "pk", v) for v in (value or [])]
        elif isinstance(value, bool):
            if value:
                data[name] = "on"
        elif value is not None and name != "password":
            data[name] = value
    return data


def test_admin_user_creation_role_grant_and_deactivation_are_audited(admin_user: Any) -> None:
    client = _admin_client(admin_user)
    created = client.post(
        "/admin/auth/user/add/",
        {
            "username": "newhire@example.test",
            "usable_password": "true",
            "password1": "S3cure-pass-for-new",
            "password2": "S3cure-pass-for-new",
        },
    )
    assert created.status_code == 302, created.context["adminform"].form.errors if created.context else created
    user = User.objects.get(username="newhire@example.test")
    event = AuditEvent.objects.get(action="admin.user_create")
    assert event.actor_id == admin_user.pk and event.subject_id == str(user.pk)
    assert (event.after or {})["roles"] == [] and (event.after or {})["is_active"] is True

    reviewer_group = Group.objects.get(name="reviewer")
    data = _change_data(client, user) | {"groups": [reviewer_group.pk]}
    assert client.post(f"/admin/auth/user/{user.pk}/change/", data).status_code == 302
    grant = AuditEvent.objects.get(action="admin.user_change")
    assert (grant.before or {})["roles"] == [] and (grant.after or {})["roles"] == ["reviewer"]

    data = _change_data(client, user)
    data.pop("is_active", None)  # unticked
    assert client.post(f"/admin/auth/user/{user.pk}/change/", data).status_code == 302
    deactivated = AuditEvent.objects.get(action="admin.user_deactivate")
    assert (deactivated.before or {})["is_active"] is True and (deactivated.after or {})["is_active"] is False
    assert deactivated.ip == "127.0.0.1"

    # Saving without a change writes nothing.
    client.post(f"/admin/auth/user/{user.pk}/change/", _change_data(client, user))
    assert AuditEvent.objects.filter(action__startswith="admin.user_").count() == 3


def test_an_admin_reading_another_users_conversation_is_audited_once_per_window(admin_user: Any, analyst: Any) -> None:
    cache.clear()
    conversation = Conversation.objects.create(owner=analyst, title="Repo rate")
    mine = Conversation.objects.create(owner=admin_user, title="Mine")
    for _ in range(3):  # a page and its polls
        conversation_get(user=admin_user, conversation_id=conversation.pk)
    conversation_get(user=admin_user, conversation_id=mine.pk)
    conversation_get(user=analyst, conversation_id=conversation.pk)
    reads = list(AuditEvent.objects.filter(action="admin.cross_user_read"))
    assert [(e.actor_id, e.subject_id, e.after) for e in reads] == [
        (admin_user.pk, str(conversation.pk), {"owner_id": analyst.pk})
    ]
    page = _admin_client(admin_user).get(f"/research/chat/{conversation.pk}/")
    assert page.status_code == 200
