"""Award kinds in imports: a fixture's ``papers.awardkind`` objects and an award's
``kind`` reference; a compact file's ``kinds`` and an award's ``kind: <slug>``, with a
clear error for an unknown kind; the export and its re-import; a team editor's import."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from catalogue.models import Award, AwardKind, ImportRecord
from editorial.roles import create_editor
from importing.pipeline import import_fixture, plan_import, read_fixture
from importing.uploads import refused

COMPACT = """\
conference:
  venue: {acronym: CIL, name: Conference on Imaginary Learning}
  name: CIL 2031
  year: 2031
  status: published
kinds:
  - {slug: best-paper, name: Best paper award, name_zh_hans: 最佳论文奖}
awards:
  - slug: best-paper
    name: Best Paper Award
    kind: best-paper
    levels:
      - {name: Winner, name_plural: Winners}
    entries:
      winner: [daydreams]
  - slug: test-of-time
    name: Test of Time Award
    kind: KIND
papers:
  - key: daydreams
    title: Learning Sparse Daydreams
    authors: [Bo Sample]
"""


def _write(tmp_path, text, name="cil-2031.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _import(path, *args):
    call_command("import_conference", str(path), *args, stdout=io.StringIO())


def test_compact_file_declares_kinds_and_awards_name_them(tmp_path, db):
    AwardKind.objects.create(slug="test-of-time", name_en="Test of time award")

    _import(_write(tmp_path, COMPACT.replace("KIND", "test-of-time")))

    kinds = dict(Award.objects.values_list("slug", "kind__slug"))
    assert kinds == {"best-paper": "best-paper", "test-of-time": "test-of-time"}
    declared = AwardKind.objects.get(slug="best-paper")
    assert (declared.name_en, declared.name_zh_hans) == ("Best paper award", "最佳论文奖")


def test_unknown_kind_names_file_line_award_and_known_kinds(tmp_path, db):
    AwardKind.objects.create(slug="test-of-time", name_en="Test of time award")
    path = _write(tmp_path, COMPACT.replace("KIND", "tset-of-time"))

    with pytest.raises(CommandError, match="nothing was written") as raised:
        _import(path)

    assert str(raised.value).startswith("1 problem")
    assert Award.objects.count() == 0
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_conference", str(path), stdout=io.StringIO(), stderr=err)
    assert err.getvalue().splitlines() == [
        f'{path}:18:5, awards[2].kind: the award test-of-time names the kind "tset-of-time", '
        "which is neither declared under kinds nor in the database; the kinds are "
        "best-paper, test-of-time"
    ]


def test_kind_declared_twice_is_refused(tmp_path, db):
    text = COMPACT.replace("KIND", "best-paper").replace(
        "kinds:\n", "kinds:\n  - {slug: best-paper, name: Best paper}\n"
    )

    with pytest.raises(CommandError, match="nothing was written"):
        _import(_write(tmp_path, text))


def test_export_writes_the_kinds_and_imports_into_an_empty_database(tmp_path, db):
    AwardKind.objects.create(slug="test-of-time", name_en="Test of time award")
    _import(_write(tmp_path, COMPACT.replace("KIND", "test-of-time")))
    out = tmp_path / "out" / "cil-2031.yaml"
    out.parent.mkdir()
    call_command(
        "export_conference", "cil-2031", "--format", "compact", "-o", str(out), stdout=io.StringIO()
    )
    text = out.read_text(encoding="utf-8")
    Award.objects.all().delete()
    AwardKind.objects.all().delete()
    ImportRecord.objects.all().delete()  # as in an empty database: nothing deleted before

    _import(out)

    assert "kind: test-of-time" in text
    assert dict(Award.objects.values_list("slug", "kind__slug")) == {
        "best-paper": "best-paper",
        "test-of-time": "test-of-time",
    }
    assert AwardKind.objects.get(slug="test-of-time").name_en == "Test of time award"


def test_fixture_award_without_kind_is_null_and_unknown_kind_is_refused(tmp_path, db):
    venue = {"model": "papers.venue", "fields": {"slug": "v", "acronym": "V", "name_en": "V"}}
    conference = {
        "model": "papers.conference",
        "fields": {"venue": ["v"], "slug": "v-2031", "year": 2031, "name_en": "V 2031"},
    }
    award = {
        "model": "papers.award",
        "fields": {"conference": ["v-2031"], "slug": "prize", "name_en": "Prize", "kind": None},
    }
    path = tmp_path / "v.json"
    path.write_text(json.dumps([venue, conference, award]), encoding="utf-8")
    import_fixture(path)
    assert Award.objects.get().kind is None

    award["fields"]["kind"] = ["nope"]
    path.write_text(json.dumps([venue, conference, award]), encoding="utf-8")
    with pytest.raises(CommandError, match="nothing was written"):
        _import(path)
    assert Award.objects.get().kind is None


def test_reimport_gives_existing_awards_their_kinds(tmp_path, db):
    """As make run re-imports the shipped fixture: awards imported before kinds existed
    get the kind the file now names (the earlier import left the field empty)."""
    _import(
        _write(
            tmp_path, COMPACT.replace("    kind: KIND\n", "").replace("    kind: best-paper\n", "")
        )
    )
    assert set(Award.objects.values_list("kind", flat=True)) == {None}

    AwardKind.objects.create(slug="test-of-time", name_en="Test of time award")
    _import(_write(tmp_path, COMPACT.replace("KIND", "test-of-time")))

    assert dict(Award.objects.values_list("slug", "kind__slug")) == {
        "best-paper": "best-paper",
        "test-of-time": "test-of-time",
    }


def test_team_editor_may_not_import_a_new_or_changed_kind(tmp_path, db):
    """A kind is every venue's: a team editor's import that adds one (or changes one) is
    refused, naming it; naming a kind that exists, unchanged, is theirs to do."""
    call_command(
        "import_conference",
        str(_write(tmp_path, COMPACT.replace("KIND", "best-paper"))),
        stdout=io.StringIO(),
    )
    team_editor = create_editor(
        "ada", "ada@example.org", "a-long-editor-passphrase", venues=["cil"]
    )
    site_wide = create_editor("cy", "cy@example.org", "a-long-editor-passphrase")
    new_kind = COMPACT.replace("KIND", "test-of-time").replace(
        "kinds:\n", "kinds:\n  - {slug: test-of-time, name: Test of time award}\n"
    )

    unchanged = plan_import(read_fixture(_write(tmp_path, COMPACT.replace("KIND", "best-paper"))))
    added = plan_import(read_fixture(_write(tmp_path, new_kind)))

    assert refused(unchanged, team_editor) == []
    assert refused(added, team_editor) == [
        "Award kind: test-of-time: only site-wide editors add or change these; ask one to."
    ]
    assert refused(added, site_wide) == []
