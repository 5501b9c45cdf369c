"""Read, check and apply a conference fixture (``manage.py import_conference``).

The format is Django's fixture format with natural keys, as ``fixtures/icml.json``
uses it and ``docs/fixture-format.md`` documents it: a list of
``{"model": "papers.<name>", "fields": {...}}`` objects, in JSON or YAML.

Three steps, none of which writes until the last:

1. :func:`read_fixture` parses the file and checks every object and field through
   Django's own field machinery (``Field.clean``: types, lengths, slugs, URLs,
   choices, dates), natural keys, references (to the file or the database) and
   images. It collects every problem instead of stopping at the first.
2. :func:`plan_import` compares the file with the database and with what the last
   import set (:class:`~papers.models.ImportRecord`): a field whose database value
   differs from the last imported one was changed by an editor, and is kept
   (a *conflict*) unless ``overwrite`` is true. It checks the model constraints on
   the values the database would end up with.
3. :func:`apply_plan` writes the plan with bulk queries inside one transaction.

:func:`import_fixture` runs the three and raises :class:`FixtureInvalid` (carrying
every :class:`Problem`) before anything is written.
"""

import datetime
import hashlib
import io
import json
import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import models, transaction
from django.utils import translation
from modeltranslation.translator import translator
from PIL import Image

from .models import (
    Author,
    Authorship,
    Award,
    AwardEntry,
    Conference,
    ImportRecord,
    Institution,
    Paper,
    PaperLink,
    Venue,
)

# Dependency order: every model refers only to models before it.
FIXTURE_MODELS = [
    Venue,
    Conference,
    Institution,
    Author,
    Paper,
    Authorship,
    PaperLink,
    Award,
    AwardEntry,
]
# The fields whose values make up each model's natural key (see its natural_key()).
KEY_FIELDS = {
    Venue: ("slug",),
    Conference: ("slug",),
    Institution: ("slug",),
    Author: ("slug",),
    Paper: ("slug",),
    Authorship: ("paper", "author"),
    PaperLink: ("paper", "kind"),
    Award: ("conference", "slug"),
    AwardEntry: ("award", "paper"),
}
# Column suffixes of translated fields: settings.LANGUAGES with "-" written "_".
LANGUAGE_SUFFIXES = ("en", "zh_hans")
# A teaser is shown at most about 1,200 px wide; 5 MiB holds such a PNG or JPEG with
# room to spare and keeps an accidental camera original or poster PDF out of media.
MAX_IMAGE_BYTES = 5 * 1024 * 1024
# Formats every current browser displays in an <img>.
IMAGE_FORMATS = {"PNG": "png", "JPEG": "jpg", "GIF": "gif", "WEBP": "webp"}
# Where stored images go: Paper.image's upload_to.
IMAGE_DIRECTORY = "papers"
# Rows per bulk query: below SQLite's 999 bound parameters for the widest model.
BATCH_SIZE = 500


class Problem:
    """One thing wrong with a fixture: where (file, object, field) and what."""

    def __init__(self, file, message, *, index=None, label=None, key=None, field=None):
        self.file, self.message = str(file), str(message)
        self.index, self.label, self.key, self.field = index, label, key, field

    def __str__(self):
        where = [self.file]
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


# ---------------------------------------------------------------------------
# The fields a fixture may name


@dataclass(frozen=True)
class FieldSpec:
    """One field a fixture may write for a model, and how its value is checked.

    ``kind`` is ``"text"``, ``"integer"``, ``"date"``, ``"reference"`` (a
    foreign key, written as the target's natural key), ``"references"`` (a
    many-to-many, a list of natural keys) or ``"image"``.
    """

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
    """The fixture fields of ``model`` in the order export writes them (name -> spec).

    Every concrete field except the primary key; a translated field appears as
    ``<name>_en`` and ``<name>_zh_hans``, never under its bare name. A field is
    required when the model allows it neither blank nor has a default (for a
    translated field: its English column).
    """
    specs = {}
    translated = translated_fields(model)
    for model_field in model._meta.fields + model._meta.many_to_many:
        if model_field.primary_key or model_field.auto_created:
            continue
        if getattr(model_field, "translated_field", None) is not None:
            continue  # a TranslationField: added next to its original below
        if model_field.many_to_many and not model_field.remote_field.through._meta.auto_created:
            continue  # Paper.authors and Award.papers are written as their own objects
        required = not model_field.blank and not model_field.has_default()
        if model_field.name in translated:
            for suffix in LANGUAGE_SUFFIXES:
                column = model._meta.get_field(f"{model_field.name}_{suffix}")
                specs[column.name] = FieldSpec(
                    column.name, column, "text", required and suffix == "en", translated=True
                )
            continue
        if model_field.many_to_many:
            kind = "references"
        elif model_field.is_relation:
            kind = "reference"
        elif isinstance(model_field, models.ImageField):
            kind = "image"
        elif isinstance(model_field, models.DateField):
            kind = "date"
        elif isinstance(model_field, models.IntegerField):
            kind = "integer"
        else:
            kind = "text"
        target = model_field.related_model if model_field.is_relation else None
        specs[model_field.name] = FieldSpec(
            model_field.name, model_field, kind, required, False, target
        )
    return specs


@cache
def model_labels():
    """``"papers.paper"`` -> model, for every fixture model."""
    return {model._meta.label_lower: model for model in FIXTURE_MODELS}


def key_length(model):
    """How many strings make up the model's natural key."""
    return sum(
        key_length(field_specs(model)[name].target)
        if field_specs(model)[name].kind == "reference"
        else 1
        for name in KEY_FIELDS[model]
    )


# ---------------------------------------------------------------------------
# Images


def check_image(data, *, max_bytes=MAX_IMAGE_BYTES):
    """Check that ``data`` (bytes) is one image a browser can show; return its extension.

    Returns ``"png"``, ``"jpg"``, ``"gif"`` or ``"webp"``, from the content, never the
    file name. Raises ``ValidationError`` when ``data`` is empty, larger than
    ``max_bytes`` (bytes; default :data:`MAX_IMAGE_BYTES`), not an image Pillow can
    read, in another format, or has more pixels than Pillow's decompression-bomb
    limit (``PIL.Image.MAX_IMAGE_PIXELS``).
    """
    if not data:
        raise ValidationError("the image file is empty")
    if len(data) > max_bytes:
        raise ValidationError(
            f"the image file is too large: {len(data)} bytes, at most {max_bytes} allowed"
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                image_format = image.format
                image.verify()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        raise ValidationError(f"the image has too many pixels: {error}") from error
    except Exception as error:  # Pillow raises many kinds for a file that is no image
        raise ValidationError("the file is not an image Pillow can read") from error
    if image_format not in IMAGE_FORMATS:
        raise ValidationError(
            f"the image is {image_format}; use one of {', '.join(sorted(IMAGE_FORMATS))}"
        )
    return IMAGE_FORMATS[image_format]


def image_digest(data):
    """How the importer compares images: ``"sha256:<hex>"`` of the bytes."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def stored_image_digest(name):
    """The digest of an image in the media storage, or ``""`` for no image.

    A stored name whose file is gone gives ``"missing:<name>"``, which differs from
    every fixture value, so the importer treats it as a change to report.
    """
    if not name:
        return ""
    try:
        with default_storage.open(name, "rb") as stored:
            return image_digest(stored.read())
    except OSError:
        return f"missing:{name}"


def store_image(source_name, data):
    """Save image bytes in the media storage under ``papers/<file name>``; return the name.

    When a file of that name with the same bytes is already stored, it is reused, so
    importing the same fixture twice, or after ``flush``, stores nothing new.
    """
    name = f"{IMAGE_DIRECTORY}/{Path(source_name).name}"
    if default_storage.exists(name) and stored_image_digest(name) == image_digest(data):
        return name
    max_length = Paper._meta.get_field("image").max_length
    return default_storage.save(name, ContentFile(data), max_length=max_length)


# ---------------------------------------------------------------------------
# Step 1: reading and checking


@dataclass
class Item:
    """One object of the fixture, with its checked values (JSON values, see below).

    ``values`` holds what the fixture writes, normalised the way export writes it:
    strings, integers, ``"YYYY-MM-DD"`` or ``None`` for dates, a natural key list for
    a reference, a sorted list of natural keys for ``affiliations`` and an image
    digest for an image (its bytes are in ``images``).
    """

    index: int
    model: type
    key: tuple | None
    values: dict
    images: dict = field(default_factory=dict)
    valid: bool = True

    @property
    def label(self):
        return self.model._meta.label_lower


@dataclass
class Fixture:
    """A read fixture: its items, every problem found, and the database keys it names."""

    path: Path
    items: list
    problems: list
    # model -> natural key -> primary key, for objects the file names and the database holds
    database_keys: dict


def parse(path):
    """Load the fixture file at ``path`` into Python lists and dicts.

    ``.yaml`` and ``.yml`` files are read as YAML (PyYAML's safe loader), others as
    JSON. Raises :class:`FixtureInvalid` when the file cannot be read, is not UTF-8,
    or is not valid JSON or YAML.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise FixtureInvalid([Problem(path, f"cannot read the file: {error.strerror}")]) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise FixtureInvalid(
            [Problem(path, f"not UTF-8: byte {error.start} (line {line}) cannot be decoded")]
        ) from None
    if path.suffix.lower() in (".yaml", ".yml"):
        import yaml

        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as error:
            message = getattr(error, "problem", None) or str(error)
            mark = getattr(error, "problem_mark", None)
            if mark is not None:
                message += f" at line {mark.line + 1} column {mark.column + 1}"
            raise FixtureInvalid([Problem(path, f"invalid YAML: {message}")]) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise FixtureInvalid(
            [
                Problem(
                    path, f"invalid JSON: {error.msg} at line {error.lineno} column {error.colno}"
                )
            ]
        ) from None


def _messages(error):
    return "; ".join(error.messages)


def _type_name(value):
    return {
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "true/false",
        list: "a list",
        dict: "an object",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _check_reference(spec, value):
    """A natural key: a list of strings as long as the target's key."""
    length = key_length(spec.target)
    if (
        not isinstance(value, list)
        or len(value) != length
        or not all(isinstance(part, str) and part for part in value)
    ):
        shown = json.dumps(value, ensure_ascii=False, default=str)
        raise ValidationError(
            f"expected the natural key of a {spec.target._meta.label_lower}: a list of "
            f"{length} non-empty string(s), got {shown}"
        )
    return list(value)


def clean_value(spec, value, base_dir):
    """Check one field value; return ``(normalised value, image bytes or None)``.

    Types are strict (a string for text, an integer for numbers, a list for a
    natural key); everything else is ``Field.clean``: lengths, slugs, URLs, choices,
    dates, blank. Raises ``ValidationError`` with a message for the fixture's author.
    """
    model_field = spec.field
    if spec.kind == "text":
        if not isinstance(value, str):
            raise ValidationError(f"expected a string, got {_type_name(value)}")
        return model_field.clean(value, None), None
    if spec.kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValidationError(f"expected a whole number, got {_type_name(value)}")
        return model_field.clean(value, None), None
    if spec.kind == "date":
        if value is None and model_field.null:
            return None, None
        if isinstance(value, datetime.datetime) or not isinstance(value, str | datetime.date):
            raise ValidationError(f"expected a date written YYYY-MM-DD, got {_type_name(value)}")
        return model_field.clean(value, None).isoformat(), None
    if spec.kind == "reference":
        return _check_reference(spec, value), None
    if spec.kind == "references":
        if not isinstance(value, list):
            raise ValidationError(f"expected a list of natural keys, got {_type_name(value)}")
        keys = [_check_reference(spec, part) for part in value]
        if len({tuple(key) for key in keys}) != len(keys):
            raise ValidationError("the same key is listed twice")
        return sorted(keys), None
    # An image: a path relative to the fixture file, or "" for none.
    if not isinstance(value, str):
        raise ValidationError(f"expected a file path, got {_type_name(value)}")
    if not value:
        return "", None
    stored_name = f"{IMAGE_DIRECTORY}/{Path(value).name}"
    if len(stored_name) > model_field.max_length:
        raise ValidationError(
            f"the image file name is too long: {stored_name!r} has {len(stored_name)} "
            f"characters, at most {model_field.max_length} fit"
        )
    image_path = base_dir / value
    if not image_path.is_file():
        raise ValidationError(f"the image file {value!r} does not exist next to the fixture")
    data = image_path.read_bytes()
    check_image(data)
    return image_digest(data), data


def _key_of(model, values):
    """The natural key tuple from an item's values (reference fields flattened)."""
    parts = []
    for name in KEY_FIELDS[model]:
        value = values[name]
        parts.extend(value if isinstance(value, list) else [value])
    return tuple(parts)


def read_fixture(path):
    """Parse and check the fixture at ``path``; return a :class:`Fixture`.

    Never raises for a problem in the content: every problem found is in
    ``Fixture.problems`` (an unreadable or unparsable file raises
    :class:`FixtureInvalid`). Queries the database only to find the objects the
    file refers to but does not contain.
    """
    path = Path(path)
    data = parse(path)
    base_dir = path.parent
    problems = []
    if not isinstance(data, list):
        raise FixtureInvalid(
            [Problem(path, f"expected a list of objects at the top, got {_type_name(data)}")]
        )
    items = []
    with translation.override("en"):  # Django's messages, in the language of this tool
        for index, obj in enumerate(data, start=1):
            item = _read_object(path, base_dir, index, obj, problems)
            if item is not None:
                items.append(item)
    # Duplicate natural keys.
    seen = {}
    for item in items:
        if item.key is None:
            continue
        first = seen.setdefault((item.model, item.key), item)
        if first is not item:
            item.valid = False
            problems.append(
                Problem(
                    path,
                    f"duplicate natural key: object {first.index} has the same key",
                    index=item.index,
                    label=item.label,
                    key=item.key,
                )
            )
    database_keys = _check_references(path, items, seen, problems)
    return Fixture(path, items, problems, database_keys)


def _read_object(path, base_dir, index, obj, problems):
    """Check one fixture object; return its Item, or None when it is unusable."""

    def problem(message, **where):
        problems.append(Problem(path, message, index=index, **where))

    if not isinstance(obj, dict):
        problem(f"expected an object with 'model' and 'fields', got {_type_name(obj)}")
        return None
    label = obj.get("model")
    model = model_labels().get(label.lower()) if isinstance(label, str) else None
    if model is None:
        known = ", ".join(sorted(model_labels()))
        problem(f"unknown model {label!r}; a fixture may contain {known}")
        return None
    label = model._meta.label_lower
    for extra in sorted(set(obj) - {"model", "fields"}):
        if extra == "pk":
            problem("primary keys are not used: objects are named by natural keys", label=label)
        else:
            problem(
                f"unknown entry {extra!r}: an object has only 'model' and 'fields'", label=label
            )
    fields = obj.get("fields")
    if not isinstance(fields, dict):
        problem(f"'fields' must be an object, got {_type_name(fields)}", label=label)
        return None
    specs = field_specs(model)
    values, images, valid, where = {}, {}, True, {"label": label}
    # The key first, so every later message can name the object by it.
    for name in KEY_FIELDS[model]:
        if name in fields:
            try:
                values[name], _ = clean_value(specs[name], fields[name], base_dir)
            except ValidationError:
                pass  # reported with the other fields below
    key = _key_of(model, values) if all(name in values for name in KEY_FIELDS[model]) else None
    if key is not None:
        where["key"] = key
    for name, value in fields.items():
        spec = specs.get(name)
        if spec is None:
            valid = False
            problem(_unknown_field_message(model, name), field=name, **where)
            continue
        try:
            values[name], image = clean_value(spec, value, base_dir)
        except ValidationError as error:
            valid = False
            problem(_messages(error), field=name, **where)
            continue
        if image is not None:
            images[name] = (value, image)
    for name, spec in specs.items():
        if spec.required and name not in fields:
            valid = False
            problem("required field missing", field=name, **where)
    return Item(index, model, key, values, images, valid and key is not None)


def _unknown_field_message(model, name):
    translated = translated_fields(model)
    suffixes = " or ".join(f"{name.split('_')[0]}_{suffix}" for suffix in LANGUAGE_SUFFIXES)
    if name in translated:
        return f"{name!r} is translated: write {name}_en and {name}_zh_hans"
    for base in translated:
        if name.startswith(base + "_"):
            suffixes = " or ".join(f"{base}_{suffix}" for suffix in LANGUAGE_SUFFIXES)
            return (
                f"unknown language suffix {name[len(base) + 1 :]!r}: "
                f"the languages are written {suffixes}"
            )
    known = ", ".join(field_specs(model))
    return f"unknown field for {model._meta.label_lower}; its fields are {known}"


def _check_references(path, items, in_file, problems):
    """Report references found neither in the file nor in the database.

    Returns model -> natural key -> primary key for the referenced objects that the
    database holds (whether or not the file contains them too).
    """
    wanted = defaultdict(set)
    for item in items:
        for name, value in item.values.items():
            spec = field_specs(item.model)[name]
            if spec.kind == "reference":
                wanted[spec.target].add(tuple(value))
            elif spec.kind == "references":
                wanted[spec.target].update(tuple(key) for key in value)
    database_keys = {model: existing_keys(model, keys) for model, keys in wanted.items()}
    for item in items:
        for name, value in item.values.items():
            spec = field_specs(item.model)[name]
            if spec.kind not in ("reference", "references"):
                continue
            for key in [value] if spec.kind == "reference" else value:
                key = tuple(key)
                if (spec.target, key) not in in_file and key not in database_keys[spec.target]:
                    item.valid = False
                    problems.append(
                        Problem(
                            path,
                            f"refers to {spec.target._meta.label_lower} {format_key(key)}, "
                            "which is neither in this file nor in the database",
                            index=item.index,
                            label=item.label,
                            key=item.key,
                            field=name,
                        )
                    )
    return database_keys


def _chunks(values, size=BATCH_SIZE):
    values = list(values)
    for start in range(0, len(values), size):
        yield values[start : start + size]


def existing_keys(model, keys):
    """Which of ``keys`` (natural key tuples) exist in the database: key -> primary key."""
    found = {}
    if model is Award:
        for chunk in _chunks({key[0] for key in keys}):
            for pk, conference, slug in Award.objects.filter(
                conference__slug__in=chunk
            ).values_list("pk", "conference__slug", "slug"):
                found[(conference, slug)] = pk
        return {key: pk for key, pk in found.items() if key in keys}
    if KEY_FIELDS[model] != ("slug",):
        raise ValueError(f"no natural key lookup for {model._meta.label_lower}")
    for chunk in _chunks(key[0] for key in keys):
        for pk, slug in model.objects.filter(slug__in=chunk).values_list("pk", "slug"):
            found[(slug,)] = pk
    return found


# ---------------------------------------------------------------------------
# Step 2: comparing with the database


@dataclass
class Change:
    """What the import does to one object: ``action`` is create, update or unchanged."""

    item: Item
    action: str
    # field -> (database value, new value), for the fields that change
    changes: dict = field(default_factory=dict)
    # field -> (database value kept, fixture value), for editors' changes kept
    conflicts: dict = field(default_factory=dict)
    final: dict = field(default_factory=dict)
    instance: models.Model | None = None
    record: ImportRecord | None = None
    record_values: dict = field(default_factory=dict)

    @property
    def record_changed(self):
        return self.record is None or self.record.values != self.record_values


@dataclass
class Plan:
    """Everything an import would do, object by object, in fixture order."""

    fixture: Fixture
    changes: list
    problems: list
    overwrite: bool = False

    def count(self, action):
        return sum(change.action == action for change in self.changes)

    @property
    def conflicts(self):
        return [change for change in self.changes if change.conflicts]

    @property
    def writes_anything(self):
        return any(change.action != "unchanged" or change.record_changed for change in self.changes)


def database_value(spec, instance):
    """A field's current database value, normalised like :attr:`Item.values`."""
    if spec.kind == "reference":
        return list(getattr(instance, spec.name).natural_key())
    if spec.kind == "references":
        loaded = getattr(instance, "_imported_" + spec.name, None)  # see load_existing()
        if loaded is not None:
            return sorted(loaded)
        return sorted(list(related.natural_key()) for related in getattr(instance, spec.name).all())
    value = getattr(instance, spec.attname)
    if spec.kind == "image":
        return stored_image_digest(value.name if value else "")
    if spec.kind == "date":
        return value.isoformat() if value else None
    if value is None and spec.kind == "text":
        return ""  # an empty translation column may hold NULL
    return value


def default_value(spec):
    """What a new object gets for a field the fixture leaves out."""
    if spec.kind == "references":
        return []
    if spec.field.has_default():
        return spec.field.get_default()
    if spec.kind == "date":
        return None
    return "" if spec.kind in ("text", "image") else None


def load_existing(model, items):
    """The database objects with the items' natural keys (key -> instance).

    Loaded in bulk with what their natural keys and references need. For
    authorships, every authorship of the items' papers is returned, including the
    ones the file leaves out (the author order is checked on all of them).
    """
    select = [spec.name for spec in field_specs(model).values() if spec.kind == "reference"]
    if model is AwardEntry:
        select.append("award__conference")
    queryset = model.objects.select_related(*select)
    found = {}
    if KEY_FIELDS[model] == ("slug",):
        lookup, parts = "slug__in", {item.key[0] for item in items}
    elif model is AwardEntry:
        lookup, parts = "award__conference__slug__in", {item.key[0] for item in items}
    else:  # Authorship, PaperLink (by paper), Award (by conference)
        lookup, parts = f"{KEY_FIELDS[model][0]}__slug__in", {item.key[0] for item in items}
    for chunk in _chunks(parts):
        for instance in queryset.filter(**{lookup: chunk}):
            found[tuple(instance.natural_key())] = instance
    if model is Authorship:
        # The affiliations' keys in one query per batch, without building Institutions.
        by_pk = {instance.pk: instance for instance in found.values()}
        for instance in by_pk.values():
            instance._imported_affiliations = []
        through = Authorship.affiliations.through.objects
        for chunk in _chunks(by_pk):
            for pk, slug in through.filter(authorship__in=chunk).values_list(
                "authorship_id", "institution__slug"
            ):
                by_pk[pk]._imported_affiliations.append([slug])
    return found


def plan_import(fixture, *, overwrite=False):
    """Compare ``fixture`` with the database; return the :class:`Plan`. Writes nothing.

    For each field the fixture names, with *database* the current value, *record*
    what the last import set and *file* the fixture's value:

    - file equals database: unchanged;
    - the database still holds what the last import set (or, for an object never
      imported, the field is empty): the file's value is taken;
    - otherwise an editor changed it: the database value is kept and the field is
      listed as a conflict, unless ``overwrite`` is true.

    Fields the fixture leaves out keep their database value (a new object gets the
    field's default). Problems found here (constraints on the resulting values,
    author order) go into ``Plan.problems`` together with the fixture's.
    """
    problems = list(fixture.problems)
    changes = []
    by_model = defaultdict(list)
    for item in fixture.items:
        if item.valid:
            by_model[item.model].append(item)
    existing_authorships = {}
    for model in FIXTURE_MODELS:
        items = by_model.get(model, [])
        if not items:
            continue
        existing = load_existing(model, items)
        if model is Authorship:
            existing_authorships = existing
        records = _load_records(model, items)
        specs = field_specs(model)
        for item in items:
            instance = existing.get(item.key)
            record = records.get(item.key)
            change = Change(item, "create", instance=instance, record=record)
            change.record_values = {**(record.values if record else {}), **item.values}
            if instance is None:
                change.final = {
                    name: item.values[name] if name in item.values else default_value(spec)
                    for name, spec in specs.items()
                }
            else:
                current = {name: database_value(spec, instance) for name, spec in specs.items()}
                change.final = dict(current)
                for name, value in item.values.items():
                    if value == current[name]:
                        continue
                    if record is not None and name in record.values:
                        edited = record.values[name] != current[name]
                    else:
                        edited = current[name] not in ("", None, [])
                    if edited and not overwrite:
                        change.conflicts[name] = (current[name], value)
                    else:
                        change.changes[name] = (current[name], value)
                        change.final[name] = value
                change.action = "update" if change.changes else "unchanged"
            changes.append(change)
    problems.extend(_check_final_values(fixture, changes, existing_authorships))
    return Plan(fixture, changes, problems, overwrite)


def _load_records(model, items):
    label = model._meta.label_lower
    keys = {format_key(item.key): item.key for item in items}
    records = {}
    for chunk in _chunks(keys):
        for record in ImportRecord.objects.filter(model=label, key__in=chunk):
            records[keys[record.key]] = record
    return records


def _check_final_values(fixture, changes, existing_authorships):
    """Constraints the resulting objects must meet: dates, author order, unique pairs."""
    problems = []
    path = fixture.path

    def problem(change, name, message):
        item = change.item
        problems.append(
            Problem(path, message, index=item.index, label=item.label, key=item.key, field=name)
        )

    # Conference: its model's CheckConstraints (end date not before start) and one
    # edition per venue and year.
    years = {}
    for change in changes:
        if change.item.model is not Conference:
            continue
        final = change.final
        start, end = final["start_date"], final["end_date"]
        for constraint in Conference._meta.constraints:
            if isinstance(constraint, models.CheckConstraint):
                probe = Conference(
                    start_date=start and datetime.date.fromisoformat(start),
                    end_date=end and datetime.date.fromisoformat(end),
                )
                try:
                    constraint.validate(Conference, probe, exclude={"venue", "status"})
                except ValidationError:
                    problem(
                        change, "end_date", f"the end date {end} is before the start date {start}"
                    )
        venue_year = (tuple(final["venue"]), final["year"])
        other = years.setdefault(venue_year, change)
        clash = (
            other is not change
            or Conference.objects.filter(venue__slug=venue_year[0][0], year=venue_year[1])
            .exclude(slug=change.item.key[0])
            .exists()
        )
        if clash:
            problem(
                change,
                "year",
                f"the venue {venue_year[0][0]} already has a conference in {venue_year[1]}",
            )
    # Authorship: per paper, positions 1..n once each, counting the authorships
    # the file leaves out.
    positions = defaultdict(dict)  # paper key -> authorship key -> (position, change or None)
    for key, instance in existing_authorships.items():
        positions[key[:1]][key] = (instance.position, None)
    for change in changes:
        if change.item.model is Authorship:
            positions[change.item.key[:1]][change.item.key] = (change.final["position"], change)
    for paper, authors in positions.items():
        in_file = [change for _, change in authors.values() if change is not None]
        if not in_file:
            continue
        holders = defaultdict(list)
        for key, (position, _) in authors.items():
            holders[position].append(key[1])
        duplicates = {position for position, slugs in holders.items() if len(slugs) > 1}
        for change in in_file:
            position = change.final["position"]
            if position in duplicates:
                others = ", ".join(s for s in sorted(holders[position]) if s != change.item.key[1])
                problem(
                    change,
                    "position",
                    f"duplicate author position {position} on paper {paper[0]}: "
                    f"{others} has it too",
                )
        missing = sorted(set(range(1, len(authors) + 1)) - set(holders))
        if missing and not duplicates:
            last = max(in_file, key=lambda change: change.final["position"])
            listed = ", ".join(str(position) for position in sorted(holders))
            problem(
                last,
                "position",
                f"author positions on paper {paper[0]} are {listed}: "
                f"{', '.join(map(str, missing))} missing (they run 1, 2, 3, ... without gaps)",
            )
    return problems


# ---------------------------------------------------------------------------
# Step 3: writing


def apply_plan(plan, *, source=""):
    """Write ``plan`` to the database in one transaction; return the plan.

    Creates and updates objects with bulk queries in dependency order, stores new
    images in the media storage, sets affiliations, and records what was imported
    (:class:`~papers.models.ImportRecord`). Raises :class:`FixtureInvalid` if the
    plan has problems; nothing is written then.
    """
    if plan.problems:
        raise FixtureInvalid(plan.problems)
    by_model = defaultdict(list)
    for change in plan.changes:
        by_model[change.item.model].append(change)
    primary_keys = defaultdict(dict)
    for model, keys in plan.fixture.database_keys.items():
        primary_keys[model].update(keys)
    with transaction.atomic(), translation.override("en"):
        for model in FIXTURE_MODELS:
            _apply_model(model, by_model.get(model, []), primary_keys)
        _write_records(plan.changes, source)
    return plan


def _python_value(spec, value, primary_keys, change):
    if spec.kind == "reference":
        return primary_keys[spec.target][tuple(value)]
    if spec.kind == "date":
        return value and datetime.date.fromisoformat(value)
    if spec.kind == "image":
        if not value:
            return ""
        source_name, data = change.item.images[spec.name]
        return store_image(source_name, data)
    return value


def _apply_model(model, changes, primary_keys):
    specs = field_specs(model)
    plain = [spec for spec in specs.values() if spec.kind != "references"]
    for change in changes:
        if change.instance is not None:
            primary_keys[model][change.item.key] = change.instance.pk
    # Authors that change places first step aside (positions above any real one),
    # so that no intermediate state breaks the one-author-per-position constraint.
    moving = [
        change for change in changes if change.action == "update" and "position" in change.changes
    ]
    if model is Authorship and moving:
        for offset, change in enumerate(moving):
            change.instance.position = 16000 + offset
        Authorship.objects.bulk_update(
            [change.instance for change in moving], ["position"], batch_size=BATCH_SIZE
        )
    created = [change for change in changes if change.action == "create"]
    new_instances = []
    for change in created:
        kwargs = {
            spec.attname: _python_value(spec, change.final[spec.name], primary_keys, change)
            for spec in plain
        }
        new_instances.append(model(**kwargs))
    model.objects.bulk_create(new_instances, batch_size=BATCH_SIZE)
    for change, instance in zip(created, new_instances, strict=True):
        change.instance = instance
    if any(instance.pk is None for instance in new_instances):  # no RETURNING support
        primary_keys[model].update(existing_keys(model, [c.item.key for c in created]))
    else:
        for change in created:
            primary_keys[model][change.item.key] = change.instance.pk
    # Updates, grouped by the set of fields they change.
    groups = defaultdict(list)
    for change in changes:
        if change.action != "update":
            continue
        names = set()
        for name in change.changes:
            spec = specs[name]
            if spec.kind == "references":
                continue
            setattr(
                change.instance,
                spec.attname,
                _python_value(spec, change.final[name], primary_keys, change),
            )
            names.add(spec.attname)
            if spec.translated:  # keep modeltranslation's original column in step
                names.add(spec.field.translated_field.attname)
        if names:
            groups[frozenset(names)].append(change.instance)
    for names, instances in groups.items():
        model.objects.bulk_update(instances, sorted(names), batch_size=BATCH_SIZE)
    for spec in specs.values():
        if spec.kind == "references":
            _apply_many_to_many(model, spec, changes, primary_keys)


def _apply_many_to_many(model, spec, changes, primary_keys):
    through = getattr(model, spec.name).through
    source = f"{model._meta.model_name}_id"
    target = f"{spec.target._meta.model_name}_id"
    touched = [
        change
        for change in changes
        if (change.action == "create" and change.final[spec.name]) or spec.name in change.changes
    ]
    if not touched:
        return
    for chunk in _chunks([change.instance.pk for change in touched if change.action == "update"]):
        through.objects.filter(**{f"{source}__in": chunk}).delete()
    rows = [
        through(**{source: change.instance.pk, target: primary_keys[spec.target][tuple(key)]})
        for change in touched
        for key in change.final[spec.name]
    ]
    through.objects.bulk_create(rows, batch_size=BATCH_SIZE)


def _write_records(changes, source):
    new, changed = [], []
    for change in changes:
        if not change.record_changed:
            continue
        if change.record is None:
            new.append(
                ImportRecord(
                    model=change.item.label,
                    key=format_key(change.item.key),
                    values=change.record_values,
                    source=source,
                )
            )
        else:
            change.record.values = change.record_values
            change.record.source = source
            changed.append(change.record)
    ImportRecord.objects.bulk_create(new, batch_size=BATCH_SIZE)
    ImportRecord.objects.bulk_update(
        changed, ["values", "source", "imported_at"], batch_size=BATCH_SIZE
    )


def import_fixture(path, *, overwrite=False, dry_run=False):
    """Read, check, compare and (unless ``dry_run``) apply the fixture at ``path``.

    Returns the :class:`Plan`. Raises :class:`FixtureInvalid` listing every problem
    found, having written nothing.
    """
    fixture = read_fixture(path)
    # Compare and write in one transaction, so that an editor's save in between
    # cannot be overwritten unseen.
    with transaction.atomic():
        plan = plan_import(fixture, overwrite=overwrite)
        if plan.problems:
            raise FixtureInvalid(plan.problems)
        if not dry_run and plan.writes_anything:
            apply_plan(plan, source=str(path))
    return plan
