"""Whole downloads of the published data, for the site or one conference, and the
"Open data" page.

A CSV download is a ZIP archive of UTF-8 CSV tables (``table_columns``) with a
``datapackage.json`` (a Frictionless Data Package, with each table's keys) and a
README.txt (``archive``); text that a spreadsheet would run as a formula is written
with a quote before it (``csv_text``). A compact download holds the same
content in the format ``import_conference`` reads (``compact_archive``). The licence is
``settings.DATA_LICENCE`` (``DJANGO_DATA_LICENCE``), empty by default: nothing in the
sources states one.
"""

import csv
import io
import json
import zipfile

from django.conf import settings
from django.db.models import Q
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
from catalogue.models.querysets import conference_order
from importing.exporting import IMAGE_DIRECTORY, Export, export_conference

SEPARATOR = "|"


def other_names(text):
    """An author's other names as ``Author.other_name_list`` reads them: one a line,
    blank lines left out."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def in_languages(field, read_at="", column_prefix=""):
    """``{column: lookup}`` of the translated ``field``'s columns (``title_en``, ...),
    each read at the lookup path ``read_at``."""
    return {column_prefix + column: read_at + column for column in languages.columns(field)}


def table_columns():
    """``{table: {column: lookup}}``: each table's columns in order, each with the
    lookup ``published_scope`` reads it from (None: built there)."""
    return {
        "papers": {
            "slug": "slug",
            **in_languages("title"),
            **in_languages("abstract"),
            **in_languages("summary"),
            "venue": "conference__venue__slug",
            "conference": "conference__slug",
            "year": "conference__year",
            "pages": "pages",
            **{f"link_{kind}": None for kind in PaperLink.Kind.values},
        },
        "authors": dict.fromkeys(
            [
                "slug",
                "name",
                "given_name",
                "family_name",
                "name_suffix",
                "native_name",
                "other_names",
                "orcid",
                "homepage",
            ]
        ),
        "authorships": dict.fromkeys(["paper", "position", "author", "affiliations"]),
        "institutions": {
            "slug": "institution__slug",
            **in_languages("name", "institution__"),
            "country": "institution__country",
            "website": "institution__website",
        },
        "awards": {
            "conference": "conference__slug",
            "year": "conference__year",
            "slug": "slug",
            **in_languages("name"),
            **in_languages("description"),
            "position": "position",
            "announced_on": "announced_on",
            # Its kind, the same at every venue (empty for none), and the kind's name.
            "kind": "kind__slug",
            **in_languages("name", "kind__", "kind_"),
        },
        "entries": {
            "conference": "award__conference__slug",
            "award": "award__slug",
            "paper": "paper__slug",
            "level": "level__slug",
            **in_languages("name", "level__", "level_"),
            "level_position": "level__position",
            "position": "position",
        },
    }


def published_scope(conference=None):
    """The rows of each table (tuples in ``table_columns()`` order), from published
    content only. ``conference``: the papers published at it or awarded by it, its
    awards and their entries, and the authors and institutions of those papers (as
    ``importing.exporting.belonging_to`` takes them); None: the site.

    Six queries whatever the size, reading plain values (``values_list()``): at 5,000
    papers, model instances took 4.4 s of CPU, most of it building them. Related rows
    are selected by joins on the papers' and awards' conditions, not by lists of keys.
    """
    lookups = {
        table: [lookup for lookup in columns.values() if lookup]
        for table, columns in table_columns().items()
    }
    papers, awards = Paper.objects.published(), Award.objects.published()
    if conference is not None:
        awarded = AwardEntry.objects.published().filter(award__conference=conference)
        papers = papers.filter(Q(conference=conference) | Q(pk__in=awarded.values("paper")))
        awards = awards.filter(conference=conference)
    paper_keys = papers.values("pk")
    links = {}
    for paper_id, kind, url in PaperLink.objects.filter(paper__in=paper_keys).values_list(
        "paper_id", "kind", "url"
    ):
        links.setdefault(paper_id, {})[kind] = url
    affiliations, institutions = {}, {}
    rows = Affiliation.objects.filter(authorship__paper__in=paper_keys).values_list(
        "authorship_id", *lookups["institutions"]
    )
    for authorship_id, *institution in rows.order_by("position", "pk"):
        affiliations.setdefault(authorship_id, []).append(institution[0])
        institutions[institution[0]] = institution
    authorships = Authorship.objects.filter(paper__in=paper_keys).values_list(
        "pk",
        "paper__slug",
        "position",
        "author__slug",
        "author__name",
        "author__given_name",
        "author__family_name",
        "author__name_suffix",
        "author__native_name",
        "author__other_names",
        "author__orcid",
        "author__homepage",
    )
    authorships = list(authorships.order_by("paper__slug", "position"))
    authors = {}  # by slug: the slug and the name columns come first
    for _pk, _paper, _position, *names, others, orcid, homepage in authorships:
        authors[names[0]] = (*names, SEPARATOR.join(other_names(others)), orcid, homepage)
    in_conference_order = conference_order("conference__")
    entries = AwardEntry.objects.published().filter(award__in=awards.values("pk"))
    return {
        "papers": [
            (*row[1:], *(links.get(row[0], {}).get(kind) for kind in PaperLink.Kind.values))
            for row in papers.order_by(*in_conference_order, "slug").values_list(
                "pk", *lookups["papers"]
            )
        ],
        "authors": [authors[slug] for slug in sorted(authors)],
        "authorships": [
            (paper, position, author, SEPARATOR.join(affiliations.get(pk, [])))
            for pk, paper, position, author, *_author in authorships
        ],
        "institutions": [institutions[slug] for slug in sorted(institutions)],
        "awards": awards.order_by(*in_conference_order, "position", "slug").values_list(
            *lookups["awards"]
        ),
        "entries": entries.order_by(
            *conference_order("award__conference__"),
            "award__position",
            "award__slug",
            *AwardEntry.LEVEL_ORDER,
        ).values_list(*lookups["entries"]),
    }


# Each column's Frictionless type when not "string" (dates YYYY-MM-DD, empty when unknown).
COLUMN_TYPES = {
    "year": "integer",
    "position": "integer",
    "level_position": "integer",
    "announced_on": "date",
}

# Each table's primary key and foreign keys (columns, table, its columns), as the
# catalogue's unique slugs and constraints make them (award_unique_slug,
# authorship_unique_position, awardentry_unique_paper). An author's affiliations are a
# list in one cell, which a Table Schema foreign key cannot name.
PRIMARY_KEYS = {
    "papers": ["slug"],
    "authors": ["slug"],
    "authorships": ["paper", "position"],
    "institutions": ["slug"],
    "awards": ["conference", "slug"],
    "entries": ["conference", "award", "paper"],
}
FOREIGN_KEYS = {
    "authorships": [(["paper"], "papers", ["slug"]), (["author"], "authors", ["slug"])],
    "entries": [
        (["conference", "award"], "awards", ["conference", "slug"]),
        (["paper"], "papers", ["slug"]),
    ],
}

# What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection"), and the
# quote written before such text; text starting with the quote gets one too, so that
# removing the first quote of any cell that starts with one gives the text back.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
QUOTE = "'"


def neutralised(text):
    """``text`` (a str) with ``QUOTE`` before it when it starts with one of
    ``FORMULA_STARTS`` or with ``QUOTE`` itself, as OWASP recommends; else unchanged."""
    return QUOTE + text if text.startswith((*FORMULA_STARTS, QUOTE)) else text


def csv_text(rows, columns):
    """``rows`` (sequences of values) as CSV text (RFC 4180: cells with a comma, quote or
    line break quoted, rows ending in CRLF) with a header row of ``columns``. The
    values of text columns (type "string", see ``COLUMN_TYPES``) go through
    ``neutralised``; numbers and dates are written as they are (-1 is a number, not a
    formula)."""
    text = [COLUMN_TYPES.get(column, "string") == "string" for column in columns]
    out = io.StringIO()
    # The csv module quotes a cell holding a character of the line terminator: with "\n"
    # alone, a carriage return went unquoted and ended the row for every reader.
    writer = csv.writer(out, lineterminator="\r\n")  # None is written as "", a date YYYY-MM-DD
    writer.writerow(columns)
    writer.writerows(
        [
            neutralised(value) if is_text and isinstance(value, str) else value
            for value, is_text in zip(row, text, strict=True)
        ]
        for row in rows
    )
    return out.getvalue()


def table_schema(table, columns):
    """The Table Schema of ``table`` (its ``columns`` in order): each column's type, the
    primary key and the foreign keys."""
    return {
        "fields": [
            {"name": column, "type": COLUMN_TYPES.get(column, "string")} for column in columns
        ],
        "primaryKey": PRIMARY_KEYS[table],
        **(
            {
                "foreignKeys": [
                    {"fields": fields, "reference": {"resource": other, "fields": keys}}
                    for fields, other, keys in FOREIGN_KEYS[table]
                ]
            }
            if table in FOREIGN_KEYS
            else {}
        ),
    }


def readme(title, today, lines):
    """A README.txt: ``title``, the date, the licence when ``settings.DATA_LICENCE`` is
    set, a blank line and ``lines``."""
    licence = [f"Licence: {settings.DATA_LICENCE}"] if settings.DATA_LICENCE else []
    return "\n".join([title, f"Date: {today.isoformat()}", *licence, "", *lines, ""])


def archive(name, title, rows_by_table, today=None):
    """The ZIP archive (bytes) of one download, dated ``today`` (default: today, UTC): a
    CSV file per table with a header row (a translated field has a column per language,
    empty where untranslated; several values in one cell are separated by ``|``; text
    that could be a formula has a quote before it, see ``csv_text``), a datapackage.json
    (a Frictionless Data Package: each table's schema with its keys, ``created`` at
    midnight UTC of ``today``, the licence when set) and README.txt."""
    today = today or timezone.now().date()
    licence = settings.DATA_LICENCE
    columns = table_columns()
    package = {
        "name": name.lower(),  # the Data Package spec allows lower case only
        "title": title,
        "created": f"{today.isoformat()}T00:00:00Z",  # RFC 3339, as the spec asks
        **({"licenses": [{"name": licence, "title": licence}]} if licence else {}),
        "resources": [
            {
                "name": table,
                "path": f"{table}.csv",
                "format": "csv",
                "mediatype": "text/csv",
                "encoding": "utf-8",
                "schema": table_schema(table, columns[table]),
            }
            for table in columns
        ],
    }
    notes = [
        "Tables (UTF-8 CSV with a header row): " + ", ".join(f"{t}.csv" for t in columns) + ".",
        "Translated fields have one column per language (e.g. title_en, title_zh_hans),",
        "empty where there is no translation.",
        f"Several values in one cell are separated by {SEPARATOR}.",
        "datapackage.json describes every column and each table's keys (Frictionless",
        "Data Package).",
        "",
        'So that no spreadsheet runs a cell as a formula (OWASP, "CSV Injection"), text',
        f"that starts with =, +, -, @, a tab, a carriage return or {QUOTE} is written with a",
        f"{QUOTE} before it. To get the text back, remove the first {QUOTE} of any text cell",
        f"that starts with {QUOTE}. Numbers and dates are written as they are.",
    ]
    files = {
        "README.txt": readme(title, today, notes),
        "datapackage.json": json.dumps(package, ensure_ascii=False, indent=2) + "\n",
        **{f"{table}.csv": csv_text(rows_by_table[table], columns[table]) for table in columns},
    }
    return zipped(name, files, today)


def zipped(name, files, today):
    """A ZIP archive (bytes) of ``files`` ({file name: bytes, or text written as UTF-8})
    in a folder ``name``, each dated ``today`` at midnight, so the same data on the same
    day gives the same bytes."""
    stamp = (today.year, today.month, today.day, 0, 0, 0)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for filename, data in files.items():
            archive.writestr(zipfile.ZipInfo(f"{name}/{filename}", stamp), data)
    return buffer.getvalue()


def export_compact(conference):
    """The published content of ``conference`` in the compact format (an
    ``importing.exporting.Export``): what a compact archive holds of it."""
    return export_conference(conference.slug, format="compact", published_only=True)


def compact_archive(name, title, conferences, today=None, *, folders=False, export=None):
    """The ZIP archive (bytes) of ``conferences`` (published ones) in the compact format,
    dated ``today`` (default: today, UTC): per conference what ``export_conference SLUG
    --format compact`` writes, ``<name>/<slug>.yaml`` (``<name>/<slug>/<slug>.yaml``
    with ``folders``, keeping apart two conferences' images of one name) and its
    ``images/`` beside it, and a README.txt saying how to import. ``export`` gives a
    conference's Export (default ``export_compact``; the publisher reads it back from
    the archive it published). Raises ``importing.exporting.ExportError`` when two
    different images of one conference would share a file name."""
    today = today or timezone.now().date()
    export = export or export_compact
    files, paths = {}, []
    for conference in conferences:
        exported = export(conference)
        folder = f"{conference.slug}/" if folders else ""
        paths.append(f"{folder}{conference.slug}.yaml")
        files[paths[-1]] = exported.text
        for relative, data in exported.images.items():
            files[f"{folder}{relative}"] = data
    notes = [
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
    ]
    return zipped(name, {"README.txt": readme(title, today, notes), **files}, today)


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
