"""Settings read from the environment (awardsite/settings.py)."""

import subprocess
import sys
import threading

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import OperationalError, close_old_connections, connection
from django.db.utils import ConnectionHandler
from django.test import Client

from awardsite.settings import SQLITE_OPTIONS, env_bool, env_list
from catalogue.models import Paper
from tests import factories


@pytest.mark.no_database
@pytest.mark.parametrize(
    ("raw", "expected"),
    [("1", True), ("TRUE", True), ("on", True), ("0", False), ("no", False), ("", False)],
)
def test_env_bool_reads_common_spellings(monkeypatch, raw, expected):
    monkeypatch.setenv("AWARDSITE_FLAG", raw)

    assert env_bool("AWARDSITE_FLAG") is expected


@pytest.mark.no_database
def test_env_bool_refuses_anything_else(monkeypatch):
    monkeypatch.setenv("AWARDSITE_FLAG", "maybe")

    with pytest.raises(ImproperlyConfigured, match="AWARDSITE_FLAG must be true or false"):
        env_bool("AWARDSITE_FLAG")


@pytest.mark.no_database
def test_env_list_splits_on_commas(monkeypatch):
    monkeypatch.setenv("AWARDSITE_HOSTS", "example.org, www.example.org,")

    assert env_list("AWARDSITE_HOSTS", []) == ["example.org", "www.example.org"]


def _settings_in_subprocess(env, expression):
    code = f"import awardsite.settings as s; print({expression})"
    clean = {"PATH": "/usr/bin:/bin", **env}
    return subprocess.run([sys.executable, "-c", code], env=clean, capture_output=True, text=True)


@pytest.mark.no_database
def test_production_refuses_to_start_without_a_secret_key():
    result = _settings_in_subprocess({}, "s.SECRET_KEY")

    assert result.returncode != 0
    assert "Set DJANGO_SECRET_KEY" in result.stderr


@pytest.mark.no_database
def test_database_url_selects_the_database():
    result = _settings_in_subprocess(
        {"DJANGO_SECRET_KEY": "x", "DATABASE_URL": "postgres://u:p@db.internal:5432/awards"},
        "s.DATABASES['default']['ENGINE'], s.DATABASES['default']['NAME'], s.DEBUG",
    )

    assert result.stdout.split() == ["django.db.backends.postgresql", "awards", "False"]


@pytest.mark.no_database
def test_sqlite_is_the_default_database():
    result = _settings_in_subprocess({"DJANGO_SECRET_KEY": "x"}, "s.DATABASES['default']['ENGINE']")

    assert result.stdout.strip() == "django.db.backends.sqlite3"


@pytest.mark.no_database
def test_sqlite_queues_write_transactions_by_default():
    result = _settings_in_subprocess(
        {"DJANGO_SECRET_KEY": "x"}, "sorted(s.DATABASES['default']['OPTIONS'].items())"
    )

    assert result.stdout.strip() == "[('timeout', 20), ('transaction_mode', 'IMMEDIATE')]"


def _two_saves_at_once(database, options):
    """Two connections to the SQLite file ``database``, each in a transaction that reads
    and then writes (as a save that checks a slug's uniqueness does), interleaved so
    that both have read before either writes, when the database lets them. Returns the
    errors raised and the rows written."""
    handler = ConnectionHandler(
        {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": database, "OPTIONS": options}}
    )
    setup = handler.create_connection("default")
    with setup.cursor() as cursor:
        cursor.execute("CREATE TABLE slug (name TEXT UNIQUE)")
    setup.close()
    first_read, second_read = threading.Event(), threading.Event()
    errors = []

    def save(name, read, wait_for):
        connection = handler.create_connection("default")
        try:
            connection.set_autocommit(False, force_begin_transaction_with_broken_autocommit=True)
            with connection.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM slug")
                read.set()
                wait_for.wait(timeout=0.5)  # IMMEDIATE: the other save waits, never reads
                cursor.execute("INSERT INTO slug VALUES (%s)", [name])
            connection.commit()
        except OperationalError as error:
            errors.append(str(error))
            connection.rollback()
        finally:
            connection.close()

    first = threading.Thread(target=save, args=("first", first_read, second_read))
    first.start()
    first_read.wait(timeout=5)
    second = threading.Thread(target=save, args=("second", second_read, first_read))
    second.start()
    first.join(timeout=30)
    second.join(timeout=30)
    check = handler.create_connection("default")
    with check.cursor() as cursor:
        cursor.execute("SELECT name FROM slug ORDER BY name")
        rows = [name for (name,) in cursor.fetchall()]
    check.close()
    return errors, rows


@pytest.mark.no_database
def test_sqlite_settings_let_two_saves_at_once_both_succeed(tmp_path, django_db_blocker):
    """The settings' options against a real SQLite file: the second save waits for the
    first to commit instead of failing."""
    with django_db_blocker.unblock():  # a database of its own, not the test database
        errors, rows = _two_saves_at_once(str(tmp_path / "db.sqlite3"), SQLITE_OPTIONS)

    assert (errors, rows) == ([], ["first", "second"])


@pytest.mark.no_database
def test_sqlite_deferred_transactions_fail_two_saves_at_once(tmp_path, django_db_blocker):
    """What the settings prevent (and proof that the test above races): with SQLite's
    default BEGIN, one of the two saves fails at once despite a long timeout."""
    with django_db_blocker.unblock():
        errors, rows = _two_saves_at_once(str(tmp_path / "db.sqlite3"), {"timeout": 20})

    assert errors == ["database is locked"]
    assert len(rows) == 1


@pytest.mark.no_database
@pytest.mark.parametrize(
    ("raw", "expected"),
    [(None, "120/min"), ("10/s", "10/s"), ("5000/h", "5000/h"), ("", "")],
)
def test_api_rate_limit_is_read_from_the_environment(raw, expected):
    env = {"DJANGO_SECRET_KEY": "x"}
    if raw is not None:
        env["DJANGO_API_RATE_LIMIT"] = raw
    result = _settings_in_subprocess(env, "repr(s.API_RATE_LIMIT)")

    assert result.stdout.strip() == repr(expected)


@pytest.mark.no_database
@pytest.mark.parametrize("raw", ["many", "0/min", "10/fortnight", "10"])
def test_api_rate_limit_refuses_what_the_throttle_cannot_read(raw):
    result = _settings_in_subprocess(
        {"DJANGO_SECRET_KEY": "x", "DJANGO_API_RATE_LIMIT": raw}, "s.API_RATE_LIMIT"
    )

    assert result.returncode != 0
    assert "DJANGO_API_RATE_LIMIT must be like 120/min" in result.stderr


@pytest.mark.no_database
def test_data_licence_is_empty_unless_set():
    unset = _settings_in_subprocess({"DJANGO_SECRET_KEY": "x"}, "repr(s.DATA_LICENCE)")
    stated = _settings_in_subprocess(
        {"DJANGO_SECRET_KEY": "x", "DJANGO_DATA_LICENCE": " CC BY 4.0 "}, "s.DATA_LICENCE"
    )

    assert (unset.stdout.strip(), stated.stdout.strip()) == ("''", "CC BY 4.0")


@pytest.mark.no_database
def test_postgresql_connections_set_random_page_cost():
    postgres = {"DJANGO_SECRET_KEY": "x", "DATABASE_URL": "postgres://u:p@db.internal:5432/awards"}
    options = "s.DATABASES['default'].get('OPTIONS', {}).get('options', '-')"

    default = _settings_in_subprocess(postgres, options)
    chosen = _settings_in_subprocess({**postgres, "DJANGO_PG_RANDOM_PAGE_COST": "2"}, options)
    server_own = _settings_in_subprocess({**postgres, "DJANGO_PG_RANDOM_PAGE_COST": ""}, options)
    sqlite = _settings_in_subprocess({"DJANGO_SECRET_KEY": "x"}, options)

    assert default.stdout.strip() == "-c random_page_cost=1.1"
    assert chosen.stdout.strip() == "-c random_page_cost=2"
    assert (server_own.stdout.strip(), sqlite.stdout.strip()) == ("-", "-")


@pytest.mark.no_database
def test_postgresql_random_page_cost_must_be_a_number():
    result = _settings_in_subprocess(
        {
            "DJANGO_SECRET_KEY": "x",
            "DATABASE_URL": "postgres://u:p@db.internal:5432/awards",
            "DJANGO_PG_RANDOM_PAGE_COST": "1.1; DROP",
        },
        "s.DATABASES",
    )

    assert result.returncode != 0
    assert "DJANGO_PG_RANDOM_PAGE_COST must be a number" in result.stderr


@pytest.mark.django_db
def test_the_connection_uses_the_random_page_cost_on_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only (make test-postgres)")
    with connection.cursor() as cursor:
        cursor.execute("SHOW random_page_cost")
        assert cursor.fetchone() == ("1.1",)


@pytest.mark.no_database
def test_postgresql_binds_parameters_on_the_server_unless_turned_off():
    postgres = {"DJANGO_SECRET_KEY": "x", "DATABASE_URL": "postgres://u:p@db.internal:5432/awards"}
    binding = "s.DATABASES['default'].get('OPTIONS', {}).get('server_side_binding', '-')"

    default = _settings_in_subprocess(postgres, binding)
    off = _settings_in_subprocess({**postgres, "DJANGO_PG_SERVER_SIDE_BINDING": "False"}, binding)
    sqlite = _settings_in_subprocess({"DJANGO_SECRET_KEY": "x"}, binding)
    wrong = _settings_in_subprocess({**postgres, "DJANGO_PG_SERVER_SIDE_BINDING": "ja"}, binding)

    assert default.stdout.strip() == "True"
    assert off.stdout.strip() == "False"
    assert sqlite.stdout.strip() == "-"
    assert wrong.returncode != 0
    assert "DJANGO_PG_SERVER_SIDE_BINDING must be true or false" in wrong.stderr


@pytest.mark.django_db
def test_a_repeated_query_is_prepared_on_postgresql():
    """psycopg prepares a statement run prepare_threshold (5) times on a connection with
    server-side binding; PostgreSQL then lists it in pg_prepared_statements."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only (make test-postgres)")
    for _ in range(6):
        list(Paper.objects.filter(pk=1).values_list("pk", flat=True))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%papers_paper%"],
        )
        assert cursor.fetchone()[0] >= 1


# --- Page cache settings read as whole numbers (the CDN's max-age) ---


# A whole number from the environment: (variable, setting, what it counts), with
# (value, the setting it gives) and values refused. A negative s-maxage would be sent
# as is, an invalid Cache-Control (found by a tester).
WHOLE_NUMBER_SETTINGS = [
    (
        "DJANGO_CDN_MAX_AGE",
        "PAGE_CACHE_SHARED_MAX_AGE",
        "seconds",
        [(None, 60), ("", 60), ("0", 0), ("300", 300)],
        ["abc", "-5", "1.5"],
    ),
]


@pytest.mark.no_database
@pytest.mark.parametrize(
    ("variable", "setting", "raw", "expected"),
    [
        (variable, setting, raw, expected)
        for variable, setting, _unit, read, _refused in WHOLE_NUMBER_SETTINGS
        for raw, expected in read
    ],
)
def test_whole_number_settings_are_read(variable, setting, raw, expected):
    env = {"DJANGO_SECRET_KEY": "x"}
    if raw is not None:
        env[variable] = raw
    result = _settings_in_subprocess(env, f"repr(s.{setting})")

    assert result.stdout.strip() == repr(expected)


@pytest.mark.no_database
@pytest.mark.parametrize(
    ("variable", "setting", "unit", "raw"),
    [
        (variable, setting, unit, raw)
        for variable, setting, unit, _read, refused in WHOLE_NUMBER_SETTINGS
        for raw in refused
    ],
)
def test_whole_number_settings_refuse_anything_else(variable, setting, unit, raw):
    result = _settings_in_subprocess({"DJANGO_SECRET_KEY": "x", variable: raw}, f"s.{setting}")

    assert result.returncode != 0
    assert f"{variable} must be a whole number of {unit}" in result.stderr


@pytest.mark.no_database
def test_database_connections_are_kept_for_an_hour_unless_set():
    default = _settings_in_subprocess(
        {"DJANGO_SECRET_KEY": "x"}, "s.DATABASES['default']['CONN_MAX_AGE']"
    )
    closed = _settings_in_subprocess(
        {"DJANGO_SECRET_KEY": "x", "DJANGO_CONN_MAX_AGE": "0"},
        "s.DATABASES['default']['CONN_MAX_AGE']",
    )

    # A new PostgreSQL connection prepares and plans its queries again (settings.py).
    assert default.stdout.strip() == "3600"
    assert closed.stdout.strip() == "0"


@pytest.mark.no_database
def test_database_connection_age_must_be_whole_seconds():
    wrong = _settings_in_subprocess(
        {"DJANGO_SECRET_KEY": "x", "DJANGO_CONN_MAX_AGE": "abc"}, "s.DATABASES"
    )
    empty = _settings_in_subprocess(
        {"DJANGO_SECRET_KEY": "x", "DJANGO_CONN_MAX_AGE": ""},
        "s.DATABASES['default']['CONN_MAX_AGE']",
    )

    assert wrong.returncode != 0
    assert "DJANGO_CONN_MAX_AGE must be a whole number of seconds" in wrong.stderr
    assert empty.stdout.strip() == "3600"


def _postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only (make test-postgres)")


@pytest.mark.django_db(transaction=True)
def test_a_connection_the_server_dropped_is_replaced_before_the_next_request():
    """A kept connection whose server process is gone (a restart, a failover, an idle
    timeout) is checked and replaced when the next request first uses it, instead of
    failing that request (CONN_HEALTH_CHECKS)."""
    _postgresql_only()
    connection.ensure_connection()
    dropped = connection.connection.info.backend_pid
    other = connection.copy()
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [dropped])
    finally:
        other.close()

    close_old_connections()  # what Django runs as each request starts (request_started)
    count = Paper.objects.count()

    assert (count, connection.connection.info.backend_pid != dropped) == (0, True)


@pytest.mark.django_db(transaction=True)
def test_a_request_that_failed_on_a_broken_prepared_statement_closes_its_connection(settings):
    """After a migration changed a column's type, each statement PostgreSQL prepared on a
    kept connection fails ("cached plan must not change result type") until the
    connection is closed: one 500, then the next request has a new connection
    (awardsite/database.py). Before, every request failed until the connection was an
    hour old."""
    _postgresql_only()
    settings.PAGE_CACHE_ENABLED = False
    url = factories.paper(title_en="Planned").get_absolute_url()
    visitor = Client(raise_request_exception=False)
    assert {visitor.get(url).status_code for _run in range(12)} == {200}  # prepared by now
    migrating = connection.copy()  # as manage.py migrate would, on its own connection
    try:
        with migrating.cursor() as cursor:
            cursor.execute("ALTER TABLE papers_paper ALTER COLUMN title_en TYPE varchar(401)")
        statuses = [visitor.get(url).status_code for _run in range(3)]
    finally:
        with migrating.cursor() as cursor:
            cursor.execute("ALTER TABLE papers_paper ALTER COLUMN title_en TYPE varchar(400)")
        migrating.close()

    assert statuses == [500, 200, 200]


@pytest.mark.no_database
def test_the_test_settings_media_folder_is_removed_when_the_process_ends(tmp_path):
    """tests/settings.py makes a media folder per test process (each xdist worker, each
    subprocess a test starts on these settings); it goes when that process ends, so
    test runs do not pile folders up in the temporary directory."""
    code = (
        "import tests.settings as s; "
        "(s.MEDIA_ROOT / 'papers').mkdir(); (s.MEDIA_ROOT / 'papers' / 'a.png').write_bytes(b'x'); "
        "print(s.MEDIA_ROOT)"
    )
    env = {"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)

    assert result.returncode == 0, result.stderr
    assert str(tmp_path) in result.stdout
    assert list(tmp_path.iterdir()) == []
