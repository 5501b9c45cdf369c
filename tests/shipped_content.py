"""The shipped ICML content (fixtures/icml.json) in the test database, quickly.

``loaddata icml`` takes about a second (each of its 223 objects looks up its natural
keys, one query at a time), and some 150 tests load it, twice per CI run. So the first
load in a test process is a real ``loaddata``, whose rows are then read back; later
loads into a database without content insert those very rows in one transaction and
reset the sequences, as loaddata does. The result is the same database: every table
of the ``papers`` app holds the same rows (search text and content generation
included), which tests/catalogue/test_shipped_content.py checks against a real loaddata on
each database. Tests of loaddata itself call it directly, never this.
"""

from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection, transaction

from importing.applying import refresh_statistics

# [(model, columns, rows)] read after the first real load in this process; None until
# then, and () when the rows cannot be copied this way (see _read_rows).
_rows = None


def load_icml():
    """Put the shipped ICML content into the default test database.

    A real ``loaddata icml`` when the ``papers`` tables already hold rows (it then
    merges by natural key, which a copy of rows cannot), when share cards are drawn on
    save (loaddata's saves would draw them), and the first time in this process.
    """
    global _rows
    models = _content_models()
    if _rows and not settings.SHARE_CARDS_ON_SAVE and _all_empty(models):
        _insert(_rows)
    else:
        empty = _rows is None and _all_empty(models)
        call_command("loaddata", "icml", verbosity=0)
        if empty:
            _rows = _read_rows(models)
    # A test database's statistics are those of empty tables (autovacuum visits them
    # between tests): the planner took the content for empty and ran the search's
    # subqueries once per row, and single queries of the API schema test took a minute.
    # Inside the test's transaction, the statistics go when it is rolled back.
    refresh_statistics(models)


def _content_models():
    """The models whose tables loaddata may write: the ``papers`` app's, through
    tables included."""
    return [
        model
        for model in apps.get_app_config("papers").get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    ]


def _quoted(model, columns):
    quote = connection.ops.quote_name
    return quote(model._meta.db_table), ", ".join(quote(column) for column in columns)


def _all_empty(models):
    return not any(model._base_manager.exists() for model in models)


def _read_rows(models):
    """Every row of ``models``' tables, as the database driver returns it; () when a
    value would not go back in as it came out (JSON comes back as a dict on
    PostgreSQL)."""
    rows = []
    with connection.cursor() as cursor:
        for model in models:
            columns = [field.column for field in model._meta.local_concrete_fields]
            table, names = _quoted(model, columns)
            # Table and column names come from the models, quoted by the backend.
            cursor.execute(f"SELECT {names} FROM {table}")
            found = cursor.fetchall()
            if any(isinstance(value, (dict, list)) for row in found for value in row):
                return ()
            if found:
                rows.append((model, columns, found))
    return rows


def _insert(rows):
    """Insert ``rows`` (from _read_rows) in one transaction (foreign keys are checked
    at its end, so the order of the tables does not matter), then move each table's
    sequence past its largest key, as loaddata does."""
    with transaction.atomic(), connection.cursor() as cursor:
        for model, columns, found in rows:
            table, names = _quoted(model, columns)
            marks = ", ".join(["%s"] * len(columns))
            cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", found)
        for sql in connection.ops.sequence_reset_sql(no_style(), [model for model, *_ in rows]):
            cursor.execute(sql)
