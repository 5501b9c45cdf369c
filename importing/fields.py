"""The fixture's vocabulary: the models (each states its natural key,
``natural_key_fields``), their fields, and problems."""

import datetime
import json
from dataclasses import dataclass
from functools import cache

from django.db import models
from modeltranslation.translator import translator

from catalogue import languages
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
    natural_key_lookups,
)
from catalogue.slugs import slug_from

# Dependency order: every model refers only to models before it.
FIXTURE_MODELS = [
    Venue,
    AwardKind,
    Conference,
    Institution,
    Author,
    Paper,
    Authorship,
    PaperLink,
    Award,
    AwardLevel,
    AwardEntry,
]
MODEL_LABELS = {model._meta.label_lower: model for model in FIXTURE_MODELS}
# Column suffixes of translated fields: settings.LANGUAGES with "-" written "_". A
# translated field is written bare for the default language in a compact file.
LANGUAGE_SUFFIXES = languages.suffixes()
DEFAULT_SUFFIX = LANGUAGE_SUFFIXES[0]
# Rows per bulk query: below SQLite's 999 bound parameters for the widest model.
BATCH_SIZE = 500
# A field's kind (FieldSpec) by its class, the first that matches; the types a fixture
# may write for it and their name in messages (true/false is no number, a date and time
# no date). A reference is checked as a natural key (reading._check_reference).
FIELD_KINDS = [
    (models.ManyToManyField, "references", list, "a list of natural keys"),
    (models.ForeignKey, "reference", None, None),
    (models.ImageField, "image", str, "a file path"),
    (models.DateField, "date", str | datetime.date, "a date written YYYY-MM-DD"),
    (models.IntegerField, "integer", int, "a whole number"),
    (models.Field, "text", str, "a string"),
]
EXPECTED = {kind: (types, name) for _cls, kind, types, name in FIELD_KINDS if types}
# How messages name what JSON or YAML gave (bool before int: True is an int too).
TYPE_NAMES = [(bool, "true/false"), (int | float, "a number"), (str, "a string")]
TYPE_NAMES += [(list, "a list"), (dict, "a mapping")]


class Problem:
    """One thing wrong with a fixture: where (file, object, field) and what. ``place``
    names it in a compact file instead (``papers[3].authors[2].orcid``, from 1); ``at``,
    its (line, column) in the file, from 1, when known (YAML): printed ``file:line:column``
    as compilers do, so that editors and terminals jump there."""

    def __init__(
        self, file, message, *, index=None, label=None, key=None, field=None, place="", at=None
    ):
        self.file, self.message, self.place, self.at = str(file), str(message), place, at
        self.index, self.label, self.key, self.field = index, label, key, field

    def __str__(self):
        file = self.file if self.at is None else "{}:{}:{}".format(self.file, *self.at)
        if self.place:
            return f"{file}, {self.place}: {self.message}"
        where = [file]
        if self.index is not None:
            where.append(f"object {self.index}")
        if self.label:
            where.append(self.label + ("" if self.key is None else " " + format_key(self.key)))
        if self.field:
            where.append(f"field {self.field!r}")
        return ": ".join([", ".join(where), self.message])

    def __repr__(self):
        return f"<Problem {self}>"


class FixtureInvalid(Exception):
    """The fixture cannot be imported; ``problems`` lists every reason."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(str(problem) for problem in self.problems))


def format_key(key):
    """A natural key as written in fixtures and messages: a JSON list."""
    return json.dumps(list(key), ensure_ascii=False)


def type_name(value):
    """What a value read from JSON or YAML is, in messages: "a string", "a list", ..."""
    for kind, name in TYPE_NAMES:
        if isinstance(value, kind):
            return name
    return "null" if value is None else type(value).__name__


def derived_slug(model, text):
    """The slug a ``model`` object gets from ``text`` (a name, a title), "" for none."""
    max_length = model._meta.get_field("slug").max_length
    return slug_from(text if isinstance(text, str) else "", max_length)


@dataclass(frozen=True)
class FieldSpec:
    """One field a fixture may write for a model. ``kind``: ``"text"``, ``"integer"``,
    ``"date"``, ``"image"``, ``"reference"`` (a foreign key, as the target's natural key;
    ``None`` leaves a nullable one empty, as an award without a kind)
    or ``"references"`` (a many-to-many, a list of natural keys in order)."""

    name: str
    field: models.Field
    kind: str
    required: bool
    translated: bool = False
    target: type | None = None

    @property
    def attname(self):
        return self.field.attname


@cache
def translated_fields(model):
    """The names of the model's fields translated by modeltranslation ({} if none)."""
    try:
        return frozenset(translator.get_options_for_model(model).all_fields)
    except Exception:  # NotRegistered
        return frozenset()


@cache
def field_specs(model):
    """name -> spec of ``model``'s fixture fields in export order: the editable ones but the
    primary key, a translated one as its language columns. Required: a natural key's parts,
    fields neither blank nor with a default (translated: the default language's column)."""
    specs = {}
    translated = translated_fields(model)
    for model_field in model._meta.fields + model._meta.many_to_many:
        if model_field.primary_key or model_field.auto_created or not model_field.editable:
            continue  # not editable: derived from other fields (search_text)
        if getattr(model_field, "translated_field", None) is not None:
            continue  # a TranslationField: added next to its original below
        if model_field.many_to_many and not _written_as_list(model_field):
            continue  # Paper.authors and Award.papers are written as their own objects
        # A natural key's parts are required even where the admin may leave them blank
        # (it makes slugs from titles; a fixture must name its objects).
        required = (
            not model_field.blank and not model_field.has_default()
        ) or model_field.name in model.natural_key_fields
        if model_field.name in translated:
            # The default language's column holds the original, required as the field is.
            for index, suffix in enumerate(LANGUAGE_SUFFIXES):
                column = model._meta.get_field(f"{model_field.name}_{suffix}")
                specs[column.name] = FieldSpec(
                    column.name, column, "text", required and index == 0, translated=True
                )
            continue
        kind = next(kind for cls, kind, *_ in FIELD_KINDS if isinstance(model_field, cls))
        target = model_field.related_model if model_field.is_relation else None
        specs[model_field.name] = FieldSpec(
            model_field.name, model_field, kind, required, False, target
        )
    return specs


def _written_as_list(model_field):
    """Whether a many-to-many field is a list in its object: an automatic join table, or
    a through model holding only the pair and a ``position`` (``Authorship.affiliations``).
    Other through models (``Authorship``) are fixture objects of their own."""
    through = model_field.remote_field.through
    if through._meta.auto_created:
        return True
    own = {field.name for field in through._meta.local_fields if not field.primary_key}
    pair = {model_field.m2m_field_name(), model_field.m2m_reverse_field_name()}
    return not hasattr(through, "natural_key") and own == pair | {"position"}


def key_length(model):
    """How many strings make up the model's natural key."""
    return len(natural_key_lookups(model))


def chunks(values, size=BATCH_SIZE):
    values = list(values)
    for start in range(0, len(values), size):
        yield values[start : start + size]


def existing_keys(model, keys):
    """key -> primary key of those of ``keys`` (natural key tuples) in the database."""
    keys, found = set(keys), {}
    lookups = natural_key_lookups(model)
    for chunk in chunks({key[0] for key in keys}):
        rows = model.objects.filter(**{f"{lookups[0]}__in": chunk}).values_list("pk", *lookups)
        for pk, *key in rows:
            if tuple(key) in keys:
                found[tuple(key)] = pk
    return found


def default_value(spec):
    """What a new object gets for a field the fixture leaves out."""
    if spec.kind == "references":
        return []
    if spec.field.has_default():
        return spec.field.get_default()
    return "" if spec.kind in ("text", "image") else None
