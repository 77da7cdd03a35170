from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("research", "0007_statement_rows"),
    ]

    operations = [
        migrations.AddField(
            model_name="document",
            name="fiscal_period",
            field=models.CharField(blank=True, help_text="e.g. Q3 FY2023 or FY2018", max_length=20),
        ),
    ]
