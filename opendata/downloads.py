"""Whole downloads of the published data as CSV tables, and the "Open data" page.

A download is one ZIP archive, for the whole site or for one conference, holding one
CSV table per kind of object (``TABLES``: papers, authors, authorships, institutions,
awards, entries), a ``datapackage.json`` (the Frictionless Data Package standard:
each table's columns, the date, and the licence when one is set) and a ``README.txt``
naming the licence and the date. Tables are UTF-8 with a header row; each translated
field has one column per language (``title_en``, ``title_zh_hans``), empty where there
is no translation; several values in one cell (an author's affiliations) are separated
by ``|``. Only published content is written.

The licence is ``settings.DATA_LICENCE`` (``DJANGO_DATA_LICENCE``): nothing in the
project's sources states one, so it is empty by default and then no licence is named.

The same published content is also offered in the compact format that
``import_conference`` reads (``compact_archive``), so a conference moves between two
installations: per conference, ``<slug>.yaml`` and its ``images/``, exactly what
``export_conference SLUG --format compact -o DIR/<slug>.yaml`` writes of the published
content; for the whole site, one such file per published conference that has
published awards, each in a folder of its own with its ``images/``.
"""

import csv
import io
import json
import zipfile

from django.conf import settings
from django.db.models import F, Q
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.views.generic import TemplateView

from catalogue import languages
from catalogue.models import (
    Affiliation,
    Authorship,
    Award,
    AwardEntry,
    Conference,
    Paper,
    PaperLink,
)
from importing.exporting import IMAGE_DIRECTORY, Export, export_conference

SEPARATOR = "|"


def link_columns():
    return [f"link_{kind}" for kind in PaperLink.Kind.values]


def published_scope(conference=None):
    """What a download holds, per table name: a list of rows (dicts), from published
    content only. ``conference``: the papers published at it or awarded by it, its
    awards and their entries, and the authors and institutions of those papers (as
    ``importing.exporting.belonging_to`` takes them); None: the whole site.

    Six queries whatever the size, each reading plain values (``values()``) in the
    order of the table: at 5,000 papers, loading them as model instances with their
    related rows took 4.4 s of CPU, most of it building the instances; values take a
    fraction of that (figures in the commit that made it so). The related rows (links,
    authorships, affiliations, entries) are selected by joins on the same conditions as
    the papers and awards, not by lists of keys.
    """
    papers = Paper.objects.published()
    awards = Award.objects.published()
    if conference is not None:
        awarded = AwardEntry.objects.published().filter(award__conference=conference)
        papers = papers.filter(Q(conference=conference) | Q(pk__in=awarded.values("paper")))
        awards = awards.filter(conference=conference)
    paper_keys = papers.values("pk")
    links = {}
    for paper_id, kind, url in PaperLink.objects.filter(paper__in=paper_keys).values_list(
        "paper_id", "kind", "url"
    ):
        links.setdefault(paper_id, {})[f"link_{kind}"] = url
    paper_rows = [
        paper_row(paper, links.get(paper["pk"], {}))
        for paper in papers.values(
            "pk",
            "slug",
            *languages.columns("title"),
            *languages.columns("abstract"),
            *languages.columns("summary"),
            "pages",
            venue=F("conference__venue__slug"),
            conference_slug=F("conference__slug"),
            year=F("conference__year"),
        ).order_by("-conference__year", "slug")
    ]
    affiliations = {}
    institutions = {}
    rows = Affiliation.objects.filter(authorship__paper__in=paper_keys).values(
        "authorship_id",
        "position",
        "pk",
        "institution__slug",
        *(f"institution__{column}" for column in languages.columns("name")),
        "institution__country",
        "institution__website",
    )
    for row in rows.order_by():
        affiliations.setdefault(row["authorship_id"], []).append(row)
        institutions[row["institution__slug"]] = row
    authorships = Authorship.objects.filter(paper__in=paper_keys).values(
        "pk",
        "position",
        "paper__slug",
        "author__slug",
        "author__name",
        "author__other_names",
        "author__orcid",
        "author__homepage",
    )
    authorships = list(authorships.order_by("paper__slug", "position"))
    authors = {authorship["author__slug"]: authorship for authorship in authorships}
    award_rows = awards.values(
        "slug",
        *languages.columns("name"),
        *languages.columns("description"),
        "position",
        "announced_on",
        conference_slug=F("conference__slug"),
        year=F("conference__year"),
    ).order_by("-conference__year", "conference__slug", "position", "slug")
    entries = (
        AwardEntry.objects.published()
        .filter(award__in=awards.values("pk"))
        .values(
            "position",
            "level__slug",
            *(f"level__{column}" for column in languages.columns("name")),
            "level__position",
            conference_slug=F("award__conference__slug"),
            award_slug=F("award__slug"),
            paper_slug=F("paper__slug"),
        )
        .order_by(
            "-award__conference__year",
            "award__conference__slug",
            "award__position",
            "award__slug",
            *AwardEntry.LEVEL_ORDER,
        )
    )
    return {
        "papers": paper_rows,
        "authors": [author_row(authors[slug]) for slug in sorted(authors)],
        "authorships": [
            authorship_row(authorship, affiliations.get(authorship["pk"], []))
            for authorship in authorships
        ],
        "institutions": [institution_row(institutions[slug]) for slug in sorted(institutions)],
        "awards": [award_row(award) for award in award_rows],
        "entries": [entry_row(entry) for entry in entries],
    }


def translated_cells(values, field, prefix=""):
    """The columns of a translated ``field`` from ``values`` (a row of ``values()``,
    whose keys carry ``prefix``), "" where there is no translation."""
    return {column: values[f"{prefix}{column}"] or "" for column in languages.columns(field)}


def paper_row(paper, links):
    return {
        "slug": paper["slug"],
        **translated_cells(paper, "title"),
        **translated_cells(paper, "abstract"),
        **translated_cells(paper, "summary"),
        "venue": paper["venue"],
        "conference": paper["conference_slug"],
        "year": paper["year"],
        "pages": paper["pages"],
        **{column: links.get(column, "") for column in link_columns()},
    }


def author_row(authorship):
    other_names = authorship["author__other_names"]
    return {
        "slug": authorship["author__slug"],
        "name": authorship["author__name"],
        # As Author.other_name_list reads them: one a line, blank lines left out.
        "other_names": SEPARATOR.join(
            line.strip() for line in other_names.splitlines() if line.strip()
        ),
        "orcid": authorship["author__orcid"],
        "homepage": authorship["author__homepage"],
    }


def authorship_row(authorship, affiliations):
    rows = sorted(affiliations, key=lambda row: (row["position"], row["pk"]))
    return {
        "paper": authorship["paper__slug"],
        "position": authorship["position"],
        "author": authorship["author__slug"],
        "affiliations": SEPARATOR.join(row["institution__slug"] for row in rows),
    }


def institution_row(affiliation):
    return {
        "slug": affiliation["institution__slug"],
        **translated_cells(affiliation, "name", prefix="institution__"),
        "country": affiliation["institution__country"],
        "website": affiliation["institution__website"],
    }


def award_row(award):
    return {
        "conference": award["conference_slug"],
        "year": award["year"],
        "slug": award["slug"],
        **translated_cells(award, "name"),
        **translated_cells(award, "description"),
        "position": award["position"],
        "announced_on": award["announced_on"].isoformat() if award["announced_on"] else "",
    }


def entry_row(entry):
    return {
        "conference": entry["conference_slug"],
        "award": entry["award_slug"],
        "paper": entry["paper_slug"],
        "level": entry["level__slug"],
        **{
            f"level_{column}": value
            for column, value in translated_cells(entry, "name", prefix="level__").items()
        },
        "level_position": entry["level__position"],
        "position": entry["position"],
    }


def csv_text(rows, columns):
    """``rows`` as CSV text with a header row of ``columns``."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


# The tables' columns, in order (the rows above give exactly these keys).
def table_columns():
    return {
        "papers": [
            "slug",
            *languages.columns("title"),
            *languages.columns("abstract"),
            *languages.columns("summary"),
            "venue",
            "conference",
            "year",
            "pages",
            *link_columns(),
        ],
        "authors": ["slug", "name", "other_names", "orcid", "homepage"],
        "authorships": ["paper", "position", "author", "affiliations"],
        "institutions": ["slug", *languages.columns("name"), "country", "website"],
        "awards": [
            "conference",
            "year",
            "slug",
            *languages.columns("name"),
            *languages.columns("description"),
            "position",
            "announced_on",
        ],
        "entries": [
            "conference",
            "award",
            "paper",
            "level",
            *(f"level_{column}" for column in languages.columns("name")),
            "level_position",
            "position",
        ],
    }


INTEGER_COLUMNS = {"year", "position", "level_position"}
DATE_COLUMNS = {"announced_on"}  # YYYY-MM-DD, empty when unknown


def column_type(column):
    """A column's Frictionless type: integer, date or string."""
    if column in INTEGER_COLUMNS:
        return "integer"
    return "date" if column in DATE_COLUMNS else "string"


def licence_lines(today):
    """The date line, and the licence line when ``settings.DATA_LICENCE`` is set."""
    lines = [f"Date: {today.isoformat()}"]
    if settings.DATA_LICENCE:
        lines.append(f"Licence: {settings.DATA_LICENCE}")
    return lines


def archive(name, title, rows_by_table, today=None):
    """The ZIP archive (bytes) of one download: a CSV file per table, datapackage.json
    and README.txt, all dated ``today`` (a date; default: today, UTC), so the same data
    on the same day gives the same bytes."""
    today = today or timezone.now().date()
    licence = settings.DATA_LICENCE
    columns = table_columns()
    package = {
        "name": name,
        "title": title,
        "created": today.isoformat(),
        **({"licenses": [{"name": licence, "title": licence}]} if licence else {}),
        "resources": [
            {
                "name": table,
                "path": f"{table}.csv",
                "format": "csv",
                "mediatype": "text/csv",
                "encoding": "utf-8",
                "schema": {
                    "fields": [
                        {
                            "name": column,
                            "type": column_type(column),
                        }
                        for column in columns[table]
                    ]
                },
            }
            for table in columns
        ],
    }
    readme = [title, *licence_lines(today)]
    readme += [
        "",
        "Tables (UTF-8 CSV with a header row): " + ", ".join(f"{t}.csv" for t in columns) + ".",
        "Translated fields have one column per language (e.g. title_en, title_zh_hans),",
        "empty where there is no translation.",
        f"Several values in one cell are separated by {SEPARATOR}.",
        "datapackage.json describes every column (Frictionless Data Package).",
        "",
    ]
    stamp = (today.year, today.month, today.day, 0, 0, 0)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zipped:
        files = {
            "README.txt": "\n".join(readme),
            "datapackage.json": json.dumps(package, ensure_ascii=False, indent=2) + "\n",
            **{f"{table}.csv": csv_text(rows_by_table[table], columns[table]) for table in columns},
        }
        for filename, text in files.items():
            zipped.writestr(zipfile.ZipInfo(f"{name}/{filename}", stamp), text.encode("utf-8"))
    return buffer.getvalue()


def export_compact(conference):
    """The published content of ``conference`` in the compact format (an
    ``importing.exporting.Export``): what a compact archive holds of it."""
    return export_conference(conference.slug, format="compact", published_only=True)


def compact_archive(name, title, conferences, today=None, *, folders=False, export=None):
    """The ZIP archive (bytes) of ``conferences`` (an iterable of published
    conferences) in the compact format: ``<name>/<slug>.yaml`` per conference (in a
    folder of its own, ``<name>/<slug>/<slug>.yaml``, with ``folders``), the images
    each names in ``images/`` beside it, and a ``README.txt`` with the date, the
    licence when set and how to import. Folders keep the images of two conferences
    apart when they share a file name. Only published content is written
    (``export_conference(..., published_only=True)``). Entries are dated ``today``
    (default: today, UTC). Raises :class:`importing.exporting.ExportError` when two
    different images of one conference would share one file name. ``export``: the
    function giving a conference's Export (default ``export_compact``; the publisher
    passes one that reads it back from the conference's own archive it published)."""
    today = today or timezone.now().date()
    export = export or export_compact
    files, paths = {}, []
    for conference in conferences:
        exported = export(conference)
        folder = f"{conference.slug}/" if folders else ""
        paths.append(f"{folder}{conference.slug}.yaml")
        files[paths[-1]] = exported.text.encode("utf-8")
        for relative, data in exported.images.items():
            files[f"{folder}{relative}"] = data
    readme = [
        title,
        *licence_lines(today),
        "",
        "Compact conference files (YAML, docs/compact-format.md), the format that the",
        "import_conference command of awardsite reads. To import them into another",
        "installation, unpack this archive in its checkout and run, for each file:",
        "",
        *(
            f"    DJANGO_INSECURE_DEV=true .venv/bin/python manage.py import_conference "
            f"{name}/{path}"
            for path in paths
        ),
        "",
        "The files may be imported in any order: a conference's file also carries the",
        "earlier conferences its papers were published at (with their venues, papers and",
        "authors), and importing an object that is already there sets it to the same values.",
        "Images named in a file are in images/ next to it. Only published content is here.",
        "",
    ]
    stamp = (today.year, today.month, today.day, 0, 0, 0)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zipped:
        contents = {"README.txt": "\n".join(readme).encode("utf-8"), **files}
        for filename, data in contents.items():
            zipped.writestr(zipfile.ZipInfo(f"{name}/{filename}", stamp), data)
    return buffer.getvalue()


def zip_response(content, name):
    response = HttpResponse(content, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{name}.zip"'
    return response


def site_csv(request):
    """Every published table of the site as one ZIP of CSV files (see ``archive``)."""
    name = "awardsite-csv"
    return zip_response(archive(name, "awardsite: all published awards", published_scope()), name)


def conference_csv(request, slug):
    """One published conference's tables as a ZIP of CSV files. 404 when unknown."""
    conference = get_object_or_404(Conference.objects.published(), slug=slug)
    name = f"{conference.slug}-csv"
    title = f"awardsite: {conference.name_en or conference.slug}"
    return zip_response(archive(name, title, published_scope(conference)), name)


def site_compact(request):
    """Every published conference that has published awards, in the compact format
    that ``import_conference`` reads, as one ZIP (see ``site_compact_archive``)."""
    return zip_response(site_compact_archive(), SITE_COMPACT)


SITE_COMPACT = "awardsite-compact"


def site_compact_archive(export=None):
    """The bytes of the whole site's compact archive: every published conference that
    has published awards (``compact_archive`` with ``folders``); ``export`` as there."""
    conferences = (
        Conference.objects.published()
        .filter(awards__in=Award.objects.published())
        .distinct()
        .order_by("year", "slug")
    )
    return compact_archive(
        SITE_COMPACT, "awardsite: all published awards", conferences, folders=True, export=export
    )


def read_compact_archive(data, slug):
    """The Export of conference ``slug`` held by its own compact archive (``data``, the
    bytes ``conference_compact`` answers): its compact file and images, as
    ``export_compact`` gave them. Raises zipfile.BadZipFile or KeyError when ``data``
    is not such an archive."""
    folder = f"{slug}-compact/"
    with zipfile.ZipFile(io.BytesIO(data)) as zipped:
        text = zipped.read(f"{folder}{slug}.yaml").decode("utf-8")
        images = {
            name.removeprefix(folder): zipped.read(name)
            for name in zipped.namelist()
            if name.startswith(f"{folder}{IMAGE_DIRECTORY}/")
        }
    return Export(text, images)


def conference_compact(request, slug):
    """One published conference in the compact format that ``import_conference``
    reads, as a ZIP (see ``compact_archive``). 404 when unknown or unpublished."""
    conference = get_object_or_404(Conference.objects.published(), slug=slug)
    name = f"{conference.slug}-compact"
    title = f"awardsite: {conference.name_en or conference.slug}"
    return zip_response(compact_archive(name, title, [conference]), name)


class OpenDataView(TemplateView):
    """The "Open data" page: the API, its documentation, and the whole downloads of the
    site and of every published conference, with the licence when one is set."""

    template_name = "papers/open_data.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["conferences"] = Conference.objects.published().newest_first()
        context["licence"] = settings.DATA_LICENCE
        return context
