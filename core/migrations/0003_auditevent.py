"""The audit log moves to core — in migration state only.

``reviews.AuditEvent`` becomes ``core.AuditEvent`` over the very same table (``reviews_auditevent``):
no database operation at all, so every row, the hash chain, the indexes and the append-only
trigger of ``reviews/migrations/0002_audit_append_only.py`` stay exactly as they are. The reviews
side (``reviews/migrations/0006_auditevent_to_core.py``) depends on this migration and removes
the model from its own state, again without touching the table.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0002_roles"),
        # The table and its trigger were created by reviews; on a fresh database they must exist
        # before core claims them (and before any later core migration alters the table).
        ("reviews", "0002_audit_append_only"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="AuditEvent",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("created_at", models.DateTimeField()),
                        ("actor_label", models.CharField(blank=True, max_length=254)),
                        ("action", models.CharField(db_index=True, max_length=80)),
                        ("subject_type", models.CharField(blank=True, db_index=True, max_length=100)),
                        ("subject_id", models.CharField(blank=True, db_index=True, max_length=64)),
                        ("subject_label", models.CharField(blank=True, max_length=200)),
                        ("before", models.JSONField(blank=True, null=True)),
                        ("after", models.JSONField(blank=True, null=True)),
                        ("ip", models.GenericIPAddressField(blank=True, null=True)),
                        ("user_agent", models.CharField(blank=True, max_length=400)),
                        ("prev_hash", models.CharField(max_length=64)),
                        ("row_hash", models.CharField(max_length=64, unique=True)),
                        (
                            "actor",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "reviews_auditevent",
                        "ordering": ["-id"],
                        "indexes": [
                            models.Index(
                                fields=["subject_type", "subject_id", "-id"], name="reviews_aud_subject_388cab_idx"
                            )
                        ],
                    },
                ),
            ],
        ),
    ]
