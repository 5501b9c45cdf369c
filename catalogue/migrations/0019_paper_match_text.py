"""A paper's matched text: its search text with its authors' and their institutions'.

A search matched each word in three tables (papers, authors, institutions) and joined
the three sets of keys back to the papers; with one column holding all three texts it
is one scan of one column (catalogue/search.py ``refresh_match_texts`` keeps it in step).
The column is filled here from the search texts already stored.

Its index: on SQLite, ``(status, match_text, conference_id, title_en)``, which holds
everything a search's key query reads of a paper (the status it filters on, the text it
scans, the conference and title it sorts by), so that the query reads no table row of a
paper (whose abstracts and summaries make it wide). It is a partial index whose
condition, ``match_text IS NOT NULL``, holds for every row (the column is NOT NULL):
SQLite uses a partial index only in a query that names its condition, and the search
does (``PaperQuerySet.search_words``). Without one, SQLite (which has no statistics)
took this index for every ``status = 'published'`` of the papers, as a covering one, and
the author page's co-authors query started from all the published papers instead of
the author's own (0.15 to 3.6 ms). On PostgreSQL, a trigram GIN index as on the search texts
(0008_search_text.py), which answers ``LIKE '%word%'``.
"""

from collections import defaultdict

from django.db import migrations, models

SEPARATOR = "\n"  # catalogue.search.SEPARATOR
BATCH = 500


def fill_match_text(apps, schema_editor):
    Paper = apps.get_model("papers", "Paper")
    Authorship = apps.get_model("papers", "Authorship")
    Affiliation = apps.get_model("papers", "Affiliation")
    keys = list(Paper.objects.order_by("pk").values_list("pk", flat=True))
    for start in range(0, len(keys), BATCH):
        batch = keys[start : start + BATCH]
        texts = {pk: [text] for pk, text in Paper.objects.filter(pk__in=batch).values_list("pk", "search_text")}
        parts = defaultdict(list)
        for paper, text in (
            Authorship.objects.filter(paper__in=batch)
            .order_by("paper_id", "position", "pk")
            .values_list("paper_id", "author__search_text")
        ):
            texts[paper].append(text)
        for paper, text in (
            Affiliation.objects.filter(authorship__paper__in=batch)
            .order_by("authorship__paper_id", "authorship__position", "position", "pk")
            .values_list("authorship__paper_id", "institution__search_text")
        ):
            parts[paper].append(text)
        rows = [
            Paper(pk=pk, match_text=SEPARATOR.join(t for t in (*own, *parts[pk]) if t))
            for pk, own in texts.items()
        ]
        Paper.objects.bulk_update(rows, ["match_text"])


def create_index(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        schema_editor.execute(
            "CREATE INDEX IF NOT EXISTS papers_paper_match_text ON papers_paper "
            "(status, match_text, conference_id, title_en) WHERE match_text IS NOT NULL"
        )
    elif vendor == "postgresql":
        schema_editor.execute(
            "CREATE INDEX IF NOT EXISTS papers_paper_match_trgm "
            "ON papers_paper USING gin (match_text gin_trgm_ops)"
        )


def drop_index(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        schema_editor.execute("DROP INDEX IF EXISTS papers_paper_match_text")
    elif vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS papers_paper_match_trgm")


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0018_search_text_covering_indexes_on_sqlite"),
    ]

    operations = [
        migrations.AddField(
            model_name="paper",
            name="match_text",
            field=models.TextField(
                blank=True, default="", editable=False, verbose_name="matched text"
            ),
        ),
        migrations.RunPython(fill_match_text, migrations.RunPython.noop),
        migrations.RunPython(create_index, drop_index),
    ]
