import hashlib
import json
import os

import pytest
from django.utils import translation
from hypothesis import settings

from importing import exporting
from importing.compact.schema import compact_schema
from tests.compact_schema import check_texts
from tests.shipped_content import load_icml

# Property-based tests (tests/test_robustness.py). No deadline: request times on a
# shared 2-core machine vary, and speed is measured by the benchmarks, not here. CI
# (CI=true) is derandomized, so a run there is reproducible; on a developer's machine
# each run tries new examples and hypothesis replays a failure from .hypothesis/.
# HYPOTHESIS_PROFILE picks one by name.
settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True, database=None)
settings.register_profile("dev", max_examples=25, deadline=None)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


# pytest-django's fixtures that give a test the database (the test run's, on SQLite or on
# PostgreSQL); a fixture of our own that asks for one of them shows here too.
DATABASE_FIXTURES = frozenset(
    {
        "db",
        "transactional_db",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
        "django_db_setup",
        "live_server",
    }
)


def asks_for_the_database(item):
    """Whether the collected test ``item`` gets the test database: it is marked
    ``django_db`` or asks, directly or through its fixtures, for one of DATABASE_FIXTURES."""
    fixtures = getattr(item, "fixturenames", ())
    return item.get_closest_marker("django_db") is not None or not DATABASE_FIXTURES.isdisjoint(
        fixtures
    )


def pytest_collection_modifyitems(config, items):
    """Refuse a test marked ``no_database`` that gets the database: ``make test-postgres``
    leaves such tests out (pyproject.toml, markers), so it would run on SQLite only."""
    wrong = [
        item.nodeid
        for item in items
        if item.get_closest_marker("no_database") and asks_for_the_database(item)
    ]
    if wrong:
        raise pytest.UsageError("marked no_database but gets the database: " + ", ".join(wrong))


@pytest.fixture(autouse=True)
def _default_language():
    """Start each test in English: a request through LocaleMiddleware leaves its
    language active in the thread, which would change reverse() in later tests."""
    with translation.override("en"):
        yield


# The compact files check-jsonschema found valid in this test process, each as the
# digest of its text, its format and the schema it was checked against. Many tests
# export the same content (every publish_site of the shipped content writes the same
# compact archive): a text already found valid against the same schema is not checked
# again, which would start check-jsonschema (about a second) for the same answer.
_VALID_EXPORTS = set()


def _export_key(text, as_json, schema):
    return hashlib.sha256(f"{as_json}\0{schema}\0{text}".encode()).hexdigest()


@pytest.fixture(autouse=True)
def check_compact_exports(monkeypatch, tmp_path_factory):
    """Check every compact file a test exports (importing/exporting.py) against the
    compact format's JSON Schema with check-jsonschema, once the test is done (issue 29,
    item 7): a test that exported an invalid one errors at teardown. A text found valid
    earlier in this process against the same schema is not checked again
    (``_VALID_EXPORTS``)."""
    written, render = [], exporting.render

    def checked_render(document, *, as_json=False):
        text = render(document, as_json=as_json)
        written.append((text, as_json))
        return text

    monkeypatch.setattr(exporting, "render", checked_render)
    yield
    if not written:
        return
    schema = json.dumps(compact_schema(), sort_keys=True)
    keys = {_export_key(text, as_json, schema): (text, as_json) for text, as_json in written}
    unchecked = [pair for key, pair in keys.items() if key not in _VALID_EXPORTS]
    if unchecked:
        checked = check_texts(unchecked, tmp_path_factory.mktemp("compact-exports"))
        assert checked.returncode == 0, checked.stdout + checked.stderr
        _VALID_EXPORTS.update(keys)


@pytest.fixture
def assert_queries(client, django_assert_num_queries):
    """``assert_queries(url, n)``: a GET of ``url`` is a 200 in exactly ``n`` queries."""

    def check(url, count):
        with django_assert_num_queries(count):
            response = client.get(url)
        assert response.status_code == 200
        return response

    return check


@pytest.fixture
def icml(db):
    """The shipped ICML fixtures, loaded into the test database (tests/shipped_content.py:
    the rows a real loaddata gave, copied in)."""
    load_icml()


@pytest.fixture
def migrate_to(transactional_db):
    """A function that migrates the test database to the given targets, [(app, name)]
    (none: every app's latest migration), and returns the apps of that state.

    After the test, pass or fail, every app is at its latest migration again: going
    back in ``papers`` also unapplies the apps that depend on it (editorial), and the
    tests after this one need their tables."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    def migrate(targets=None):
        executor = MigrationExecutor(connection)
        targets = targets or executor.loader.graph.leaf_nodes()
        executor.migrate(targets)
        return executor.loader.project_state(targets).apps

    yield migrate
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
