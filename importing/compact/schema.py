"""The JSON Schema of the compact format (docs/compact-format.md), made from what the reader
accepts: each object's own keys are ``reader.plain_fields()`` of its model, typed and
described by the model's fields, and its structural keys are the reader's. A YAML editor
checks and completes a file against it (``# yaml-language-server: $schema=<address>``);
the site serves it at /schemas/compact-format.json.
"""

from django.utils import translation

from catalogue.models import (
    Author,
    Award,
    AwardKind,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    PaperLink,
    Venue,
)
from importing.compact.reader import TOP_KEYS, plain_fields
from importing.fields import field_specs

DIALECT = "https://json-schema.org/draft/2020-12/schema"
STRINGS = {"type": "array", "items": {"type": "string"}}
NEW = {
    "description": "A new person or institution, not the known one whose name is close "
    '(docs/compact-format.md, "Did you mean").',
    "type": "boolean",
}
# An award entry: a citation key or slug, or (with ``proceedings``) a title, alone or with
# family names of its authors to confirm a near match (docs/harvest.md).
ENTRY = {
    "oneOf": [
        {"type": "string", "minLength": 1},
        {
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 1},
                "authors": {"oneOf": [{"type": "string"}, STRINGS]},
            },
            "required": ["title"],
            "additionalProperties": False,
        },
    ]
}


def _property(model, name):
    """The schema of the fixture field ``name`` of a ``model`` object."""
    spec = field_specs(model)[name]
    field = spec.field
    description = str(field.verbose_name).capitalize()  # a translation's: "Name [zh-hans]"
    if field.help_text:
        description += f". {field.help_text}"
    if spec.kind == "integer":
        schema = {"type": "integer"}
    elif spec.kind == "date":
        schema = {"type": "string", "format": "date"}
    else:
        schema = {"type": "string"}
        if field.max_length:
            schema["maxLength"] = field.max_length
    if field.choices:
        schema["enum"] = [value for value, _label in field.choices]
    return {"description": description, **schema}


def _object(model, structural=None, required=()):
    """A ``model`` object's schema: its own keys, ``structural`` ones (key -> schema)."""
    properties = {compact: _property(model, name) for compact, name in plain_fields(model).items()}
    properties.update(structural or {})
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


def compact_schema(address=""):
    """The schema (a dict, JSON-ready) of a compact conference file, its ``$id`` the
    absolute ``address`` it is served at ("" leaves it out). Descriptions in English."""
    with translation.override("en"):
        venue = _object(Venue, required=("acronym", "name"))
        conference = _object(
            Conference,
            {
                "venue": {
                    "description": "The conference's venue: written out, or the slug of one "
                    "written earlier in the file or in the database.",
                    "oneOf": [{"type": "string", "minLength": 1}, venue],
                }
            },
            required=("venue", "name", "year"),
        )
        person = _object(
            Author,
            {
                "other_names": {
                    "description": "Other names (in another script), one or a list.",
                    "oneOf": [{"type": "string"}, STRINGS],
                },
                "affiliations": {
                    "description": "The author's institutions on this paper, in order: "
                    "slugs or names.",
                    **STRINGS,
                },
                "new": NEW,
            },
        )
        award = _object(
            Award,
            {
                "kind": {
                    "description": "The slug of the award's kind (test-of-time, best-paper, "
                    "...): declared under kinds, or in the database.",
                    "type": "string",
                    "minLength": 1,
                },
                "levels": {
                    "description": "The award's levels, the top level first.",
                    "type": "array",
                    "items": _object(AwardLevel, required=("name", "name_plural")),
                },
                "entries": {
                    "description": "Level slug -> the papers given it, by citation key or "
                    "slug, or by title when the file names its proceedings.",
                    "type": "object",
                    "additionalProperties": {"type": "array", "items": ENTRY},
                },
            },
            required=("name",),
        )
        kinds = [value for value, _label in PaperLink.Kind.choices]
        paper = _object(
            Paper,
            {
                "key": {
                    "description": "The paper's citation key: its entry in the BibTeX file, "
                    "and how awards name it.",
                    "type": "string",
                },
                "conference": {
                    "description": "The slug of the conference it was published at, when "
                    "not this file's (a Test-of-Time award's earlier edition).",
                    "type": "string",
                },
                "authors": {
                    "description": "The authors in order: a name, or a mapping (a paper from "
                    "the BibTeX file may leave out the name, to keep BibTeX's).",
                    "type": "array",
                    "items": {"oneOf": [{"type": "string", "minLength": 1}, person]},
                },
                "links": {
                    "description": "Kind -> address.",
                    "type": "object",
                    "propertyNames": {"enum": kinds},
                    "additionalProperties": {"type": "string", "format": "uri"},
                },
            },
        )
        structure = {
            "conference": {"description": "The conference the file is about.", **conference},
            "other_conferences": {
                "description": "Earlier editions the file's papers were published at.",
                "type": "array",
                "items": conference,
            },
            "bibtex": {
                "description": "A .bib file beside this one, whose entries fill in the papers.",
                "type": "string",
            },
            "proceedings": {
                "description": "The conference's whole proceedings (.bib or CSL-JSON) beside "
                "this file: awards name papers by title, matched in it (docs/harvest.md).",
                "type": "string",
            },
            "institutions": {
                "description": "Institutions the authors' affiliations name.",
                "type": "array",
                "items": _object(Institution, {"new": NEW}, required=("name",)),
            },
            "kinds": {
                "description": "Kinds of award the awards name (kind), with their names; a "
                "kind already in the database need not be declared.",
                "type": "array",
                "items": _object(AwardKind, required=("name",)),
            },
            "awards": {"description": "The conference's awards.", "type": "array", "items": award},
            "papers": {"description": "The awarded papers.", "type": "array", "items": paper},
        }
    schema = {"$schema": DIALECT}
    if address:
        schema["$id"] = address
    return {
        **schema,
        "title": "Compact conference file of the awards site",
        "type": "object",
        "properties": {key: structure[key] for key in TOP_KEYS},
        "additionalProperties": False,
        "required": ["conference"],
    }
