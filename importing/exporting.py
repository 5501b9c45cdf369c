"""Write a conference and everything that belongs to it as a fixture (``export_conference``).

The output is the format :mod:`importing` reads (``docs/fixture-format.md``):
the same field names, the same normalised values, objects in dependency order and
sorted by natural key, so export, flush, import and export again give the same bytes.
"""

import json
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from django.core.files.storage import default_storage
from django.db.models import Q

from catalogue.models import (
    Author,
    Authorship,
    Award,
    AwardEntry,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    PaperLink,
    Venue,
)
from importing import compact
from importing.fields import field_specs, format_key
from importing.planning import database_value

# Where images go, relative to the exported fixture file.
IMAGE_DIRECTORY = "images"


class ExportError(Exception):
    """The conference cannot be exported faithfully (two images would share a file name)."""


@dataclass
class Export:
    """An exported fixture: its text, the image files it names (relative path -> bytes),
    and warnings (one line each) about what it had to leave out."""

    text: str
    images: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)


def belonging_to(conference, *, published_only=False):
    """The objects that make up ``conference``, per model (model -> queryset).

    The conference, its awards and award entries; the papers published at it and the
    papers awarded at it (a test-of-time award goes to papers of an earlier edition);
    their authorships (affiliations in order), authors, affiliated institutions and
    links; the awards' levels; and the
    conferences those papers were published at, with their venues, so the file
    imports into an empty database. An earlier conference is exported on its own,
    without its awards or other papers (export that conference for those).

    ``published_only``: only what visitors see (the whole downloads, opendata/downloads.py):
    published papers (of published conferences), published awards with their levels,
    and the entries whose award and paper are both published; the other objects follow
    from those. The conference itself is expected to be published.
    """
    papers = Paper.objects.all()
    awards = Award.objects.filter(conference=conference)
    entries = AwardEntry.objects.filter(award__conference=conference)
    if published_only:
        papers = Paper.objects.published()
        awards = awards.published()
        entries = entries.published()
    papers = papers.filter(Q(conference=conference) | Q(pk__in=entries.values("paper"))).distinct()
    conferences = Conference.objects.filter(Q(pk=conference.pk) | Q(papers__in=papers)).distinct()
    authorships = Authorship.objects.filter(paper__in=papers)
    return {
        Venue: Venue.objects.filter(conferences__in=conferences).distinct(),
        Conference: conferences.select_related("venue"),
        Institution: Institution.objects.filter(authorships__in=authorships).distinct(),
        Author: Author.objects.filter(authorships__in=authorships).distinct(),
        Paper: papers.select_related("conference"),
        Authorship: authorships.select_related("paper", "author").prefetch_related(
            "affiliation_rows__institution"
        ),
        PaperLink: PaperLink.objects.filter(paper__in=papers).select_related("paper"),
        Award: awards.select_related("conference"),
        AwardLevel: AwardLevel.objects.filter(award__in=awards).select_related("award__conference"),
        AwardEntry: entries.select_related(
            "award__conference", "paper", "level__award__conference"
        ),
    }


def export_conference(slug, *, format="fixture", as_json=False, published_only=False):
    """Export the conference with natural key ``slug``; return an :class:`Export`.

    ``format`` is ``"fixture"`` (a JSON fixture, ``docs/fixture-format.md``) or
    ``"compact"`` (a compact conference file, ``docs/compact-format.md``: YAML, or
    JSON with ``as_json``), built from the same objects. ``published_only``: only
    published content (see :func:`belonging_to`).

    Images are named ``images/<file name>`` relative to the fixture; the caller writes
    ``Export.images`` there. Empty translations stay ``""``. A stored image that
    cannot be read (e.g. its file is gone from the media storage) is left out: the
    field is written ``""`` and ``Export.warnings`` names the object, so one lost file
    does not stop the export. Raises ``Conference.DoesNotExist`` for an unknown slug
    and :class:`ExportError` when two images share a file name.
    """
    conference = Conference.objects.get(slug=slug)
    objects, images, warnings = [], {}, []
    for model, queryset in belonging_to(conference, published_only=published_only).items():
        specs = field_specs(model)
        rows = []
        for instance in queryset:
            fields = {}
            for name, spec in specs.items():
                if spec.kind == "image":
                    stored = getattr(instance, spec.attname)
                    data = None
                    if stored:
                        relative = f"{IMAGE_DIRECTORY}/{PurePosixPath(stored.name).name}"
                        try:
                            with default_storage.open(stored.name, "rb") as image:
                                data = image.read()
                        except OSError as error:
                            warnings.append(
                                f"{model._meta.label_lower} {format_key(instance.natural_key())}"
                                f", field {name!r}: the image {stored.name} cannot be read "
                                f'({error.strerror or error}); it is left out (written "")'
                            )
                    if data is not None:
                        if images.setdefault(relative, data) != data:
                            raise ExportError(
                                f"two different images would both be written as {relative}"
                            )
                        fields[name] = relative
                    else:
                        fields[name] = ""
                else:
                    fields[name] = database_value(spec, instance)
            rows.append((tuple(instance.natural_key()), fields))
        rows.sort(key=lambda row: row[0])
        label = model._meta.label_lower
        objects.extend({"model": label, "fields": fields} for _, fields in rows)
    if format == "compact":
        text = compact.render(compact.from_objects(objects, slug), as_json=as_json)
    else:
        text = json.dumps(objects, ensure_ascii=False, indent=2) + "\n"
    return Export(text, images, warnings)
