"""Drop the indexes of the papers', authors' and institutions' ``search_text`` columns.

Since 0019 a search matches one column per paper, ``match_text`` (the paper's folded
text with its authors' and their institutions'), which has its own index (a trigram
index on PostgreSQL, a covering index on SQLite). No query filters on ``search_text``
any more: the column is only read to build ``match_text`` (catalogue/search.py) and the
published site's search index, always by primary key. Its indexes (trigram on
PostgreSQL, 0008; covering on SQLite, 0018) only cost every save and import their
upkeep, and the database their size: the papers' trigram index holds both languages'
abstracts and summaries. Reversing this migration creates them again.
"""

from django.db import migrations

TABLES = ["papers_paper", "papers_author", "papers_institution"]


def drop_indexes(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for table in TABLES:
        if vendor == "postgresql":
            schema_editor.execute(f"DROP INDEX IF EXISTS {table}_search_trgm")
        elif vendor == "sqlite":
            schema_editor.execute(f"DROP INDEX IF EXISTS {table}_search_text")


def create_indexes(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for table in TABLES:
        if vendor == "postgresql":
            schema_editor.execute(
                f"CREATE INDEX IF NOT EXISTS {table}_search_trgm "
                f"ON {table} USING gin (search_text gin_trgm_ops)"
            )
        elif vendor == "sqlite":
            schema_editor.execute(
                f"CREATE INDEX IF NOT EXISTS {table}_search_text ON {table} (search_text)"
            )


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0019_paper_match_text"),
    ]

    operations = [
        migrations.RunPython(drop_indexes, create_indexes),
    ]
