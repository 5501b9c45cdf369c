"""Award levels become data, affiliations keep their order, more link kinds.

- Every award gets the levels its entries used: "winner" (position 1) always, and
  "honourable-mention" (position 2) where an entry had it, named in both languages as
  the catalogue named them (msgctxt "award level heading"). Each entry points to its
  award's level of the same slug.
- An authorship's affiliations move to an explicit through model with a position; the
  existing ones are numbered in the order the pages showed them (by institution slug).
"""

import django.db.models.deletion
from django.db import migrations, models

# The labels the pages used before levels were data (locale/zh_Hans, "award level heading").
LEVELS = {
    "winner": (1, "Winner", "Winners", "获奖论文", "获奖论文"),
    "honourable-mention": (
        2,
        "Honourable mention",
        "Honourable mentions",
        "荣誉提及",
        "荣誉提及",
    ),
}


def copy_affiliations(apps, schema_editor):
    Authorship = apps.get_model("papers", "Authorship")
    Affiliation = apps.get_model("papers", "Affiliation")
    rows = []
    for authorship in Authorship.objects.prefetch_related("affiliations"):
        institutions = sorted(authorship.affiliations.all(), key=lambda i: i.slug)
        rows.extend(
            Affiliation(authorship=authorship, institution=institution, position=position)
            for position, institution in enumerate(institutions, start=1)
        )
    Affiliation.objects.bulk_create(rows, batch_size=500)


def copy_affiliations_back(apps, schema_editor):
    Authorship = apps.get_model("papers", "Authorship")
    Affiliation = apps.get_model("papers", "Affiliation")
    for row in Affiliation.objects.all():
        Authorship.objects.get(pk=row.authorship_id).affiliations.add(row.institution_id)


def create_levels(apps, schema_editor):
    Award = apps.get_model("papers", "Award")
    AwardLevel = apps.get_model("papers", "AwardLevel")
    AwardEntry = apps.get_model("papers", "AwardEntry")
    for award in Award.objects.all():
        used = set(AwardEntry.objects.filter(award=award).values_list("level", flat=True))
        levels = {}
        for slug in ["winner", *sorted(used - {"winner"})]:
            position, name_en, plural_en, name_zh, plural_zh = LEVELS.get(
                slug, (3, slug, slug, "", "")
            )
            levels[slug] = AwardLevel.objects.create(
                award=award,
                slug=slug,
                position=position,
                name=name_en,
                name_en=name_en,
                name_zh_hans=name_zh,
                name_plural=plural_en,
                name_plural_en=plural_en,
                name_plural_zh_hans=plural_zh,
            )
        for entry in AwardEntry.objects.filter(award=award):
            entry.level_new = levels[entry.level]
            entry.save(update_fields=["level_new"])


def levels_back(apps, schema_editor):
    AwardEntry = apps.get_model("papers", "AwardEntry")
    for entry in AwardEntry.objects.select_related("level_new"):
        entry.level = entry.level_new.slug
        entry.save(update_fields=["level"])


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0006_content_generation"),
    ]

    operations = [
        migrations.AlterField(
            model_name="paperlink",
            name="kind",
            field=models.CharField(
                choices=[
                    ("pmlr", "PMLR proceedings"),
                    ("proceedings", "Proceedings"),
                    ("openreview", "OpenReview"),
                    ("arxiv", "arXiv"),
                    ("poster", "Conference poster page"),
                    ("pdf", "PDF"),
                    ("doi", "DOI"),
                    ("project", "Project page"),
                    ("code", "Code"),
                    ("dataset", "Dataset"),
                    ("video", "Video"),
                    ("slides", "Slides"),
                ],
                max_length=20,
                verbose_name="kind",
            ),
        ),
        # Affiliations in order.
        migrations.CreateModel(
            name="Affiliation",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "position",
                    models.PositiveSmallIntegerField(
                        default=0,
                        help_text="Order among the author's affiliations on this paper, "
                        "lowest first.",
                        verbose_name="position",
                    ),
                ),
                (
                    "authorship",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="affiliation_rows",
                        to="papers.authorship",
                        verbose_name="authorship",
                    ),
                ),
                (
                    "institution",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="affiliation_rows",
                        to="papers.institution",
                        verbose_name="institution",
                    ),
                ),
            ],
            options={
                "verbose_name": "affiliation",
                "verbose_name_plural": "affiliations",
                "ordering": ["authorship", "position", "pk"],
            },
        ),
        migrations.AddConstraint(
            model_name="affiliation",
            constraint=models.UniqueConstraint(
                fields=("authorship", "institution"), name="affiliation_unique_institution"
            ),
        ),
        migrations.RunPython(copy_affiliations, copy_affiliations_back),
        migrations.RemoveField(model_name="authorship", name="affiliations"),
        migrations.AddField(
            model_name="authorship",
            name="affiliations",
            field=models.ManyToManyField(
                blank=True,
                related_name="authorships",
                through="papers.Affiliation",
                to="papers.institution",
                verbose_name="affiliations",
            ),
        ),
        # Award levels as data.
        migrations.CreateModel(
            name="AwardLevel",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "slug",
                    models.SlugField(
                        help_text="The level's key, e.g. winner or runner-up.",
                        verbose_name="slug",
                    ),
                ),
                (
                    "name",
                    models.CharField(
                        help_text="For one paper, e.g. Honourable mention.",
                        max_length=100,
                        verbose_name="name",
                    ),
                ),
                (
                    "name_en",
                    models.CharField(
                        help_text="For one paper, e.g. Honourable mention.",
                        max_length=100,
                        null=True,
                        verbose_name="name",
                    ),
                ),
                (
                    "name_zh_hans",
                    models.CharField(
                        help_text="For one paper, e.g. Honourable mention.",
                        max_length=100,
                        null=True,
                        verbose_name="name",
                    ),
                ),
                (
                    "name_plural",
                    models.CharField(
                        help_text="For two papers or more, e.g. Honourable mentions.",
                        max_length=100,
                        verbose_name="name for several papers",
                    ),
                ),
                (
                    "name_plural_en",
                    models.CharField(
                        help_text="For two papers or more, e.g. Honourable mentions.",
                        max_length=100,
                        null=True,
                        verbose_name="name for several papers",
                    ),
                ),
                (
                    "name_plural_zh_hans",
                    models.CharField(
                        help_text="For two papers or more, e.g. Honourable mentions.",
                        max_length=100,
                        null=True,
                        verbose_name="name for several papers",
                    ),
                ),
                (
                    "position",
                    models.PositiveSmallIntegerField(
                        default=0,
                        help_text="Order within the award, the top level lowest.",
                        verbose_name="position",
                    ),
                ),
                (
                    "award",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="levels",
                        to="papers.award",
                        verbose_name="award",
                    ),
                ),
            ],
            options={
                "verbose_name": "award level",
                "verbose_name_plural": "award levels",
                "ordering": ["award", "position", "slug"],
            },
        ),
        migrations.AddConstraint(
            model_name="awardlevel",
            constraint=models.UniqueConstraint(
                fields=("award", "slug"), name="awardlevel_unique_slug"
            ),
        ),
        migrations.AddField(
            model_name="awardentry",
            name="level_new",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="papers.awardlevel",
            ),
        ),
        migrations.RunPython(create_levels, levels_back),
        migrations.RemoveField(model_name="awardentry", name="level"),
        migrations.RenameField(model_name="awardentry", old_name="level_new", new_name="level"),
        migrations.AlterField(
            model_name="awardentry",
            name="level",
            field=models.ForeignKey(
                help_text="One of the award's own levels.",
                on_delete=django.db.models.deletion.RESTRICT,
                related_name="entries",
                to="papers.awardlevel",
                verbose_name="level",
            ),
        ),
        migrations.AlterModelOptions(
            name="awardentry",
            options={
                "ordering": ["award", "level__position", "position"],
                "verbose_name": "award entry",
                "verbose_name_plural": "award entries",
            },
        ),
    ]
