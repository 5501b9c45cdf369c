"""Upgrades keep history: a database made by an earlier release, with editors' changes and
deletions in it (tests/data/releases/), migrated by today's code; every stored version
deserialises, its history, version and compare pages open, the deleted objects recover and
the oldest versions restore, as the release recorded them.

The upgrade and the admin run in a process of their own on a copy of the kept database
(tests/editorial/release_upgrade.py); these tests read its report and compare it with the
versions as the release stored them, read from the kept file with sqlite3.
"""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

# The upgrade runs on a SQLite copy of the release, whatever DATABASE_URL says: once is enough.
pytestmark = pytest.mark.no_database

ROOT = Path(__file__).resolve().parents[2]
RELEASES = sorted((ROOT / "tests" / "data" / "releases").glob("*.sqlite3"))


@pytest.fixture(scope="module", params=RELEASES, ids=lambda path: path.stem)
def release(request, tmp_path_factory):
    """(the versions the release stored, the report on its upgraded copy)."""
    copy = tmp_path_factory.mktemp("release") / "db.sqlite3"
    shutil.copyfile(request.param, copy)
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{copy}"}
    env["DJANGO_SETTINGS_MODULE"] = "tests.settings"
    result = subprocess.run(
        [sys.executable, "-m", "tests.editorial.release_upgrade"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return _stored(request.param), json.loads(result.stdout.splitlines()[-1])


def _stored(path):
    """The kept database as the release left it: the revisions of each content object's
    versions ({(model, object id): [revision, oldest first]}), what each revision holds
    ({revision: [(model, fields)]}), the primary keys of the objects that exist
    ({model: ids}) and institution slugs by primary key."""
    database = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = database.execute(
        "SELECT t.model, v.object_id, v.revision_id, v.serialized_data"
        " FROM reversion_version v JOIN django_content_type t ON t.id = v.content_type_id"
        " WHERE t.app_label = 'papers' ORDER BY v.id"
    ).fetchall()
    versions, revisions = {}, {}
    for model, object_id, revision, data in rows:
        fields = json.loads(data)[0]["fields"]
        versions.setdefault((model, object_id), []).append(revision)
        revisions.setdefault(revision, []).append((model, fields))
    existing = {
        model: {str(pk) for (pk,) in database.execute(f"SELECT id FROM papers_{model}")}
        for model in {model for model, _object_id in versions}
    }
    institutions = dict(database.execute("SELECT id, slug FROM papers_institution"))
    database.close()
    return {
        "versions": versions,
        "revisions": revisions,
        "existing": existing,
        "institutions": institutions,
    }


def _recorded(stored, fields):
    """``fields`` of a release's version as today's report states them: affiliations by
    institution slug, in the release's order."""
    fields = dict(fields)
    if "affiliations" in fields:
        fields["affiliations"] = [stored["institutions"][pk] for pk in fields["affiliations"]]
    return fields


def _projected(rows, names):
    """``rows`` (dicts of fields) restricted to ``names``, as sorted JSON texts."""
    return sorted(json.dumps({name: row[name] for name in names}, sort_keys=True) for row in rows)


def _holds(stored, revision, state):
    """Whether ``state`` (the report's objects of ``revision`` as they are now) holds every
    object the ``revision`` recorded, field by field (the fields both know), model by model."""
    by_model = {}
    for name, fields in stored["revisions"][revision]:
        by_model.setdefault(name, []).append(_recorded(stored, fields))
    for name, expected in sorted(by_model.items()):
        rows = [row["fields"] for row in state if row["model"] == f"papers.{name}"]
        names = expected[0].keys() & (rows[0].keys() if rows else set())
        assert _projected(rows, names) == _projected(expected, names), name
    return True


def test_every_version_of_the_release_deserialises_after_migrate(release):
    stored, report = release

    assert report["unreadable"] == []
    assert report["versions"] >= sum(map(len, stored["versions"].values())) > 100


def test_every_history_version_and_compare_page_opens(release):
    stored, report = release

    assert report["pages"] > sum(map(len, stored["versions"].values()))
    assert report["failed_pages"] == {}
    assert report["failed_actions"] == {}


def test_deleted_objects_recover_as_last_recorded(release):
    """The deleted paper comes back with its authors (affiliations in order) and links."""
    stored, report = release
    deleted = {
        (model, object_id)
        for model, object_id in stored["versions"]
        if model in {"paper", "author"} and object_id not in stored["existing"][model]
    }
    assert {model for model, _object_id in deleted} == {"paper", "author"}

    assert set(report["recovered"]) == {f"{model} {object_id}" for model, object_id in deleted}
    for model, object_id in deleted:
        latest = stored["versions"][(model, object_id)][-1]
        assert _holds(stored, latest, report["recovered"][f"{model} {object_id}"])


def test_oldest_versions_restore_as_recorded(release):
    stored, report = release
    assert {"conference", "award", "paper", "author", "institution"} <= {
        key.split()[0] for key in report["restored"]
    }

    for key, state in report["restored"].items():
        model, object_id = key.split()
        oldest = stored["versions"][(model, object_id)][0]
        assert _holds(stored, oldest, state), key
