"""The folded search text of papers, authors and institutions (catalogue/search.py).

Fills the new columns from the rows already there. On PostgreSQL, also creates the
pg_trgm extension (a trusted extension since PostgreSQL 13: the database's owner may
create it) and a trigram GIN index on each column, which answers ``LIKE '%word%'``;
other databases get no index and match by a scan.
"""

from django.db import migrations, models

from catalogue import search

INDEXED = ["papers_paper", "papers_author", "papers_institution"]


# The source columns as of this migration (catalogue.search.source_columns today).
SOURCES = {
    "Paper": [
        "title_en",
        "title_zh_hans",
        "abstract_en",
        "abstract_zh_hans",
        "summary_en",
        "summary_zh_hans",
    ],
    "Author": ["name", "other_names"],
    "Institution": ["name_en", "name_zh_hans"],
}


def fill_search_text(apps, schema_editor):
    for name, columns in SOURCES.items():
        model = apps.get_model("papers", name)
        rows = list(model.objects.only("pk", *columns))
        for row in rows:
            values = (getattr(row, column) or "" for column in columns)
            row.search_text = search.SEPARATOR.join(search.fold(v) for v in values if v)
        model.objects.bulk_update(rows, ["search_text"], batch_size=500)


def create_trigram_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for table in INDEXED:
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {table}_search_trgm "
            f"ON {table} USING gin (search_text gin_trgm_ops)"
        )


def drop_trigram_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in INDEXED:
        schema_editor.execute(f"DROP INDEX IF EXISTS {table}_search_trgm")


class Migration(migrations.Migration):

    dependencies = [
        ("papers", "0007_award_levels_affiliation_order_link_kinds"),
    ]

    operations = [
        migrations.AddField(
            model_name="author",
            name="search_text",
            field=models.TextField(
                blank=True, default="", editable=False, verbose_name="search text"
            ),
        ),
        migrations.AddField(
            model_name="institution",
            name="search_text",
            field=models.TextField(
                blank=True, default="", editable=False, verbose_name="search text"
            ),
        ),
        migrations.AddField(
            model_name="paper",
            name="search_text",
            field=models.TextField(
                blank=True, default="", editable=False, verbose_name="search text"
            ),
        ),
        migrations.RunPython(fill_search_text, migrations.RunPython.noop),
        migrations.RunPython(create_trigram_indexes, drop_trigram_indexes),
    ]
