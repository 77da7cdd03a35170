"""REFERENCE_SET_APPROVAL (issue 49): with it on, a document joins the team's reference set only when
a second admin approves; off (the default), one admin's action is enough."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.django_db


def _document(owner: Any) -> Any:
    from research.models import Document

    return Document.objects.create(
        owner=owner, title="Shipping review", kind="markdown", filename="r.md", size_bytes=9, content_hash="r"
    )


def test_with_approval_a_second_admin_adds_a_document_to_the_reference_set(make_user: Any, settings: Any) -> None:
    from core.models import AuditEvent
    from research.library_admin import document_reference_set
    from research.models import Document

    settings.REFERENCE_SET_APPROVAL = True
    first, second = make_user("admin", admin=True), make_user("admin", admin=True)
    document = _document(first)

    assert document_reference_set(user=first, document_ids=[document.pk], reference=True) == 0
    waiting = Document.objects.get(pk=document.pk)
    assert (waiting.is_reference, waiting.reference_requested_by_id) == (False, first.pk)
    assert document_reference_set(user=first, document_ids=[document.pk], reference=True) == 0  # not their own
    assert Document.objects.get(pk=document.pk).is_reference is False

    assert document_reference_set(user=second, document_ids=[document.pk], reference=True) == 1
    joined = Document.objects.get(pk=document.pk)
    assert (joined.is_reference, joined.reference_requested_by_id) == (True, None)
    actions = list(
        AuditEvent.objects.filter(subject_id=str(document.pk)).order_by("pk").values_list("action", flat=True)
    )
    assert actions == ["document.reference_requested", "document.reference_set"]
    # Taking it out needs no second admin.
    assert document_reference_set(user=first, document_ids=[document.pk], reference=False) == 1
    assert Document.objects.get(pk=document.pk).is_reference is False


def test_without_approval_one_admin_is_enough(make_user: Any, settings: Any) -> None:
    from research.library_admin import document_reference_set
    from research.models import Document

    settings.REFERENCE_SET_APPROVAL = False
    admin = make_user("admin", admin=True)
    document = _document(admin)
    assert document_reference_set(user=admin, document_ids=[document.pk], reference=True) == 1
    assert Document.objects.get(pk=document.pk).is_reference is True
