"""Step 1, first half: a JSON or YAML fixture as lists and dicts (:func:`parse`), refusing
what would make the checks wrong or unbounded: names twice in one object, text not UTF-8
or with lone surrogates, nesting deeper than ``MAX_DEPTH``, YAML aliases, a bare BibTeX
file, a file that is not regular or over the size limit (:mod:`importing.files`)."""

import json
import re
from pathlib import Path

import yaml

from importing.fields import FixtureInvalid, Problem
from importing.files import MAX_FILE_SIZE, InputRefused, read_input

# How deeply lists and objects may nest. A fixture needs 5 levels (the list of objects,
# an object, its fields, a list of natural keys, a key); 20 leaves room and stays far
# below Python's recursion limit (1,000 frames), which deeper input would exhaust.
MAX_DEPTH = 20
SURROGATE = re.compile("[\ud800-\udfff]")


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
    written twice in one mapping is reported as in JSON (PyYAML keeps the last one), and
    refusing aliases."""

    def compose_node(self, parent, index):
        """Refuse an alias (``*name``) where PyYAML would reuse its anchor's value: nine
        levels of nine aliases stand for 387 million values in 1 KB (a "billion laughs"),
        which every later walk over the data would visit. No fixture or compact file needs
        one (export writes none)."""
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None,
                None,
                f"an alias (*{event.anchor}) repeats a value written elsewhere; aliases are "
                "not accepted: write the value out",
                event.start_mark,
            )
        return super().compose_node(parent, index)

    def construct_json_object(self, node):
        self.construct_mapping(node, deep=True)  # merges "<<", refuses unhashable keys
        construct = self.construct_object  # each node is built once, then remembered
        return _JSONObject.from_pairs([(construct(k), construct(v)) for k, v in node.value])


_Loader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _Loader.construct_json_object
)


def parse(path, max_bytes=MAX_FILE_SIZE):
    """The fixture file at ``path`` as Python lists and dicts: YAML for ``.yaml`` and
    ``.yml`` and for other files but ``.json`` not starting with ``[`` or ``{``, else
    JSON. Raises :class:`FixtureInvalid` for each refusal of the module docstring, and
    for a file :func:`~importing.files.read_input` refuses (over ``max_bytes`` bytes)."""
    path = Path(path)
    try:
        raw = read_input(path, max_bytes)
    except InputRefused as error:
        raise FixtureInvalid([Problem(path, str(error))]) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise FixtureInvalid(
            [Problem(path, f"not UTF-8: byte {error.start} (line {line}) cannot be decoded")]
        ) from None
    lines = (line.strip() for line in text.splitlines())
    if next((line for line in lines if line and line[0] != "%"), "").startswith("@"):
        raise FixtureInvalid([Problem(path, _bibtex_alone(path))])  # a bare BibTeX file
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
    else:
        message = too_deep if _too_deep(data) else None
    if message is not None:
        kind = "YAML" if as_yaml else "JSON"
        raise FixtureInvalid([Problem(path, f"invalid {kind}: {message}")])
    _refuse_surrogates(path, data)
    return data


def _bibtex_alone(path):
    """What a bare BibTeX file given to ``import_conference`` is told."""
    return (
        "this is a BibTeX file: it holds papers, but not their conference or awards. "
        "Name it from a compact conference file (docs/compact-format.md) and import that, e.g.\n"
        "    conference: {name: CIL 2031, year: 2031, venue: {acronym: CIL, name: Conference "
        "on Imaginary Learning}}\n"
        f"    bibtex: {path.name}\n"
        "    papers: [{key: smith2031}]    # or leave papers out to take every entry"
    )


def _refuse_surrogates(path, data):
    """Raise FixtureInvalid naming every object and field whose text holds a lone
    surrogate (``"\\ud800"``), half of a UTF-16 pair that UTF-8 cannot encode."""
    problems = []
    objects = data if isinstance(data, list) else [data]
    for index, obj in enumerate(objects, start=1):
        label = obj.get("model") if isinstance(obj, dict) else None
        if not isinstance(label, str) or SURROGATE.search(label):
            label = None
        for where, what in sorted(_surrogates(obj), key=lambda found: str(found[0])):
            problems.append(
                Problem(
                    path,
                    f"{what} holds a lone surrogate (an escape such as \\ud800 that is half "
                    "of a UTF-16 pair, not a character); write the character itself or its "
                    "full pair",
                    index=index if isinstance(data, list) else None,
                    label=label,
                    field=_field_name(where),
                )
            )
    if problems:
        raise FixtureInvalid(problems)


def _surrogates(value, where=()):
    """(location, what) for each name or text in ``value`` holding a lone surrogate."""
    if isinstance(value, dict):
        for name, child in value.items():
            if isinstance(name, str) and SURROGATE.search(name):
                yield (*where, name), f"the name {name!r}"
            yield from _surrogates(child, (*where, name))
    elif isinstance(value, list):
        for position, child in enumerate(value):
            yield from _surrogates(child, (*where, position))
    elif isinstance(value, str) and SURROGATE.search(value):
        yield where, "the text"


def _field_name(where):
    """The field a location in an object names: ("fields", "title_en", ...) ->
    "title_en"; ("model",) -> "model"; None at the object's top; "?" if unprintable."""
    if not where:
        return None
    name = where[1] if len(where) >= 2 and where[0] == "fields" else where[0]
    return name if isinstance(name, str) and not SURROGATE.search(name) else "?"


def _too_deep(data):
    """True when lists and objects nest more than MAX_DEPTH levels (or contain themselves).
    Without recursion; a container shared by YAML aliases is walked again only when
    reached deeper, so one that contains itself ends up too deep."""
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
