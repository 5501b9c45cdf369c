"""On SQLite, an index of each search text column: a narrow copy that a search scans.

SQLite answers ``LIKE '%word%'`` by a scan whatever the index, but a scan of an index
that holds the column (a covering index) reads only the column and the key, where a
scan of the table reads whole rows: a paper's row carries its abstract and summary in
both languages, four times its search text. At the benchmark's 5,000 papers the scan of
the papers for 'prediction' went from about 5.5 ms to 1.5 ms, and a search's key query
from about 12.5 ms to 6.5 ms (pages/views.py ``MatchKeys``; EXPLAIN QUERY PLAN shows
``SCAN ... USING COVERING INDEX``). PostgreSQL has trigram indexes on these columns
(0008_search_text.py) and a B-tree could not hold a long abstract's text (an entry is
limited to about 2,700 bytes there), so the indexes are created on SQLite only.
"""

from django.db import migrations

INDEXED = ["papers_paper", "papers_author", "papers_institution"]


def create_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for table in INDEXED:
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {table}_search_text ON {table} (search_text)"
        )


def drop_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for table in INDEXED:
        schema_editor.execute(f"DROP INDEX IF EXISTS {table}_search_text")


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0017_paper_search_order_index"),
    ]

    operations = [
        migrations.RunPython(create_indexes, drop_indexes),
    ]
