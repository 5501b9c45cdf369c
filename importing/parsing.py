"""Step 1, first half: a fixture file's text as Python lists and dicts (:func:`parse`).

JSON or YAML (PyYAML's safe loader), refusing what would make the checks that follow
(importing/reading.py) wrong or unbounded: names written twice in one object, text that
is not UTF-8 or holds lone surrogates, nesting deeper than ``MAX_DEPTH``, a bare BibTeX
file (which needs a compact file to name it).
"""

import json
from collections.abc import Hashable
from pathlib import Path

import yaml

from importing import compact
from importing.fields import FixtureInvalid, Problem

# How deeply lists and objects may nest. A fixture needs 5 levels (the list of objects,
# an object, its fields, a list of natural keys, a key); 20 leaves room and stays far
# below Python's recursion limit (1,000 frames), which deeper input would exhaust.
MAX_DEPTH = 20


class _JSONObject(dict):
    """A JSON object that remembers the names written more than once in it."""

    duplicates = ()

    @classmethod
    def from_pairs(cls, pairs):
        obj = cls(pairs)
        if len(obj) != len(pairs):
            names = [name for name, _ in pairs]
            obj.duplicates = sorted({name for name in names if names.count(name) > 1})
        return obj


class _Loader(yaml.SafeLoader):
    """PyYAML's SafeLoader building mappings as :class:`_JSONObject`, so that a name
    written twice in one mapping is reported as in JSON (PyYAML keeps the last one)."""

    def construct_json_object(self, node):
        self.flatten_mapping(node)
        pairs = []
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, Hashable):  # as SafeLoader's own mappings refuse it
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    "found unhashable key",
                    key_node.start_mark,
                )
            pairs.append((key, self.construct_object(value_node, deep=True)))
        return _JSONObject.from_pairs(pairs)


_Loader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _Loader.construct_json_object
)


def parse(path):
    """Load the fixture file at ``path`` into Python lists and dicts.

    YAML for ``.yaml`` and ``.yml``, and for other files but ``.json`` whose text does not
    start with ``[`` or ``{``; JSON otherwise. Raises :class:`FixtureInvalid` for each
    refusal of the module docstring.
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
    if compact.looks_like_bibtex(text):
        raise FixtureInvalid([Problem(path, compact.bibtex_alone_message(path))])
    suffix = path.suffix.lower()
    as_yaml = suffix in (".yaml", ".yml") or (
        suffix != ".json" and not text.lstrip().startswith(("[", "{"))
    )
    too_deep = f"nested too deeply (more than {MAX_DEPTH} levels of lists and objects)"
    try:
        if as_yaml:
            data = yaml.load(text, Loader=_Loader)  # nosec B506  # a SafeLoader
        else:
            data = json.loads(text, object_pairs_hook=_JSONObject.from_pairs)
    except yaml.YAMLError as error:
        message = getattr(error, "problem", None) or str(error)
        mark = getattr(error, "problem_mark", None)
        if mark is not None:
            message += f" at line {mark.line + 1} column {mark.column + 1}"
    except json.JSONDecodeError as error:
        message = f"{error.msg} at line {error.lineno} column {error.colno}"
    except RecursionError:  # both parsers recurse per level of nesting
        message = too_deep
    else:  # also a YAML mapping that contains itself (&a [*a])
        message = too_deep if _too_deep(data) else None
    if message is not None:
        kind = "YAML" if as_yaml else "JSON"
        raise FixtureInvalid([Problem(path, f"invalid {kind}: {message}")])
    _refuse_surrogates(path, data)
    return data


def _has_surrogate(text):
    return any("\ud800" <= character <= "\udfff" for character in text)


def _refuse_surrogates(path, data):
    """Raise FixtureInvalid naming every object and field whose text holds a lone
    surrogate (``"\\ud800"`` in JSON or YAML): half of a UTF-16 pair, not a character,
    which UTF-8 (the database, the terminal) cannot encode. Nothing is checked or
    written past this point. ``data`` is already known to nest at most MAX_DEPTH deep.
    """
    problems = []
    objects = data if isinstance(data, list) else [data]
    for index, obj in enumerate(objects, start=1):
        label = obj.get("model") if isinstance(obj, dict) else None
        if not isinstance(label, str) or _has_surrogate(label):
            label = None
        problems += [(index, label, where, what) for where, what in _surrogates(obj)]
    if problems:
        raise FixtureInvalid(
            [
                Problem(
                    path,
                    f"{what} holds a lone surrogate (an escape such as \\ud800 that is half "
                    "of a UTF-16 pair, not a character); write the character itself or its "
                    "full pair",
                    index=index if isinstance(data, list) else None,
                    label=label,
                    field=_field_name(where),
                )
                for index, label, where, what in sorted(problems, key=lambda p: (p[0], str(p[2])))
            ]
        )


def _surrogates(value, where=()):
    """(location, what) for each name or text in ``value`` holding a lone surrogate.
    Recursive: ``value`` nests at most MAX_DEPTH deep (:func:`_too_deep`)."""
    if isinstance(value, dict):
        for name, child in value.items():
            if isinstance(name, str) and _has_surrogate(name):
                yield (*where, name), f"the name {name!r}"
            yield from _surrogates(child, (*where, name))
    elif isinstance(value, list):
        for position, child in enumerate(value):
            yield from _surrogates(child, (*where, position))
    elif isinstance(value, str) and _has_surrogate(value):
        yield where, "the text"


def _field_name(where):
    """The field a location inside an object names: ("fields", "title_en", ...) ->
    "title_en"; ("model",) -> "model"; None at the object's top."""
    if len(where) >= 2 and where[0] == "fields":
        name = where[1]
    elif where:
        name = where[0]
    else:
        return None
    return name if isinstance(name, str) and not _has_surrogate(name) else "?"


def _too_deep(data):
    """True when lists and objects nest more than MAX_DEPTH levels (or contain themselves).

    Walks without recursion; a container shared by YAML aliases is walked again only
    when reached deeper, so one that contains itself ends up too deep.
    """
    checked = {}
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if not isinstance(value, list | dict):
            continue
        if depth > MAX_DEPTH:
            return True
        if checked.get(id(value), 0) >= depth:
            continue  # its subtree fitted when reached at this depth or a deeper one
        checked[id(value)] = depth
        children = value.values() if isinstance(value, dict) else value
        stack.extend((child, depth + 1) for child in children)
    return False
