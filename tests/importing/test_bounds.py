"""The importer's bounds (issue 32, finding 3): tiny hostile files, files that are not
regular, files over the size limit and long author lists end at once in one clear line.

Each test that could run for ever on an unbounded importer runs under :func:`deadline`.
"""

import io
import json
import os
import signal
import threading
from contextlib import contextmanager

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from catalogue.models import Authorship
from importing import parsing
from importing.bibtex import parse_bibtex
from importing.compact.reader import objects_from
from importing.fields import FixtureInvalid
from importing.files import InputRefused, InputTooLarge, read_input
from importing.parsing import parse
from importing.planning import load_existing
from importing.reading import read_fixture


class Overran(Exception):
    """A block ran past its deadline (not an OSError, which the importer would catch)."""


@contextmanager
def deadline(seconds):
    """Fail the block with :class:`Overran` when it runs longer than ``seconds`` (SIGALRM:
    it also interrupts a blocking ``open`` of a FIFO)."""

    def expire(signum, frame):
        raise Overran(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def problems_of(path, *args):
    """The problem lines import_conference prints for ``path`` (it must fail)."""
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was written"):
        call_command(
            "import_conference", str(path), "--dry-run", *args, stdout=io.StringIO(), stderr=err
        )
    return err.getvalue().strip().splitlines()


COMPACT = """\
conference:
  venue: {acronym: CIL, name: Conference on Imaginary Learning}
  name: CIL 2031
  year: 2031
bibtex: papers.bib
"""


# --- only regular files ----------------------------------------------------------------


def test_fixture_that_is_a_fifo_is_refused_at_once(tmp_path, db):
    path = tmp_path / "fixture.json"
    os.mkfifo(path)

    with deadline(5):
        lines = problems_of(path)

    assert lines == [
        f"{path}: a FIFO (named pipe), not a regular file: the importer reads only regular files"
    ]


def test_bibtex_file_that_is_a_fifo_is_refused_at_once(tmp_path, db):
    os.mkfifo(tmp_path / "papers.bib")
    path = tmp_path / "conference.yaml"
    path.write_text(COMPACT, encoding="utf-8")

    with deadline(5):
        lines = problems_of(path)

    assert lines == [
        f"{path}:5:1, bibtex: papers.bib: a FIFO (named pipe), not a regular file: the importer "
        "reads only regular files"
    ]


def test_image_that_is_a_fifo_is_refused_at_once(tmp_path, db):
    os.mkfifo(tmp_path / "teaser.png")
    path = tmp_path / "conference.yaml"
    path.write_text(
        COMPACT.replace("bibtex: papers.bib\n", "")
        + "papers:\n  - {title: Fifo, authors: [Ada Example], image: teaser.png, "
        "image_alt: A figure, image_alt_zh_hans: 一张图}\n",
        encoding="utf-8",
    )

    with deadline(5):
        lines = problems_of(path)

    assert lines == [
        f"{path}:6:43, papers[1].image: the image file 'teaser.png': a FIFO (named pipe), not a "
        "regular file: the importer reads only regular files"
    ]


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda tmp_path: tmp_path, "a directory"),
        (lambda tmp_path: "/dev/null", "a character device"),
    ],
    ids=["directory", "device"],
)
def test_fixture_that_is_a_directory_or_a_device_is_refused(tmp_path, db, make, kind):
    path = make(tmp_path)

    with deadline(5):
        lines = problems_of(path)

    assert lines == [f"{path}: {kind}, not a regular file: the importer reads only regular files"]


def test_read_input_does_not_wait_for_a_fifo_writer(tmp_path):
    """Even from a thread (no signal can interrupt it there): refused before opening."""
    os.mkfifo(tmp_path / "pipe")
    outcome = []

    def read():
        try:
            read_input(tmp_path / "pipe")
        except InputRefused as error:
            outcome.append(str(error))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=5)

    assert outcome == [
        "a FIFO (named pipe), not a regular file: the importer reads only regular files"
    ]


# --- the size limit --------------------------------------------------------------------


def test_file_over_the_limit_is_refused_before_it_is_parsed(tmp_path, db):
    path = tmp_path / "fixture.json"
    path.write_bytes(b"[" + b" " * (3 * 2**20) + b"]")

    lines = problems_of(path, "--max-file-size", "2")

    assert lines == [
        f"{path}: the file is 3.0 MB, over the limit of 2.0 MB (import_conference "
        "--max-file-size raises it)"
    ]


def test_default_limit_refuses_a_fifty_megabyte_abstract(tmp_path, db):
    """What took 1.27 GB of memory to import stops at the size of the file."""
    path = tmp_path / "fixture.json"
    abstract = "An abstract. " * (50 * 2**20 // 13)
    path.write_text(
        '[{"model": "papers.paper", "fields": {"abstract_en": "' + abstract + '"}}]',
        encoding="utf-8",
    )

    lines = problems_of(path)

    assert lines == [
        f"{path}: the file is 50.0 MB, over the limit of 20.0 MB (import_conference "
        "--max-file-size raises it)"
    ]


def test_max_file_size_raises_the_limit(tmp_path, db):
    path = tmp_path / "fixture.json"
    path.write_bytes(b"[" + b" " * (3 * 2**20) + b"]")

    out = io.StringIO()
    call_command("import_conference", str(path), "--max-file-size", "4", stdout=out)

    assert (
        out.getvalue()
        == "Nothing to change: the database already matches " + str(path) + " (0 objects).\n"
    )


def test_bibtex_file_over_the_limit_is_refused(tmp_path, db):
    (tmp_path / "papers.bib").write_bytes(b"%" * (3 * 2**20))
    path = tmp_path / "conference.yaml"
    path.write_text(COMPACT, encoding="utf-8")

    lines = problems_of(path, "--max-file-size", "2")

    assert lines == [
        f"{path}:5:1, bibtex: papers.bib: the file is 3.0 MB, over the limit of 2.0 MB "
        "(import_conference --max-file-size raises it)"
    ]


@pytest.mark.parametrize("value", ["0", "-1", "1.5", "many"])
def test_max_file_size_must_be_a_whole_number_of_megabytes(tmp_path, value):
    with pytest.raises(CommandError, match="expected a whole number of megabytes, at least 1"):
        call_command("import_conference", str(tmp_path / "x.json"), "--max-file-size", value)


def test_read_input_refuses_a_file_over_the_limit_with_its_size(tmp_path):
    path = tmp_path / "ten.json"
    path.write_bytes(b"x" * 10)

    with pytest.raises(InputTooLarge) as raised:
        read_input(path, max_bytes=9)

    assert (raised.value.size, raised.value.limit) == (10, 9)


# --- YAML aliases --------------------------------------------------------------------


def alias_bomb(levels=9):
    """A YAML fixture of about 1 KB whose aliases stand for 9**levels strings."""
    lines = ["- &l0 [" + ", ".join(["lol"] * 9) + "]"]
    lines += [f"- &l{n} [" + ", ".join([f"*l{n - 1}"] * 9) + "]" for n in range(1, levels)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            alias_bomb(),
            "2:8: invalid YAML: an alias (*l0) repeats a value written elsewhere; aliases are "
            "not accepted: write the value out",
        ),
        (
            "conference: &c {name: CIL, year: 2031}\nother_conferences: [*c, *c]\n",
            "2:21: invalid YAML: an alias (*c) repeats a value written elsewhere; aliases are "
            "not accepted: write the value out",
        ),
        (
            "- &a [*a]\n",
            "1:7: invalid YAML: an alias (*a) repeats a value written elsewhere; aliases are "
            "not accepted: write the value out",
        ),
    ],
    ids=["billion-laughs", "compact-file", "contains-itself"],
)
def test_yaml_alias_is_refused_at_once_naming_line_and_column(tmp_path, db, text, where):
    path = tmp_path / "bomb.yaml"
    path.write_text(text, encoding="utf-8")
    assert len(text.encode()) < 2048

    with deadline(2):
        lines = problems_of(path)

    assert lines == [f"{path}:{where}"]


def test_yaml_anchor_without_alias_is_still_read(tmp_path, db):
    path = tmp_path / "anchor.yaml"
    path.write_text("- &a {model: papers.venue, fields: {slug: v, acronym: V}}\n")

    lines = problems_of(path)

    assert lines == [
        f"{path}, object 1, papers.venue [\"v\"], field 'name_en': required field missing"
    ]


# --- BibTeX @string expansion ----------------------------------------------------------


def string_doubling(doublings=40):
    """A .bib file of about 2 KB whose last @string would be 16 * 2**doublings characters."""
    lines = ['@string{s0 = "xxxxxxxxxxxxxxxx"}']
    lines += [f"@string{{s{n} = s{n - 1} # s{n - 1}}}" for n in range(1, doublings + 1)]
    lines.append(f"@inproceedings{{big, title = s{doublings}, author = {{Ada Example}}}}")
    return "\n".join(lines) + "\n"


def test_bibtex_string_doubling_is_stopped_in_one_line(tmp_path, db):
    """Before the cap, the 26th doubling alone took a gigabyte, then MemoryError."""
    (tmp_path / "papers.bib").write_text(string_doubling(), encoding="utf-8")
    path = tmp_path / "conference.yaml"
    path.write_text(COMPACT, encoding="utf-8")
    assert len(string_doubling()) < 2048

    with deadline(5):
        lines = problems_of(path)

    # s1 .. s15 add 16 * (2**16 - 2) characters in all: s15 takes them over a million.
    assert lines == [
        f'{tmp_path / "papers.bib"}, line 16, @string ["s15"]: @string references add more '
        "than 1,000,000 characters to the values read (a @string made of others, doubled "
        "again and again?); the file is not read further"
    ]


def test_bibtex_strings_may_add_as_much_as_the_file_holds():
    """The cap grows with the file: references adding a little more than a million
    characters are read in a file of 1.2 million."""
    comment = ("x" * 99 + "\n") * 11_000  # text between entries: a comment
    entries = "".join(
        f"@inproceedings{{k{n}, title = a # a, author = {{A B}}}}\n" for n in range(2700)
    )
    text = f'@string{{a = "{"y" * 190}"}}\n{comment}{entries}'
    assert 2700 * 380 > 1_000_000 and len(text) > 2700 * 380

    papers = parse_bibtex(text, source="long.bib")

    assert (len(papers), papers[-1]["title"]) == (2700, "y" * 380)


def test_bibtex_value_of_many_parts_is_read_in_linear_time():
    """``a # a # ...``: each part was matched in a copy of the rest of the value."""
    parts = " # ".join(["a"] * 300_000)
    text = f'@string{{a = "x"}}\n@inproceedings{{k, title = {parts}, author = {{A B}}}}\n'

    with deadline(5), pytest.raises(FixtureInvalid) as raised:
        parse_bibtex(text, source="parts.bib")

    assert [str(problem) for problem in raised.value.problems] == [
        "parts.bib, line 2, @inproceedings [\"k\"], field 'title': Ensure this value has at "
        "most 400 characters (it has 300000)."
    ]  # read whole, then checked


# --- long author lists -----------------------------------------------------------------


def test_entry_with_thousands_of_authors_is_read_in_linear_time(tmp_path, db):
    """Every new author was compared with every earlier one (4,000 authors: 65 s)."""
    names = " and ".join(f"Author{n:05d} Example{n:05d}" for n in range(4000))
    bib = f"@inproceedings{{many, title = {{Many}}, author = {{{names}}}}}\n"
    (tmp_path / "papers.bib").write_text(bib, encoding="utf-8")
    data = {
        "conference": {"venue": "cil", "name": "CIL 2031", "year": 2031},
        "bibtex": "papers.bib",
    }

    with deadline(30):
        objects, _ = objects_from(data, tmp_path / "conference.yaml")

    authors = [o["fields"]["name"] for o in objects if o["model"] == "papers.author"]
    assert authors == [f"Author{n:05d} Example{n:05d}" for n in range(4000)]


# --- a JSON fixture is decoded one object at a time (issue 32, finding 3) --------------


@pytest.fixture(params=[parsing.CHUNK, 7, 1], ids=["chunk-1MiB", "chunk-7", "chunk-1"])
def chunk(request, monkeypatch):
    """The file read a MiB (all of these files), 7 bytes or a byte at a time: objects,
    strings and multibyte characters cut anywhere."""
    monkeypatch.setattr(parsing, "CHUNK", request.param)


@pytest.mark.parametrize(
    "text",
    [
        "[",
        "[,]",
        "[,1]",
        "[1,]",
        "[1 2]",
        "[1]x",
        "[1] []",
        '[{"model": "papers.venue",}]',
        '[{"a": 1}, {"b": 2]',
        '[{"a": "\\x"}]',
        "[1,\n\n  {\n",
    ],
)
def test_streamed_json_errors_are_those_of_the_whole_text(tmp_path, chunk, text):
    """Whatever breaks a JSON list, the message and its place are what ``json.loads`` says
    of the whole file, as when the file was decoded at once."""
    path = tmp_path / "broken.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    error = expected.value
    wanted = f"{path}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}"

    with pytest.raises(FixtureInvalid) as refused:
        list(parse(path))

    assert [str(problem) for problem in refused.value.problems] == [wanted]


def test_streamed_json_reads_what_json_loads_reads(tmp_path, chunk):
    """Objects, numbers, escapes, empty lists and odd spacing decode as ``json.loads``
    decodes them, one object at a time and only once."""
    objects = [{"model": "papers.venue", "fields": {"slug": "a\u00e9\\", "n": 1.5}}, [], {}]
    objects += [{"model": "papers.paper", "fields": {"title_zh_hans": "合成论文 " * 40}}, 12345]
    text = " \r\n[ " + " ,\t".join(json.dumps(obj, ensure_ascii=False) for obj in objects) + " ]\n"
    path = tmp_path / "fixture.json"
    path.write_text(text, encoding="utf-8-sig")

    streamed = parse(path)

    assert not isinstance(streamed, list)
    assert list(streamed) == json.loads(text)
    with pytest.raises(RuntimeError):
        list(streamed)
    (tmp_path / "empty.json").write_text("[ ]", encoding="utf-8")
    assert list(parse(tmp_path / "empty.json")) == []


def test_streamed_json_refuses_deep_nesting_and_names_every_surrogate(tmp_path, chunk):
    deep = tmp_path / "deep.json"
    deep.write_text("[1, " + "[" * 30 + "]" * 30 + "]", encoding="utf-8")
    with pytest.raises(FixtureInvalid, match="nested too deeply"):
        list(parse(deep))

    lone = tmp_path / "lone.json"
    lone.write_text(
        '[{"model": "papers.venue", "fields": {"slug": "\\ud800"}}, {}, '
        '{"model": "papers.author", "fields": {"name": "x\\udc00"}}]',
        encoding="utf-8",
    )
    with pytest.raises(FixtureInvalid) as refused:
        list(parse(lone))
    problems = refused.value.problems
    assert [(problem.index, problem.label, problem.field) for problem in problems] == [
        (1, "papers.venue", "slug"),
        (3, "papers.author", "name"),
    ]


def test_reimport_reads_no_related_text_per_authorship(tmp_path, db):
    """Comparing a paper's authorships with the database loaded, for each one, the whole
    paper, with its matched text as long as its author list: a second import of one
    entry of 10,000 authors took 2.3 GB. Only the related objects' keys are read."""
    names = " and ".join(f"Author{n:03d} Example{n:03d}" for n in range(30))
    bib = f"@inproceedings{{many, title = {{Many}}, author = {{{names}}}}}\n"
    (tmp_path / "papers.bib").write_text(bib, encoding="utf-8")
    (tmp_path / "conference.yaml").write_text(
        "conference: {name: CIL 2031, year: 2031, venue: {acronym: CIL, name: Imaginary}}\n"
        "bibtex: papers.bib\n",
        encoding="utf-8",
    )
    call_command("import_conference", str(tmp_path / "conference.yaml"), verbosity=0)
    fixture = read_fixture(tmp_path / "conference.yaml")
    items = [item for item in fixture.items if item.model is Authorship]

    existing = load_existing(Authorship, items)

    assert len(existing) == 30
    for authorship in existing.values():
        assert {"match_text", "abstract_en"} <= authorship.paper.get_deferred_fields()
    assert sorted(key[-1] for key in existing) == [
        f"author{n:03d}-example{n:03d}" for n in range(30)
    ]
