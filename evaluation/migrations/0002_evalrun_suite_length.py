"""A suite's name may be up to 40 characters (the first-contact suites' names are longer than 20)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("evaluation", "0001_initial")]

    operations = [
        migrations.AlterField(model_name="evalrun", name="suite", field=models.CharField(db_index=True, max_length=40)),
    ]
