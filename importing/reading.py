"""Step 1: parse a fixture file and check every object, collecting every problem."""

import datetime
import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import ProhibitNullCharactersValidator
from django.template.defaultfilters import filesizeformat
from django.utils import translation

from catalogue import languages
from catalogue.models import natural_key_lookups
from importing.compact.reader import CompactDocument, objects_from
from importing.fields import (
    EXPECTED,
    FIXTURE_MODELS,
    LANGUAGE_SUFFIXES,
    MODEL_LABELS,
    FixtureInvalid,
    Problem,
    existing_keys,
    field_specs,
    format_key,
    key_length,
    translated_fields,
    type_name,
)
from importing.files import MAX_FILE_SIZE, InputRefused, InputTooLarge, read_input
from importing.images import image_digest, prepare_image
from importing.parsing import StreamedObjects, parse

# Django's own check (forms use it): PostgreSQL cannot store NUL in text columns.
_no_null_characters = ProhibitNullCharactersValidator()


@dataclass(frozen=True)
class PreparedImage:
    """An image file named by a fixture, checked and ready to store."""

    name: str  # the file name to store it under, in papers/
    data: bytes  # the normalised bytes to store
    source_digest: str  # image_digest() of the file as the fixture gives it


@dataclass(slots=True)  # slots: 450,000 of them at 50,000 papers
class Item:
    """One object of the fixture: ``values`` normalised as export writes them (dates
    ``"YYYY-MM-DD"``, references natural key lists, an image its stored bytes' digest);
    ``key`` its natural key (an invalid object's as written, or None)."""

    index: int
    model: type
    key: tuple | None
    values: dict
    images: dict = field(default_factory=dict)
    valid: bool = True

    @property
    def label(self):
        return self.model._meta.label_lower

    def problem(self, path, message, field=None):
        """A :class:`Problem` naming this object (and its ``field``) in the file ``path``."""
        return Problem(path, message, index=self.index, label=self.label, key=self.key, field=field)


@dataclass
class Fixture:
    """A read fixture: its items, every problem found, the database keys it names (model
    -> natural key -> primary key) and the compact document it came from, if any."""

    path: Path
    items: list
    problems: list
    database_keys: dict
    document: CompactDocument | None = None


def _check_reference(spec, value):
    """A natural key: a list of non-empty strings as long as the target's key."""
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
    for part in value:
        _no_null_characters(part)
    # One string per slug however often the file names it (sys.intern): an author's or an
    # institution's slug is written again in each authorship. At 50,000 papers: 40 MB.
    return [sys.intern(part) for part in value]


def clean_value(spec, value, base_dir):
    """``(normalised value, PreparedImage or None)`` of one field's value. Types are
    strict (``EXPECTED``: no ``"5"`` for 5), no NUL, images inside ``base_dir``, then
    ``Field.clean``. Raises ``ValidationError`` for the fixture's author."""
    if isinstance(value, str):
        _no_null_characters(value)
    model_field = spec.field
    if spec.kind in ("date", "reference") and value is None and model_field.null:
        return None, None  # an optional date, or an optional reference (an award's kind)
    if spec.kind in EXPECTED:
        types, expected = EXPECTED[spec.kind]
        if not isinstance(value, types) or isinstance(value, bool | datetime.datetime):
            raise ValidationError(f"expected {expected}, got {type_name(value)}")
    if spec.kind == "text":
        allowed = [str(choice) for choice, _label in model_field.flatchoices]
        if allowed and value not in allowed:
            shown = json.dumps(value, ensure_ascii=False)
            raise ValidationError(f"{shown} is not allowed; the values are {', '.join(allowed)}")
    if spec.kind in ("text", "integer"):
        return model_field.clean(value, None), None
    if spec.kind == "date":
        return model_field.clean(value, None).isoformat(), None
    if spec.kind == "reference":
        return _check_reference(spec, value), None
    if spec.kind == "references":
        keys = [_check_reference(spec, part) for part in value]
        if len({tuple(key) for key in keys}) != len(keys):
            raise ValidationError("the same key is listed twice")
        return keys, None  # in order: the first listed first
    if not value:  # an image: a path relative to the fixture file, or "" for none
        return "", None
    image_path = _image_path(base_dir, value)
    if not image_path.exists():
        raise ValidationError(f"the image file {value!r} does not exist next to the fixture")
    data = _read_image(image_path, value)
    name, stored = prepare_image(data, value)
    return image_digest(stored), PreparedImage(name, stored, image_digest(data))


def _read_image(path, value):
    """The bytes of the image file at ``path`` (``value`` in the fixture), read only if
    regular and no larger than the admin's limit (``PAPER_IMAGE_MAX_BYTES``), in its words."""
    limit = settings.PAPER_IMAGE_MAX_BYTES
    try:
        return read_input(path, limit)
    except InputTooLarge as error:
        raise ValidationError(
            f"The image is {filesizeformat(error.size)}; the limit is {filesizeformat(limit)}."
        ) from None
    except InputRefused as error:
        raise ValidationError(f"the image file {value!r}: {error}") from None


def _image_path(base_dir, value):
    """The file an image path names, resolved in ``base_dir``. Raises ``ValidationError``
    for an absolute path or one leading outside ``base_dir`` (``..``, links)."""
    if PurePosixPath(value).is_absolute():
        raise ValidationError(
            f"the image path {value!r} is absolute: write it relative to the fixture's folder"
        )
    folder = base_dir.resolve()
    resolved = (folder / value).resolve()
    if not resolved.is_relative_to(folder):
        raise ValidationError(
            f"the image path {value!r} leads outside the fixture's folder: the image must "
            "be in that folder or below it"
        )
    return resolved


def read_fixture(path, max_bytes=MAX_FILE_SIZE, accept_new=False):
    """The checked :class:`Fixture` at ``path``. Raises :class:`FixtureInvalid` if unparsable,
    or if it or the .bib file it names is no regular file or has more than ``max_bytes``.
    ``accept_new``: see :func:`~importing.compact.reader.objects_from`."""
    path = Path(path)
    data, document = objects_from(parse(path, max_bytes), path, max_bytes, accept_new)
    return read_objects(data, source=path, document=document)


def read_objects(data, *, source, document=None):
    """The :class:`Fixture` of ``data``, a parsed list of objects, checked. ``source``
    (a path) names the file in problems, its folder holds the images; ``document``: the
    compact document, if any. Raises :class:`FixtureInvalid` when ``data`` is no list.
    ``data`` may be :class:`~importing.parsing.StreamedObjects`: each object is checked as
    it is decoded, and only its :class:`Item` is kept."""
    path = Path(source)
    if not isinstance(data, list | StreamedObjects):
        raise FixtureInvalid(
            [Problem(path, f"expected a list of objects at the top, got {type_name(data)}")]
        )
    problems, items, seen = [], [], {}  # seen: (model, natural key) -> its first item
    with translation.override("en"):  # Django's messages, in the language of this tool
        for index, obj in enumerate(data, start=1):
            item = _read_object(path, path.parent, index, obj, problems)
            if item is not None:
                items.append(item)
            if item is None or item.key is None:
                continue
            first = seen.setdefault((item.model, item.key), item)
            if first is not item:
                item.valid = False
                message = f"duplicate natural key: {_name(document, first.index)} has the same key"
                problems.append(item.problem(path, message))
        database_keys = _check_references(path, items, seen, problems, document)
    problems.sort(key=file_order)
    return Fixture(path, items, problems, database_keys, document)


def file_order(problem):
    """Sort key: problems in the order of the file's objects, the whole file's first."""
    return problem.index or 0


def _read_object(path, base_dir, index, obj, problems):
    """Check one fixture object; return its Item, or None when it is unusable."""

    def problem(message, **where):
        problems.append(Problem(path, message, index=index, **where))

    if not isinstance(obj, dict):
        problem(f"expected an object with 'model' and 'fields', got {type_name(obj)}")
        return None
    label = obj.get("model")
    model = MODEL_LABELS.get(label.lower()) if isinstance(label, str) else None
    if model is None:
        known = ", ".join(sorted(MODEL_LABELS))
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
        problem(f"'fields' must be an object, got {type_name(fields)}", label=label)
        return None
    specs = field_specs(model)
    values, images = {}, {}
    failed = [
        (name, "written more than once in this object")
        for name in getattr(fields, "duplicates", ())  # see parsing._JSONObject
    ]
    for name, value in fields.items():
        spec = specs.get(name)
        if spec is None:
            failed.append((name, _unknown_field_message(model, name)))
            continue
        try:
            values[name], image = clean_value(spec, value, base_dir)
        except ValidationError as error:
            failed.append((name, "; ".join(error.messages)))
            continue
        if values[name] == "" and name in model.natural_key_fields:
            failed.append((name, "part of the natural key: it cannot be empty"))
        elif name in model.natural_key_fields and type(values[name]) is str:
            values[name] = sys.intern(values[name])  # the string references name too
        elif image is not None:
            images[name] = image
    failed += [
        (name, "required field missing")
        for name, spec in specs.items()
        if spec.required and name not in fields
    ]
    named = all(values.get(name) not in (None, "") for name in model.natural_key_fields)
    key = _written_key(model, values) if named else None
    # Every message names the object by its key; an invalid key, as the file wrote it.
    written = key if key is not None else _written_key(model, fields)
    for name, message in failed:
        problem(message, field=name, label=label, key=written)
    valid = not failed and key is not None
    if key is None:
        key = written
        try:
            hash(key)
        except TypeError:  # a list or mapping where a string belongs
            key = None
    return Item(index, model, key, values, images, valid)


def _written_key(model, fields):
    """The natural key tuple in ``fields`` (references flattened), or None if none is written."""
    parts = []
    for name in model.natural_key_fields:
        value = fields.get(name)
        parts.extend(value if isinstance(value, list) else [value])
    return tuple(parts) if any(part is not None for part in parts) else None


def _unknown_field_message(model, name):
    translated = translated_fields(model)
    if name in translated:
        return f"{name!r} is translated: write {' and '.join(languages.columns(name))}"
    for base in sorted(translated, key=len, reverse=True):  # image_alt before image
        if name.startswith(base + "_"):
            suffixes = " or ".join(f"{base}_{suffix}" for suffix in LANGUAGE_SUFFIXES)
            return (
                f"unknown language suffix {name[len(base) + 1 :]!r}: "
                f"the languages are written {suffixes}"
            )
    known = ", ".join(field_specs(model))
    return f"unknown field for {model._meta.label_lower}; its fields are {known}"


def _name(document, index):
    """Object ``index`` of a fixture as messages name it: "object 5", or in a compact file
    its place there ("papers[2]")."""
    return f"object {index}" if document is None else document.places[index - 1][""]


def _check_references(path, items, in_file, problems, document=None):
    """Report each reference in neither the file nor the database once, at its first
    referrer (not those to failed objects, nor a level of a missing award), naming the other
    referrers as :func:`_name` does; return model -> natural key -> primary key of the
    referenced objects in the database."""
    wanted = defaultdict(set)
    for item in items:
        for spec, key in _references(item):
            wanted[spec.target].add(key)
            parent = _parent(spec.target)
            if parent is not None:
                wanted[parent].add(key[: key_length(parent)])
    database_keys = {model: existing_keys(model, keys) for model, keys in wanted.items()}

    def state(model, key):
        """A reference's state: "found", "failed" (in the file, with problems), or the
        (model, key) missing (an award level's award when the award is missing too)."""
        item = in_file.get((model, key))
        if item is not None:
            return "found" if item.valid else "failed"
        if key in database_keys.get(model, {}):
            return "found"
        parent = _parent(model)
        if parent is not None:
            found = state(parent, key[: key_length(parent)])
            if found != "found":
                return found
        return (model, key)

    missing = defaultdict(list)  # (model, key) -> [(item, field name)]
    # Referred-to models first, so an object left out is known before its referrers.
    for item in sorted(items, key=lambda item: FIXTURE_MODELS.index(item.model)):
        for spec, key in _references(item):
            found = state(spec.target, key)
            if found != "found":
                item.valid = False
            if found not in ("found", "failed"):
                missing[found].append((item, spec.name))
    for (model, key), referrers in missing.items():
        item, name = min(referrers, key=lambda referrer: referrer[0].index)
        known, parent = "", _parent(model)
        if parent is not None:  # name what there is: an award's levels, a conference's awards
            above = key[: key_length(parent)]
            label = model._meta.label_lower
            listed = ", ".join(_siblings(model, above, in_file))
            known = (
                f"; the {model._meta.verbose_name_plural} of {parent._meta.label_lower} "
                f"{format_key(above)} are {listed or f'none yet (add {label} objects)'}"
            )
        others = sorted({other.index for other, _ in referrers} - {item.index})
        if len(others) == 1:
            known += f" ({_name(document, others[0])} refers to it too)"
        elif others and document is None:
            known += f" (objects {', '.join(map(str, others))} refer to it too)"
        elif others:
            known += f" ({', '.join(_name(document, index) for index in others)} refer to it too)"
        message = (
            f"refers to {model._meta.label_lower} {format_key(key)}, "
            "which is neither in this file nor in the database" + known
        )
        problems.append(item.problem(path, message, name))
    return database_keys


def _references(item):
    """(spec, natural key tuple) for every reference the item's checked values hold."""
    for name, value in item.values.items():
        spec = field_specs(item.model)[name]
        if spec.kind == "reference" and value is not None:
            yield spec, tuple(value)
        elif spec.kind == "references":
            for key in value:
                yield spec, tuple(key)


def _parent(model):
    """The model whose key begins the model's key (an award level's award), or None."""
    spec = field_specs(model)[model.natural_key_fields[0]]
    return spec.target if spec.kind == "reference" else None


def _siblings(model, above, in_file):
    """The last key parts of ``model``'s objects whose key begins with ``above`` (the
    slugs of an award's levels), in the file or the database, in the model's order."""
    order = [name for name in model._meta.ordering if name != model.natural_key_fields[0]]
    defaults = {name: model._meta.get_field(name).get_default() for name in order}
    found = {
        key[-1]: tuple(item.values.get(name, defaults[name]) for name in order)
        for (other, key), item in in_file.items()
        if other is model and key[: len(above)] == above
    }
    lookups = natural_key_lookups(model)
    within = dict(zip(lookups, above, strict=False))
    rows = model.objects.filter(**within).values_list(lookups[-1], *order)
    for last, *rank in rows:
        found.setdefault(last, tuple(rank))
    return sorted(found, key=lambda part: (found[part], part))
