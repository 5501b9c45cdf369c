"""Whether an author has a published paper, kept in a column (``Author.has_published_paper``).

The A-Z index of authors, its letters, the author sitemap and publish_site's lists of
authors asked for authors of a published paper by joining every authorship to its paper
and conference for DISTINCT authors: 15 to 30 ms a query at the benchmark's 5,000
papers, three queries per index page. catalogue/published_authors.py keeps the column; it
is filled here by the same rule (a paper published at a published conference). Its
index is partial (only the authors with a published paper) and holds the slug (the
index's order), the name (what the index shows) and the key, so a page of the index,
its count and its letters read the index alone. Reversible: going back drops the column and index.
"""

from django.db import migrations, models
from django.db.models import Exists, OuterRef

PUBLISHED = "published"  # catalogue.models.Status.PUBLISHED


def fill_has_published_paper(apps, schema_editor):
    Author = apps.get_model("papers", "Author")
    Authorship = apps.get_model("papers", "Authorship")
    published = Authorship.objects.filter(
        author=OuterRef("pk"), paper__status=PUBLISHED, paper__conference__status=PUBLISHED
    )
    Author.objects.filter(Exists(published)).update(has_published_paper=True)


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0020_drop_unused_search_text_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="author",
            name="has_published_paper",
            field=models.BooleanField(
                default=False, editable=False, verbose_name="has a published paper"
            ),
        ),
        migrations.RunPython(fill_has_published_paper, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="author",
            index=models.Index(
                condition=models.Q(("has_published_paper", True)),
                fields=["slug", "name", "id"],
                name="author_published_slug",
            ),
        ),
    ]
