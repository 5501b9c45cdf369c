"""A conference and all that belongs to it as a fixture (``export_conference``): the
fields and values the importer reads, objects in dependency order, then by natural key, so
export, flush, import and export again give the same bytes."""

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
    AwardKind,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    PaperLink,
    Venue,
)
from importing.compact.writer import from_objects, render
from importing.fields import field_specs, format_key
from importing.planning import database_value

# Where images go, relative to the exported fixture file.
IMAGE_DIRECTORY = "images"
# Fields written only when they hold a value: a paper's import key, which papers loaded
# or created in the admin do not have (their fixtures stay as they were).
WRITTEN_WHEN_SET = {Paper: ("key",)}


class ExportError(Exception):
    """The conference cannot be exported faithfully (two images would share a file name)."""


@dataclass
class Export:
    """An export: its text, its images (relative path -> bytes), warnings of what it left out."""

    text: str
    images: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)


def belonging_to(conference, *, published_only=False):
    """model -> queryset of what makes up ``conference`` (only what visitors see if
    ``published_only``): its awards, levels, entries, and the papers published or awarded at
    it with all they need to import into an empty database (authors, conferences, ...)."""
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
        AwardKind: AwardKind.objects.filter(awards__in=awards).distinct(),
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
    """The :class:`Export` of conference ``slug``: ``"fixture"`` (JSON) or ``"compact"`` (YAML,
    JSON if ``as_json``); images named ``images/<file name>`` for the caller to write (an
    unreadable one ``""``, warned). Raises ``Conference.DoesNotExist``, :class:`ExportError`."""
    conference = Conference.objects.get(slug=slug)
    objects, images, warnings = [], {}, []
    for model, queryset in belonging_to(conference, published_only=published_only).items():
        specs = field_specs(model)
        rows = []
        for instance in queryset:
            fields = {}
            for name, spec in specs.items():
                if spec.kind != "image":
                    fields[name] = database_value(spec, instance)
                    if name in WRITTEN_WHEN_SET.get(model, ()) and not fields[name]:
                        del fields[name]
                    continue
                stored, fields[name] = getattr(instance, spec.attname), ""
                if not stored:
                    continue
                try:
                    with default_storage.open(stored.name, "rb") as image:
                        data = image.read()
                except OSError as error:
                    warnings.append(
                        f"{model._meta.label_lower} {format_key(instance.natural_key())}"
                        f", field {name!r}: the image {stored.name} cannot be read "
                        f'({error.strerror or error}); it is left out (written "")'
                    )
                    continue
                relative = f"{IMAGE_DIRECTORY}/{PurePosixPath(stored.name).name}"
                if images.setdefault(relative, data) != data:
                    raise ExportError(f"two different images would both be written as {relative}")
                fields[name] = relative
            rows.append((tuple(instance.natural_key()), fields))
        rows.sort(key=lambda row: row[0])
        label = model._meta.label_lower
        objects.extend({"model": label, "fields": fields} for _, fields in rows)
    if format == "compact":
        text = render(from_objects(objects, slug), as_json=as_json)
    else:
        text = json.dumps(objects, ensure_ascii=False, indent=2) + "\n"
    return Export(text, images, warnings)
