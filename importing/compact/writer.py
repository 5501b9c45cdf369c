"""Writing a compact conference file: exported fixture objects -> a document -> text."""

import datetime
import json
from collections import Counter

import yaml

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
from catalogue.names import guessed_fields
from importing.compact.people import NAME
from importing.compact.reader import SLUG_SOURCES, plain_fields
from importing.fields import default_value, derived_slug, field_specs


def from_objects(objects, conference_slug):
    """The compact document of an exported conference's objects: no default value, no slug
    the importer finds the object without (derived, or a name no one else has), ``position``
    only where it is not the list's; so export, flush, import, export give the same."""
    by_model = {}
    for obj in objects:
        by_model.setdefault(obj["model"], []).append(obj["fields"])

    def rows(model):
        return by_model.get(model._meta.label_lower, [])

    venues = {row["slug"]: row for row in rows(Venue)}  # until written out

    def conference(row):
        venue = row["venue"][0]  # written out where it first appears, then by its slug
        out = {"venue": _compact_values(Venue, venues.pop(venue)) if venue in venues else venue}
        out.update(_compact_values(Conference, row, skip=("venue",)))
        return out

    conferences = rows(Conference)
    main = next(row for row in conferences if row["slug"] == conference_slug)
    document = {"conference": conference(main)}
    document["other_conferences"] = [conference(row) for row in conferences if row is not main]

    institutions = {row["slug"]: row for row in rows(Institution)}
    institution_names = _unique_names(Institution, NAME, institutions)
    listed = []
    for row in institutions.values():
        values = _compact_values(Institution, row)
        if set(values) != {"name"}:
            listed.append(_FlowMap(values))
    document["institutions"] = listed

    def affiliation(slug):
        name = institutions[slug][NAME]
        return name if institution_names.get(name) == slug else slug

    # The kinds of the awards, declared whole: the file imports into an empty database.
    document["kinds"] = [_compact_values(AwardKind, row) for row in rows(AwardKind)]
    awards = []
    levels, entries = rows(AwardLevel), rows(AwardEntry)
    award_rows = sorted(rows(Award), key=lambda row: (row["position"], row["slug"]))
    for number, row in enumerate(award_rows, start=1):
        award = _compact_values(Award, row, skip=("conference", "status"))
        if row["status"] != main["status"]:
            award["status"] = row["status"]
        _position(award, row, number)
        if row.get("kind"):
            award["kind"] = row["kind"][0]
        key = [row["conference"][0], row["slug"]]
        own = sorted(
            (level for level in levels if level["award"] == key),
            key=lambda level: (level["position"], level["slug"]),
        )
        award["levels"] = []
        for position, level in enumerate(own, start=1):
            values = _compact_values(AwardLevel, level, skip=("award",))
            _position(values, level, position)
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
        paper.update(_compact_values(Paper, row, skip=("conference", "slug", "status")))
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
                or derived_slug(Author, person["name"]) != slug
            ):
                item["slug"] = slug
            if slug not in described:
                described.add(slug)
                for name, value in _compact_values(Author, person).items():
                    if name not in ("slug", "name", *_guessed_split(person)):
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
    document["papers"] = papers
    return {key: value for key, value in document.items() if value}  # no empty lists


def _compact_values(model, row, skip=()):
    """``row``'s non-default values under their compact names (dates as dates); the slug
    left out when it is the one the reader derives (``SLUG_SOURCES``)."""
    out, specs = {}, field_specs(model)
    for compact, name in plain_fields(model).items():
        if name in skip or name not in row:
            continue
        value, spec = row[name], specs[name]
        if name == "slug":
            source = SLUG_SOURCES.get(model)
            if source is None or derived_slug(model, row.get(source)) != value:
                out["slug"] = value
        elif value != default_value(spec) or spec.required:
            if spec.kind == "date" and value:  # a date, so that YAML writes it unquoted
                value = datetime.date.fromisoformat(value)
            out[compact] = value
    other = out.get("other_names")
    if isinstance(other, str) and "\n" in other:
        out["other_names"] = other.split("\n")
    return out


def _guessed_split(person):
    """The name fields of ``person`` (an author's row) the reader guesses from its name
    as they are: all of them, or none when someone wrote another split."""
    guessed = guessed_fields(person["name"])
    return tuple(guessed) if all(person.get(key) == value for key, value in guessed.items()) else ()


def _position(values, row, number):
    """Write ``row``'s position into ``values`` only where it is not the list's ``number``."""
    if row["position"] == number:
        values.pop("position", None)
    else:
        values.setdefault("position", row["position"])


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
    """The slugs a name of ``model`` must not be (:func:`name_stands_alone`): every
    institution's for an institution, none for an author (always written by name)."""
    return set(model.objects.values_list("slug", flat=True)) if model is Institution else set()


def name_stands_alone(name, slug, counts, slugs):
    """Whether a compact file may name the object ``slug`` by its ``name`` alone: no other
    has the name (``counts``: name -> how many of the model's objects, drafts too) and it is
    no other's slug (``slugs``, :func:`other_slugs`): every row counts (publishing/changes.py)."""
    return counts.get(name) == 1 and (name not in slugs or name == slug)


class _Flow(list):
    """A list written on one line in YAML: ``[a, b]``."""


class _FlowMap(dict):
    """A mapping written on one line in YAML: ``{name: x, orcid: y}``."""


def render(document, *, as_json=False):
    """The compact document as text (YAML, else JSON), the same bytes for the same document;
    YAML has each author, level and list of papers on a line, text of lines in a ``|``."""
    if as_json:
        return json.dumps(document, ensure_ascii=False, indent=2, default=str) + "\n"

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
        document,
        Dumper=Dumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=4096,
    )
