"""A paper's lead, the one line lists show under its authors (catalogue/leads.py), in each
language; filled here for the papers already there."""

from django.db import migrations, models

from catalogue import leads

# The languages and source columns as of this migration.
LANGUAGES = ("en", "zh_hans")
SOURCES = ("summary", "abstract")


def fill_leads(apps, schema_editor):
    Paper = apps.get_model("papers", "Paper")
    columns = [f"{field}_{code}" for field in SOURCES for code in LANGUAGES]
    rows = list(Paper.objects.only("pk", *columns))
    for row in rows:
        for code in LANGUAGES:
            texts = (getattr(row, f"{field}_{code}") or "" for field in SOURCES)
            setattr(row, f"lead_{code}", leads.lead(next((t for t in texts if t.strip()), "")))
        row.lead = row.lead_en
    Paper.objects.bulk_update(
        rows, ["lead", *(f"lead_{code}" for code in LANGUAGES)], batch_size=500
    )


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0013_constraint_messages_for_the_importer"),
    ]

    operations = [
        migrations.AddField(
            model_name="paper",
            name="lead",
            field=models.TextField(
                blank=True,
                default="",
                editable=False,
                help_text="The first sentence of the summary or abstract, shown in lists.",
                verbose_name="lead",
            ),
        ),
        migrations.AddField(
            model_name="paper",
            name="lead_en",
            field=models.TextField(
                blank=True,
                default="",
                editable=False,
                help_text="The first sentence of the summary or abstract, shown in lists.",
                null=True,
                verbose_name="lead",
            ),
        ),
        migrations.AddField(
            model_name="paper",
            name="lead_zh_hans",
            field=models.TextField(
                blank=True,
                default="",
                editable=False,
                help_text="The first sentence of the summary or abstract, shown in lists.",
                null=True,
                verbose_name="lead",
            ),
        ),
        migrations.RunPython(fill_leads, migrations.RunPython.noop, elidable=True),
    ]
