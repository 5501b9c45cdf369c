"""Step 1, first half: a JSON or YAML fixture as lists and dicts (:func:`parse`), refusing
what would make the checks wrong or unbounded: names twice in one object, text not UTF-8
or with lone surrogates, nesting deeper than ``MAX_DEPTH``, YAML aliases, a bare BibTeX
file, a file that is not regular or over the size limit (:mod:`importing.files`).

A JSON fixture (a list of objects) is read a chunk and decoded an object at a time
(:class:`StreamedObjects`), never held whole as text or as Python objects: at 50,000
papers (450,325 objects, 117 MB) the text and the list took about 900 MB on top of the
checked objects (``benchmarks/import_conference.py --papers 50000``)."""

import codecs
import json
import re
from pathlib import Path

import yaml

from importing.fields import FixtureInvalid, Problem
from importing.files import MAX_FILE_SIZE, InputRefused, open_input, read_bounded, read_input

# How deeply lists and objects may nest. A fixture needs 5 levels (the list of objects,
# an object, its fields, a list of natural keys, a key); 20 leaves room and stays far
# below Python's recursion limit (1,000 frames), which deeper input would exhaust.
MAX_DEPTH = 20
SURROGATE = re.compile("[\ud800-\udfff]")
# JSON's whitespace (RFC 8259), and what may come between the values of a list.
WHITESPACE = re.compile(r"[ \t\n\r]*")
LEADING_SPACE = re.compile(r"\s*")
SEPARATOR = re.compile(r"[ \t\n\r]*([,\]])?[ \t\n\r]*")
# Bytes read first to tell a JSON list from other files, and read at a time from it.
HEAD = 4096
CHUNK = 1024 * 1024
LONE_SURROGATE = (
    "holds a lone surrogate (an escape such as \\ud800 that is half of a UTF-16 pair, not a "
    "character); write the character itself or its full pair"
)
TOO_DEEP = f"nested too deeply (more than {MAX_DEPTH} levels of lists and objects)"


class _JSONObject(dict):
    """A JSON object that remembers the names written more than once in it; read from
    YAML, also where each name is written (``marks``: name -> (line, column), from 1)."""

    duplicates = ()
    marks = {}  # noqa: RUF012  # read only: an object read from JSON has no marks

    @classmethod
    def from_pairs(cls, pairs):
        obj = cls(pairs)
        if len(obj) != len(pairs):
            names = [name for name, _ in pairs]
            obj.duplicates = sorted({name for name in names if names.count(name) > 1})
        return obj


class _YAMLList(list):
    """A YAML list that remembers where each item is written (``marks``, as of a
    :class:`_JSONObject`)."""

    marks = ()


class _Loader(yaml.SafeLoader):
    """PyYAML's SafeLoader building mappings as :class:`_JSONObject`, so that a name
    written twice in one mapping is reported as in JSON (PyYAML keeps the last one),
    remembering where each name and item is written (:func:`where_written`), refusing aliases,
    and reading an impossible date (``2024-12-32``) as text for its field to refuse."""

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
        obj = _JSONObject.from_pairs([(construct(k), construct(v)) for k, v in node.value])
        obj.marks = {construct(k): _mark(k.start_mark) for k, _ in node.value}
        obj.mark = _mark(node.start_mark)
        return obj

    def construct_marked_list(self, node):
        items = _YAMLList(self.construct_object(child) for child in node.value)
        items.marks = [_mark(child.start_mark) for child in node.value]
        return items

    def construct_date_or_text(self, node):
        """A date or time as PyYAML reads it; one that cannot be (``2024-12-32``, which
        PyYAML's resolver takes for a date), as its text, for the field to refuse."""
        try:
            return self.construct_yaml_timestamp(node)
        except ValueError:
            return self.construct_scalar(node)


_Loader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _Loader.construct_json_object
)
_Loader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _Loader.construct_marked_list
)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _Loader.construct_date_or_text)

# What to do about the YAML mistakes people make most, by the start of PyYAML's message.
YAML_HINTS = {
    "mapping values are not allowed here": (
        'a colon and a space inside a value start another: put the value in quotes (title: "A: B")'
    ),
    "found character '\\t' that cannot start any token": (
        "indent with spaces: YAML does not accept tabs"
    ),
    "expected ',' or ']'": "close the list with ]",
    "expected ',' or '}'": "close the mapping with }",
    "found unexpected end of stream": "close the quoted text with its quote",
}
# The citation key of a BibTeX entry (not of @string, @preamble or @comment).
BIBTEX_ENTRY = re.compile(r"@(?!string|preamble|comment)\w+\s*[{(]\s*([^\s,{}()]+)\s*,", re.I)
PLACE_PARTS = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


def _mark(mark):
    """A PyYAML mark as (line, column), counted from 1."""
    return mark.line + 1, mark.column + 1


def where_written(data, place):
    """(line, column), from 1, where the YAML ``data`` (from :func:`parse`) writes
    ``place`` (``papers[3].authors[2]``, as in problems), else its deepest part written
    (a field left out: where its object's name is; nothing of it: the document's start);
    None for data read from JSON, which keeps no places."""
    found, value = getattr(data, "mark", None), data
    for number, name in PLACE_PARTS.findall(place):
        marks = getattr(value, "marks", None)
        if number and isinstance(marks, list) and 0 < int(number) <= len(marks):
            found, value = marks[int(number) - 1], value[int(number) - 1]
        elif name and isinstance(marks, dict) and name in marks:
            found, value = marks[name], value[name]
        else:
            break
    return found


def _yaml_message(error):
    """PyYAML's ``error`` as a message: what, where the part it was in began, what to do."""
    message = getattr(error, "problem", None) or str(error)
    context, mark = getattr(error, "context", None), getattr(error, "context_mark", None)
    if context and mark is not None and _mark(mark) != _mark(error.problem_mark):
        message += f" ({context} at line {mark.line + 1} column {mark.column + 1})"
    hint = next((hint for start, hint in YAML_HINTS.items() if message.startswith(start)), "")
    return f"{message}; {hint}" if hint else message


def parse(path, max_bytes=MAX_FILE_SIZE):
    """The fixture file at ``path`` as Python lists and dicts: YAML for ``.yaml`` and
    ``.yml`` and for other files but ``.json`` not starting with ``[`` or ``{``, else
    JSON; a JSON list as :class:`StreamedObjects`. Raises :class:`FixtureInvalid` for each
    refusal of the module docstring, and for a file :func:`~importing.files.read_input`
    refuses (over ``max_bytes`` bytes)."""
    path = Path(path)
    try:
        with open_input(path, max_bytes) as file:
            head = read_bounded(file, HEAD, max_bytes)
    except InputRefused as error:
        raise FixtureInvalid([Problem(path, str(error))]) from None
    head = head.removeprefix(codecs.BOM_UTF8).lstrip(b" \t\n\r")
    if path.suffix.lower() not in (".yaml", ".yml") and head.startswith(b"["):
        return StreamedObjects(path, max_bytes)
    return parse_whole(path, max_bytes)


def parse_whole(path, max_bytes=MAX_FILE_SIZE):
    """:func:`parse`, decoding the whole file at once (YAML, a JSON object, or a JSON list
    whose streaming failed, for the error's place in the file)."""
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
        raise FixtureInvalid([Problem(path, _bibtex_alone(path, text))])  # a bare BibTeX file
    suffix = path.suffix.lower()
    start = LEADING_SPACE.match(text).end()  # not text.lstrip(): no copy of the file
    as_yaml = suffix in (".yaml", ".yml") or (
        suffix != ".json" and not text.startswith(("[", "{"), start)
    )
    del raw  # the text alone from here on
    at = None  # the error's (line, column)
    try:
        if as_yaml:
            data = yaml.load(text, Loader=_Loader)  # nosec B506  # a SafeLoader
        else:
            data = json.loads(text, object_pairs_hook=_JSONObject.from_pairs)
    except yaml.YAMLError as error:
        message = _yaml_message(error)
        mark = getattr(error, "problem_mark", None)
        at = None if mark is None else _mark(mark)
    except json.JSONDecodeError as error:
        message, at = error.msg, (error.lineno, error.colno)
    except RecursionError:  # both parsers recurse per level of nesting
        message = TOO_DEEP
    else:
        message = TOO_DEEP if _too_deep(data) else None
    if message is not None:
        kind = "YAML" if as_yaml else "JSON"
        raise FixtureInvalid([Problem(path, f"invalid {kind}: {message}", at=at)])
    _refuse_surrogates(path, data)
    return data


class StreamedObjects:
    """The objects of a JSON list file, read ``CHUNK`` bytes at a time and decoded one
    object at a time as they are iterated (once), with every check :func:`parse` makes of
    a whole file: names written twice (Python's own JSON decoder, as for any file),
    nesting, lone surrogates. Raises :class:`FixtureInvalid` while iterating: for a file
    that is not UTF-8 or not JSON, with the message and place :func:`parse_whole` gives
    (the file read again whole); for lone surrogates, once every object is read, naming
    each. At most one ``CHUNK`` of text (and one object) is held at a time."""

    def __init__(self, path, max_bytes=MAX_FILE_SIZE):
        self.path, self.max_bytes, self._iterated = path, max_bytes, False

    def __iter__(self):
        if self._iterated:
            raise RuntimeError("the objects of a JSON file can be iterated once")
        self._iterated = True
        try:
            with open_input(self.path, self.max_bytes) as file:
                yield from self._objects(_Text(file, self.max_bytes))
            return
        except InputRefused as error:
            raise FixtureInvalid([Problem(self.path, str(error))]) from None
        except (UnicodeDecodeError, json.JSONDecodeError):
            pass  # its place in the file, below
        parse_whole(self.path, self.max_bytes)  # raises FixtureInvalid, in its words
        raise FixtureInvalid([Problem(self.path, "the file changed while it was read")])

    def _objects(self, text):
        decoder = json.JSONDecoder(object_pairs_hook=_JSONObject.from_pairs)
        problems, index = [], 0
        position = text.match(WHITESPACE, 0).end() + 1  # after the "["
        separator = text.match(SEPARATOR, position)
        if separator.group(1) == ",":  # "[,": a value was expected
            raise json.JSONDecodeError("Expecting value", text.text, position)
        ended, position = separator.group(1) == "]", separator.end()
        while not ended:
            try:
                obj, position = text.decode(decoder, position)
            except RecursionError:
                raise FixtureInvalid([Problem(self.path, f"invalid JSON: {TOO_DEEP}")]) from None
            index += 1
            separator = text.match(SEPARATOR, position)
            if separator.group(1) is None:  # neither "," nor "]" after a value
                raise json.JSONDecodeError("Expecting ',' delimiter", text.text, position)
            ended, position = separator.group(1) == "]", separator.end()
            if _too_deep(obj, depth=2):
                raise FixtureInvalid([Problem(self.path, f"invalid JSON: {TOO_DEEP}")])
            problems += _surrogate_problems(self.path, obj, index)
            yield obj
            position = text.forget(position)
        if position != len(text.text) or text.more():  # "Extra data" after the list
            raise json.JSONDecodeError("Extra data", text.text, position)
        if problems:
            raise FixtureInvalid(problems)


class _Text:
    """The text of a file read ``CHUNK`` bytes at a time as it is needed: ``text`` is what
    is read and not yet forgotten; positions are in it."""

    def __init__(self, file, max_bytes):
        self.file, self.max_bytes, self.text, self.ended = file, max_bytes, "", False
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")()

    def more(self):
        """Read the next chunk; False at the end of the file."""
        if self.ended:
            return False
        data = read_bounded(self.file, CHUNK, self.max_bytes)
        self.ended = not data
        self.text += self.decoder.decode(data, final=self.ended)
        return not self.ended

    def match(self, pattern, position):
        """``pattern`` matched at ``position``, reading on until the match ends before the
        end of what is read, or at the end of the file."""
        while True:
            found = pattern.match(self.text, position)
            if found.end() < len(self.text) or not self.more():
                return found

    def decode(self, decoder, position):
        """``decoder.raw_decode`` at ``position``, reading on while the value may go on."""
        while True:
            try:
                value, end = decoder.raw_decode(self.text, position)
            except json.JSONDecodeError:
                if not self.more():
                    raise
                continue
            if end < len(self.text) or not self.more():
                return value, end

    def forget(self, position):
        """Drop the text before ``position`` once it is a chunk long; the new position."""
        if position < CHUNK:
            return position
        self.text = self.text[position:]
        return 0


def _bibtex_alone(path, text):
    """What a bare BibTeX file given to ``import_conference`` is told: a compact file that
    imports it when saved beside it, naming its first entry's citation key."""
    entry = BIBTEX_ENTRY.search(text)
    key = _yaml_text(entry.group(1)) if entry else "smith2031"
    return (
        "this is a BibTeX file: it holds papers, but not their conference or awards. "
        "Name it from a compact conference file (docs/compact-format.md) and import that, e.g.\n"
        "    conference: {name: CIL 2031, year: 2031, venue: {acronym: CIL, name: Conference "
        "on Imaginary Learning}}\n"
        f"    bibtex: {_yaml_text(path.name)}\n"
        f"    papers: [{{key: {key}}}]    # or leave papers out to take every entry"
    )


def _yaml_text(text):
    """``text`` as a YAML value: plain when it is letters, digits, ``.``, ``-`` and
    ``_``, else quoted (a dblp key, ``DBLP:conf/nips/Smith31``, holds a colon)."""
    return text if re.fullmatch(r"[\w.-]+", text) else json.dumps(text, ensure_ascii=False)


def _refuse_surrogates(path, data):
    """Raise FixtureInvalid naming every object and field whose text holds a lone
    surrogate (``"\\ud800"``), half of a UTF-16 pair that UTF-8 cannot encode."""
    if isinstance(data, dict):  # a compact file: each named by its place
        found = sorted(_surrogates(data), key=lambda found: str(found[0]))
        places = [(_place(where), what) for where, what in found]
        problems = [
            Problem(path, f"{what} {LONE_SURROGATE}", place=place, at=where_written(data, place))
            for place, what in places
        ]
        if problems:
            raise FixtureInvalid(problems)
        return
    problems = []
    objects = data if isinstance(data, list) else [data]
    for index, obj in enumerate(objects, start=1):
        problems += _surrogate_problems(path, obj, index if isinstance(data, list) else None)
    if problems:
        raise FixtureInvalid(problems)


def _surrogate_problems(path, obj, index):
    """A Problem for each name or text of ``obj`` (object ``index``) with a lone surrogate."""
    label = obj.get("model") if isinstance(obj, dict) else None
    if not isinstance(label, str) or SURROGATE.search(label):
        label = None
    return [
        Problem(
            path,
            f"{what} {LONE_SURROGATE}",
            index=index,
            label=label,
            field=_field_name(where),
        )
        for where, what in sorted(_surrogates(obj), key=lambda found: str(found[0]))
    ]


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


def _place(where):
    """A location in a compact file as problems name it: ("papers", 0, "title") ->
    "papers[1].title"; "?" for a name that cannot be printed."""
    place = ""
    for part in where:
        if isinstance(part, int):
            place += f"[{part + 1}]"
        else:
            name = part if isinstance(part, str) and not SURROGATE.search(part) else "?"
            place += f".{name}" if place else name
    return place


def _field_name(where):
    """The field a location in an object names: ("fields", "title_en", ...) ->
    "title_en"; ("model",) -> "model"; None at the object's top; "?" if unprintable."""
    if not where:
        return None
    name = where[1] if len(where) >= 2 and where[0] == "fields" else where[0]
    return name if isinstance(name, str) and not SURROGATE.search(name) else "?"


def _too_deep(data, depth=1):
    """True when lists and objects nest more than MAX_DEPTH levels (or contain themselves).
    Without recursion; a container shared by YAML aliases is walked again only when
    reached deeper, so one that contains itself ends up too deep."""
    checked = {}
    stack = [(data, depth)]
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
