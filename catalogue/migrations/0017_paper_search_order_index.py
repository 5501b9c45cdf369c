"""On PostgreSQL, a covering index of what a search sorts its matches by.

A search's key query (``PaperQuerySet.search`` in the search page's order) joins the
matching keys back to the papers for their status, conference and English title.
Without this index PostgreSQL read the whole papers table for those three columns
(a sequential scan of every row, abstracts included: 3 of the 10 ms of the query for
'prediction' at the benchmark's 5,000 papers); with it, an index-only scan reads
them (1 ms). ``INCLUDE`` is PostgreSQL's (Django's ``Index.include`` warns on other
databases), so the index is created here, on PostgreSQL only; SQLite already finds
those columns through its own plan.
"""

from django.db import migrations

INDEX = "papers_paper_search_order"


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f"CREATE INDEX IF NOT EXISTS {INDEX} ON papers_paper (id) "
        "INCLUDE (status, conference_id, title_en)"
    )


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0016_authorship_author_paper_index"),
    ]

    operations = [
        migrations.RunPython(create_index, drop_index),
    ]
