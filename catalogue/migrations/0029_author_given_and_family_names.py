"""Authors' given, family and native names, and the author index's sort name.

Until now citations split a name as published by a rule (the last word and the particles
before it are the family name, a final "Jr." a suffix, a name in CJK script or of one
word unsplit), and the author index was lettered by slug: by given name. Each author is
given that split as a starting value (``check_author_names`` lists the guesses an editor
should look at), and the sort name (romanised family name, a space, romanised given name)
the index now orders and letters by. The split is copied here as it is today, so that this
migration does what it did when it was written. Reversible: going back drops the columns.
"""

import re

from django.db import migrations, models
from slugify import slugify

import catalogue.text

SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"}
PARTICLES = {"van", "von", "de", "der", "den", "da", "di", "del", "della", "le", "la", "du", "dos"}
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def split(name):
    """(given, family, suffix) of ``name`` by the split citations used before this migration
    (pages/citations.py's split_name); an unsplit name is all family name."""
    words = name.split()
    if len(words) < 2 or CJK.search(name):
        return "", " ".join(words), ""
    suffix = ""
    if len(words) > 2 and words[-1].lower() in SUFFIXES:
        suffix = words.pop()
        words[-1] = words[-1].removesuffix(",")
    start = len(words) - 1
    while start > 1 and words[start - 1] in PARTICLES:
        start -= 1
    return " ".join(words[:start]), " ".join(words[start:]), suffix


def fill_names(apps, schema_editor):
    Author = apps.get_model("papers", "Author")
    authors = list(Author.objects.only("pk", "name"))
    for author in authors:
        given, family, suffix = split(author.name)
        author.given_name, author.family_name, author.name_suffix = given, family, suffix
        sort_name = " ".join(part for part in (slugify(family), slugify(given)) if part)
        author.sort_name = sort_name or slugify(author.name)
    Author.objects.bulk_update(
        authors, ["given_name", "family_name", "name_suffix", "sort_name"], batch_size=500
    )


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0028_paper_import_key"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="author",
            name="author_published_slug",
        ),
        migrations.AddField(
            model_name="author",
            name="family_name",
            field=models.CharField(
                blank=True,
                help_text="The name citations and the author index sort by, particles included (“Fischer Abaigar”, “van der Schaar”); a one-word name or a team whole here.",
                max_length=200,
                validators=[catalogue.text.OneLineValidator("family name")],
                verbose_name="family name",
            ),
        ),
        migrations.AddField(
            model_name="author",
            name="given_name",
            field=models.CharField(
                blank=True,
                help_text="First name(s), as citations abbreviate them. Left empty with the family name, both are guessed from the name.",
                max_length=200,
                validators=[catalogue.text.OneLineValidator("given name")],
                verbose_name="given name",
            ),
        ),
        migrations.AddField(
            model_name="author",
            name="name_suffix",
            field=models.CharField(
                blank=True,
                help_text="Jr., Sr., II, III and the like.",
                max_length=20,
                validators=[catalogue.text.OneLineValidator("name suffix")],
                verbose_name="name suffix",
            ),
        ),
        migrations.AddField(
            model_name="author",
            name="native_name",
            field=models.CharField(
                blank=True,
                help_text="The name in the person's own script, when it is not the name above.",
                max_length=200,
                validators=[catalogue.text.OneLineValidator("name in native script")],
                verbose_name="name in native script",
            ),
        ),
        migrations.AddField(
            model_name="author",
            name="sort_name",
            field=models.CharField(
                default="", editable=False, max_length=401, verbose_name="sort name"
            ),
        ),
        migrations.RunPython(fill_names, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="author",
            index=models.Index(
                condition=models.Q(("has_published_paper", True)),
                fields=["sort_name", "slug", "name", "given_name", "family_name", "name_suffix", "id"],
                name="author_published_sort_name",
            ),
        ),
    ]
