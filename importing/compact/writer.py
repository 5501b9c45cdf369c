"""Writing a compact conference file: exported fixture objects -> a document -> text.

:func:`from_objects` builds the document ``export_conference --format compact`` writes;
:func:`render` writes it as YAML or JSON, the same document always as the same bytes.
"""

import datetime
import json
from collections import Counter

import yaml

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
from catalogue.slugs import slug_from
from importing.compact.common import slug_length
from importing.compact.reader import compact_name
from importing.fields import default_value, field_specs


def from_objects(objects, conference_slug):
    """The compact document of an exported conference (``importing.exporting``'s objects).

    Writes every value that is not the field's default; leaves out a slug wherever the
    importer would find the same object without it (the slug derived from the name,
    and for a person or institution a name no one else in the database has), so
    export, flush, import and export give the same document. Positions are written as
    list order (and ``position`` only where it is not the list's).
    """
    by_model = {}
    for obj in objects:
        by_model.setdefault(obj["model"], []).append(obj["fields"])

    def rows(model):
        return by_model.get(model._meta.label_lower, [])

    venues = {row["slug"]: row for row in rows(Venue)}
    written_venues = set()

    def conference(row):
        out = {}
        venue = row["venue"][0]
        if venue in written_venues or venue not in venues:
            out["venue"] = venue
        else:
            written_venues.add(venue)
            out["venue"] = _compact_values(Venue, venues[venue], "acronym")
        out.update(_compact_values(Conference, row, "name_en", skip=("venue",)))
        return out

    conferences = rows(Conference)
    main = next(row for row in conferences if row["slug"] == conference_slug)
    document = {"conference": conference(main)}
    others = [conference(row) for row in conferences if row is not main]
    if others:
        document["other_conferences"] = others

    institutions = {row["slug"]: row for row in rows(Institution)}
    institution_names = _unique_names(Institution, "name_en", institutions)
    listed = []
    for row in institutions.values():
        values = _compact_values(Institution, row, "name_en")
        if set(values) != {"name"}:
            listed.append(_FlowMap(values))
    if listed:
        document["institutions"] = listed

    def affiliation(slug):
        name = institutions[slug]["name_en"]
        return name if institution_names.get(name) == slug else slug

    awards = []
    levels, entries = rows(AwardLevel), rows(AwardEntry)
    award_rows = sorted(rows(Award), key=lambda row: (row["position"], row["slug"]))
    for number, row in enumerate(award_rows, start=1):
        award = _compact_values(Award, row, "name_en", skip=("conference", "status"))
        if row["status"] != main["status"]:
            award["status"] = row["status"]
        if award.get("position", 0) == number:
            del award["position"]
        elif "position" not in award:
            award["position"] = row["position"]
        key = [row["conference"][0], row["slug"]]
        own = sorted(
            (level for level in levels if level["award"] == key),
            key=lambda level: (level["position"], level["slug"]),
        )
        award["levels"] = []
        for position, level in enumerate(own, start=1):
            values = _compact_values(AwardLevel, level, "name_en", skip=("award",))
            if values.get("position", 0) == position:
                del values["position"]
            elif "position" not in values:
                values["position"] = level["position"]
            award["levels"].append(_FlowMap(values))
        award["entries"] = {}
        for level in own:
            papers = sorted(
                (entry for entry in entries if entry["level"] == [*key, level["slug"]]),
                key=lambda entry: (entry["position"], entry["paper"][0]),
            )
            if papers:
                award["entries"][level["slug"]] = _Flow([entry["paper"][0] for entry in papers])
        if not award["entries"]:
            del award["entries"]
        awards.append(award)
    if awards:
        document["awards"] = awards

    authors = {row["slug"]: row for row in rows(Author)}
    author_names = _unique_names(Author, "name", authors)
    described = set()
    authorships = {}
    for row in rows(Authorship):
        authorships.setdefault(row["paper"][0], []).append(row)
    links = {}
    kinds = list(PaperLink.Kind.values)
    for row in rows(PaperLink):
        links.setdefault(row["paper"][0], []).append(row)
    papers = []
    for row in sorted(rows(Paper), key=lambda row: row["slug"]):
        paper = {"slug": row["slug"]}
        paper.update(_compact_values(Paper, row, None, skip=("conference", "slug", "status")))
        if row["status"] != main["status"]:
            paper["status"] = row["status"]
        if row["conference"][0] != conference_slug:
            paper["conference"] = row["conference"][0]
        people = []
        for authorship in sorted(authorships.get(row["slug"], []), key=lambda a: a["position"]):
            slug = authorship["author"][0]
            person = authors[slug]
            item = {"name": person["name"]}
            if (
                author_names.get(person["name"]) != slug
                or slug_from(person["name"], slug_length(Author)) != slug
            ):
                item["slug"] = slug
            if slug not in described:
                described.add(slug)
                for name, value in _compact_values(Author, person, None).items():
                    if name not in ("slug", "name"):
                        item[name] = value
            if authorship["affiliations"]:
                item["affiliations"] = [affiliation(key[0]) for key in authorship["affiliations"]]
            people.append(item["name"] if list(item) == ["name"] else _FlowMap(item))
        if people:
            paper["authors"] = people
        own_links = sorted(links.get(row["slug"], []), key=lambda link: kinds.index(link["kind"]))
        if own_links:
            paper["links"] = {link["kind"]: link["url"] for link in own_links}
        papers.append(paper)
    if papers:
        document["papers"] = papers
    return document


def _compact_values(model, row, source, skip=()):
    """``row``'s non-default values under their compact names; the slug left out when
    it is the one derived from ``source`` (None: always written)."""

    out = {}
    for name, spec in field_specs(model).items():
        if name in skip or spec.kind in ("reference", "references") or name not in row:
            continue
        value = row[name]
        if name == "slug":
            if source is None or slug_from(row.get(source), slug_length(model)) != value:
                out["slug"] = value
            continue
        if value == default_value(spec) and not spec.required:
            continue
        out[compact_name(name) if spec.translated else name] = value
    other = out.get("other_names")
    if isinstance(other, str) and "\n" in other:
        out["other_names"] = other.split("\n")
    return out


def _unique_names(model, name_field, rows):
    """name -> slug for the names of ``rows`` that exactly one object in the database has."""
    names = [row[name_field] for row in rows.values()]
    found = model.objects.filter(**{f"{name_field}__in": names})
    counts = Counter(found.values_list(name_field, flat=True))
    slugs = other_slugs(model)
    return {
        row[name_field]: slug
        for slug, row in rows.items()
        if name_stands_alone(row[name_field], slug, counts, slugs)
    }


def other_slugs(model):
    """The slugs a name of ``model`` must not be (see :func:`name_stands_alone`): every
    institution's slug for an institution, none for an author (a person is always
    written by name)."""
    return set(model.objects.values_list("slug", flat=True)) if model is Institution else set()


def name_stands_alone(name, slug, counts, slugs):
    """Whether a compact file may name the object ``slug`` by its ``name`` alone, its slug
    left out: no other object in the database has the name (``counts``: name -> how many
    objects of the model have it, drafts included) and, for an institution, the name is
    no other's slug (``slugs``, :func:`other_slugs`: it would be read as that slug).
    Whether it does depends on every row of the model, not only on the file's: the
    publisher (publishing/changes.py) follows it to know which files changed."""
    return counts.get(name) == 1 and (name not in slugs or name == slug)


class _Flow(list):
    """A list written on one line in YAML: ``[a, b]``."""


class _FlowMap(dict):
    """A mapping written on one line in YAML: ``{name: x, orcid: y}``."""


def render(document, *, as_json=False):
    """The compact document as text: YAML (the default) or JSON, ending in a newline.

    YAML keeps each author, level and list of papers on one line, writes text of
    several lines as a ``|`` block, and dates unquoted. The same document always gives
    the same bytes.
    """
    if as_json:
        return json.dumps(document, ensure_ascii=False, indent=2) + "\n"

    class Dumper(yaml.SafeDumper):
        pass

    def flow_list(dumper, data):
        return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True)

    def flow_map(dumper, data):
        return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=True)

    def text(dumper, data):
        style = "|" if "\n" in data else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)

    Dumper.add_representer(_Flow, flow_list)
    Dumper.add_representer(_FlowMap, flow_map)
    Dumper.add_representer(str, text)
    return yaml.dump(
        _yaml_ready(document),
        Dumper=Dumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=4096,
    )


# The date fields of the compact format (Conference's days, Award's announcement).
DATE_KEYS = ("start_date", "end_date", "announced_on")


def _yaml_ready(value, key=None):
    """Dates as dates (written unquoted), recursively, keeping the one-line classes."""
    if isinstance(value, dict):
        return type(value)({name: _yaml_ready(item, name) for name, item in value.items()})
    if isinstance(value, list):
        return type(value)(_yaml_ready(item) for item in value)
    if key in DATE_KEYS and isinstance(value, str):
        return datetime.date.fromisoformat(value)
    return value
