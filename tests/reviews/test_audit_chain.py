"""The append-only, hash-chained audit log."""

import hashlib
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction

from core.audit import audit_record
from core.models import AuditEvent


@pytest.mark.django_db
def test_chain_links_each_row_to_the_previous() -> None:
    # Rows committed by earlier tests' workers may exist; this test owns only the two it adds.
    before = AuditEvent.objects.count()
    first = audit_record(actor=None, action="test.one")
    second = audit_record(actor=None, action="test.two", after={"x": 1, "note": "₹ é"})
    assert second.prev_hash == first.row_hash
    # The documented canonical form, written out by hand: the covered fields as JSON with sorted
    # keys, no spaces and ASCII escapes (₹ → \u20b9), hashed with SHA-256 — read back from the table.
    stored = AuditEvent.objects.get(pk=second.pk)
    when = stored.created_at
    stamp = f"{when:%Y-%m-%dT%H:%M:%S}" + (f".{when.microsecond:06d}" if when.microsecond else "") + "+00:00"
    canonical = (
        '{"action":"test.two","actor_id":null,"actor_label":"","after":{"note":"\\u20b9 \\u00e9","x":1},'
        f'"before":null,"created_at":"{stamp}","ip":null,"prev_hash":"{first.row_hash}",'
        '"subject_id":"","subject_label":"","subject_type":"","user_agent":""}'
    )
    assert stored.row_hash == hashlib.sha256(canonical.encode("ascii")).hexdigest()
    out = StringIO()
    call_command("verify_audit", stdout=out)
    assert f"intact: {before + 2} events" in out.getvalue()


@pytest.mark.django_db
def test_database_refuses_update_and_delete() -> None:
    event = audit_record(actor=None, action="test.locked")
    for sql in (
        "UPDATE reviews_auditevent SET action = 'x' WHERE id = %s",
        "DELETE FROM reviews_auditevent WHERE id = %s",
    ):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [event.pk])
    assert AuditEvent.objects.get(pk=event.pk).action == "test.locked"


@pytest.mark.django_db
def test_tampering_by_a_superuser_is_detected_at_that_row(analyst: Any) -> None:
    rows = [audit_record(actor=analyst, action=f"test.{i}") for i in range(5)]
    with connection.cursor() as cursor:
        # A superuser can bypass triggers; the hash chain still catches the edit.
        cursor.execute("SET session_replication_role = replica")
        cursor.execute("UPDATE reviews_auditevent SET action = 'test.forged' WHERE id = %s", [rows[2].pk])
        cursor.execute("SET session_replication_role = DEFAULT")
    with pytest.raises(CommandError, match=f"id={rows[2].pk} "):
        call_command("verify_audit")


@pytest.mark.django_db
def test_deleting_a_row_breaks_the_link_of_the_next() -> None:
    rows = [audit_record(actor=None, action=f"test.{i}") for i in range(4)]
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")
        cursor.execute("DELETE FROM reviews_auditevent WHERE id = %s", [rows[1].pk])
        cursor.execute("SET session_replication_role = DEFAULT")
    with pytest.raises(CommandError, match=f"id={rows[2].pk} .*removed"):
        call_command("verify_audit")
