"""The audit log moved from reviews to core in migration state only (core 0003 + reviews 0006).

A database migrated under the old schema keeps its table, every row, the hash chain and the
append-only trigger: the move runs no SQL, rows hashed by the old code still verify, and new rows
chain onto them.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from core.audit import GENESIS_HASH, audit_chain_breaks, audit_record
from core.models import AuditEvent

BEFORE_THE_MOVE = [("core", "0002_roles"), ("reviews", "0005_resume_claimed_at")]
THE_MOVE = [("core", "0003_auditevent"), ("reviews", "0006_auditevent_to_core")]


def _old_row_hash(content: dict[str, Any]) -> str:
    """A frozen copy of how ``reviews.models.AuditEvent.compute_hash`` hashed a row before the move."""
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _append_rows_as_the_old_code_did(actor: Any, count: int) -> list[str]:
    """Insert ``count`` chained rows with raw SQL; returns their row hashes, oldest first."""
    hashes: list[str] = []
    with connection.cursor() as cursor:
        cursor.execute("SELECT row_hash FROM reviews_auditevent ORDER BY id DESC LIMIT 1")
        last = cursor.fetchone()
        prev_hash = last[0] if last else GENESIS_HASH
        base = datetime.now(UTC).replace(microsecond=123456)
        for i in range(count):
            content: dict[str, Any] = {
                "created_at": (base + timedelta(seconds=i)).isoformat(),
                "actor_id": actor.pk if i % 2 else None,
                "actor_label": actor.get_username() if i % 2 else "",
                "action": f"legacy.event_{i}",
                "subject_type": "portfolios.portfolio",
                "subject_id": str(100 + i),
                "subject_label": f"Core “India” {i}",
                "before": None if i == 0 else {"weights": [0.5, 0.5], "n": i},
                "after": {"weights": [0.25, 0.75], "note": "rebalanced — ₹ and é survive"},
                "ip": "10.0.0.7" if i % 2 else None,
                "user_agent": "pytest legacy writer",
                "prev_hash": prev_hash,
            }
            row_hash = _old_row_hash(content)
            cursor.execute(
                "INSERT INTO reviews_auditevent (created_at, actor_id, actor_label, action, subject_type,"
                " subject_id, subject_label, before, after, ip, user_agent, prev_hash, row_hash)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, %s, %s, %s, %s)",
                [
                    base + timedelta(seconds=i),
                    content["actor_id"],
                    content["actor_label"],
                    content["action"],
                    content["subject_type"],
                    content["subject_id"],
                    content["subject_label"],
                    None if content["before"] is None else json.dumps(content["before"]),
                    json.dumps(content["after"]),
                    content["ip"],
                    content["user_agent"],
                    prev_hash,
                    row_hash,
                ],
            )
            hashes.append(row_hash)
            prev_hash = row_hash
    return hashes


@pytest.mark.django_db
def test_a_database_from_before_the_move_keeps_its_chain_rows_and_trigger(analyst: Any) -> None:
    audit_record(actor=analyst, action="test.before_rollback")  # a row written by the current code
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE_THE_MOVE)
    old_state = MigrationExecutor(connection).loader.project_state(BEFORE_THE_MOVE)
    old_model = old_state.apps.get_model("reviews", "AuditEvent")
    assert not old_model._meta.proxy and old_model._meta.db_table == "reviews_auditevent"
    assert ("core", "auditevent") not in old_state.models

    legacy = _append_rows_as_the_old_code_did(analyst, 4)
    rows_before = old_model.objects.count()

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert set(THE_MOVE) <= MigrationExecutor(connection).loader.applied_migrations.keys()

    assert AuditEvent.objects.count() == rows_before
    assert list(audit_chain_breaks()) == []
    out = StringIO()
    call_command("verify_audit", stdout=out)
    assert f"intact: {rows_before} events" in out.getvalue()
    # The next row written by the new code chains onto the last row written by the old one.
    assert audit_record(actor=None, action="test.after_move").prev_hash == legacy[-1]
    oldest_legacy = AuditEvent.objects.get(row_hash=legacy[0])
    for sql in (
        "UPDATE reviews_auditevent SET action = 'x' WHERE id = %s",
        "DELETE FROM reviews_auditevent WHERE id = %s",
    ):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [oldest_legacy.pk])
    assert AuditEvent.objects.count() == rows_before + 1


@pytest.mark.django_db
@pytest.mark.parametrize(("app", "name"), THE_MOVE)
@pytest.mark.parametrize("backwards", [False, True])
def test_the_move_runs_no_sql_either_way(app: str, name: str, backwards: bool) -> None:
    out = StringIO()
    call_command("sqlmigrate", app, name, backwards=backwards, stdout=out)
    statements = [
        line
        for line in out.getvalue().splitlines()
        if line.strip() and not line.lstrip().startswith("--") and line.strip() not in {"BEGIN;", "COMMIT;"}
    ]
    assert statements == []
