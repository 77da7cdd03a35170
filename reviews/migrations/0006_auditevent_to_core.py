"""The audit log moved to core (``core/migrations/0003_auditevent.py``) — state only here too.

The concrete ``reviews.AuditEvent`` leaves the reviews state without any database operation:
its table now belongs to ``core.AuditEvent``, so nothing is dropped. Depending on the core
migration guarantees core owns the model before reviews lets go of it. What remains in reviews is a
proxy over the core model, so the admin keeps its address and existing permissions keep their
content type (``reviews | audit event``).
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("reviews", "0005_resume_claimed_at"),
        ("core", "0003_auditevent"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.DeleteModel(name="AuditEvent"),
                migrations.CreateModel(
                    name="AuditEvent",
                    fields=[],
                    options={"proxy": True, "indexes": [], "constraints": []},
                    bases=("core.auditevent",),
                ),
            ],
        ),
    ]
