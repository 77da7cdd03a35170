from typing import Any

from django.db import migrations


def create_checkpoint_tables(apps: Any, schema_editor: Any) -> None:
    # LangGraph's own idempotent migrations, on the database being migrated (the test DB in tests).
    from core.checkpoint import checkpoint_setup

    checkpoint_setup(schema_editor.connection.alias)


class Migration(migrations.Migration):
    # The saver commits on its own connection; nothing here to wrap in a transaction.
    atomic = False
    dependencies = [("reviews", "0003_review_tasks")]
    operations = [migrations.RunPython(create_checkpoint_tables, migrations.RunPython.noop)]
