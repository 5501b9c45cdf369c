"""The compact format's JSON Schema (issue 29, item 7): served at a stable address, true to
the reader (every key it accepts, no other), and the docs' examples valid against it."""

import json
import re
from pathlib import Path

import pytest

from importing.compact.reader import objects_from
from importing.compact.schema import compact_schema
from importing.fields import FixtureInvalid
from tests.compact_schema import check_files

DOCS = Path(__file__).parents[2] / "docs" / "compact-format.md"
URL = "/schemas/compact-format.json"
# Each place in a compact file whose keys the reader checks: where to put an unknown key
# in a small file, and the path to that place in the schema.
PERSON = {"name": "Bo Sample"}
PAPER = {"title": "A Paper", "authors": [PERSON]}
CONFERENCE = {"venue": {"acronym": "CIL", "name": "CIL"}, "name": "CIL 2031", "year": 2031}
AWARD = {"name": "Best Paper", "levels": [{"name": "Winner", "name_plural": "Winners"}]}
PLACES = {
    "top": ([], ()),
    "conference": (["conference"], ("conference",)),
    "venue": (["conference", "venue"], ("conference", "venue", 1)),
    "other conference": (["other_conferences", 0], ("other_conferences", "items")),
    "institution": (["institutions", 0], ("institutions", "items")),
    "award": (["awards", 0], ("awards", "items")),
    "level": (["awards", 0, "levels", 0], ("awards", "items", "levels", "items")),
    "paper": (["papers", 0], ("papers", "items")),
    "author": (["papers", 0, "authors", 0], ("papers", "items", "authors", "items", 1)),
}


def _document():
    return {
        "conference": json.loads(json.dumps(CONFERENCE)),
        "other_conferences": [{**CONFERENCE, "year": 2021, "name": "CIL 2021"}],
        "institutions": [{"name": "University of Eldoria"}],
        "awards": [json.loads(json.dumps(AWARD))],
        "papers": [json.loads(json.dumps(PAPER))],
    }


def _schema_keys(path):
    schema = compact_schema()
    for step in path:
        if isinstance(step, int):
            schema = schema["oneOf"][step]
        elif step == "items":
            schema = schema["items"]
        else:
            schema = schema["properties"][step]
    return set(schema["properties"])


def _reader_keys(path, tmp_path):
    """The keys the reader lists when it refuses an unknown key at ``path``."""
    document = _document()
    target = document
    for step in path:
        target = target[step]
    target["not_a_key"] = 1
    with pytest.raises(FixtureInvalid) as raised:
        objects_from(document, tmp_path / "conference.yaml")
    messages = [problem.message for problem in raised.value.problems]
    listed = [re.search(r"the keys (?:here )?are (.*)$", message) for message in messages]
    (found,) = [match.group(1) for match in listed if match]
    return set(found.split(", "))


@pytest.mark.parametrize("place", PLACES)
def test_the_schema_has_every_key_the_reader_accepts_and_no_other(db, tmp_path, place):
    reader_path, schema_path = PLACES[place]

    assert _schema_keys(schema_path) == _reader_keys(reader_path, tmp_path)


def test_the_schema_is_served_at_its_stable_address(client, db):
    response = client.get(URL)

    assert response.status_code == 200
    assert response["Content-Type"] == "application/schema+json"
    assert response.json() == compact_schema(f"http://testserver{URL}")


def _docs_examples():
    """The YAML blocks of docs/compact-format.md, but those after ``<!-- not-compact -->``."""
    docs = DOCS.read_text(encoding="utf-8")
    blocks = re.findall(r"(<!-- not-compact -->\n)?```yaml\n(.*?)```", docs, re.S)
    return [text for marker, text in blocks if not marker]


def test_the_docs_compact_examples_are_valid(tmp_path):
    examples = _docs_examples()
    paths = []
    for number, text in enumerate(examples, start=1):
        paths.append(tmp_path / f"example-{number}.yaml")
        paths[-1].write_text(text, encoding="utf-8")

    checked = check_files(paths, tmp_path)

    assert len(examples) >= 3
    assert (checked.returncode, checked.stdout + checked.stderr) == (0, "ok -- validation done\n")


def test_check_jsonschema_refuses_a_file_with_a_mistake(tmp_path):
    path = tmp_path / "conference.yaml"
    path.write_text("conference: {name: CIL 2031, year: '2031', venue: cil}\npaper: []\n")

    checked = check_files([path], tmp_path)

    assert checked.returncode == 1
    assert "'2031' is not of type 'integer'" in checked.stdout
    assert "'paper' was unexpected" in checked.stdout


def test_the_docs_name_the_address_and_the_editor_comment():
    docs = DOCS.read_text(encoding="utf-8")

    assert f"# yaml-language-server: $schema=https://awards.example.org{URL}" in docs
