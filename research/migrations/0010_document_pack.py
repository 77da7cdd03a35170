"""Document.pack: the corpus pack that reads a document, recognised from its own first pages. Existing
documents are recognised from their stored passages of the first three pages."""

from django.db import migrations, models

FIRST_PAGES = 3


def recognise_existing(apps, schema_editor):  # type: ignore[no-untyped-def]
    from research.packs import registry

    Document = apps.get_model("research", "Document")
    Chunk = apps.get_model("research", "Chunk")
    for document in Document.objects.filter(status="done").iterator():
        texts = Chunk.objects.filter(document_id=document.pk, page_number__lte=FIRST_PAGES).order_by("ordinal")
        text = "\n".join(texts.values_list("text", flat=True))
        document.pack = registry.recognise(text, doc_type=document.doc_type, issuer=document.issuer)
        document.save(update_fields=["pack"])


class Migration(migrations.Migration):
    dependencies = [("research", "0009_hnsw_halfvec_ef_construction_64")]

    operations = [
        migrations.AddField(
            model_name="document",
            name="pack",
            field=models.CharField(blank=True, help_text="e.g. central_bank, filings", max_length=40),
        ),
        migrations.RunPython(recognise_existing, migrations.RunPython.noop),
    ]
