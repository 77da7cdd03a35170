# Merges the two 0005 migrations (issue 13's document periods/pages, issue 16's reference set); they
# touch different fields of Document.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("research", "0005_document_is_reference"),
        ("research", "0005_document_period_pages"),
    ]

    operations = []
