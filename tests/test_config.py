"""Settings read from the environment (awardsite/settings.py)."""

import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from awardsite.settings import env_bool, env_list


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("1", True), ("TRUE", True), ("on", True), ("0", False), ("no", False), ("", False)],
)
def test_env_bool_reads_common_spellings(monkeypatch, raw, expected):
    monkeypatch.setenv("AWARDSITE_FLAG", raw)

    assert env_bool("AWARDSITE_FLAG") is expected


def test_env_bool_refuses_anything_else(monkeypatch):
    monkeypatch.setenv("AWARDSITE_FLAG", "maybe")

    with pytest.raises(ImproperlyConfigured, match="AWARDSITE_FLAG must be true or false"):
        env_bool("AWARDSITE_FLAG")


def test_env_list_splits_on_commas(monkeypatch):
    monkeypatch.setenv("AWARDSITE_HOSTS", "example.org, www.example.org,")

    assert env_list("AWARDSITE_HOSTS", []) == ["example.org", "www.example.org"]


def _settings_in_subprocess(env, expression):
    code = f"import awardsite.settings as s; print({expression})"
    clean = {"PATH": "/usr/bin:/bin", **env}
    return subprocess.run([sys.executable, "-c", code], env=clean, capture_output=True, text=True)


def test_production_refuses_to_start_without_a_secret_key():
    result = _settings_in_subprocess({}, "s.SECRET_KEY")

    assert result.returncode != 0
    assert "Set DJANGO_SECRET_KEY" in result.stderr


def test_database_url_selects_the_database():
    result = _settings_in_subprocess(
        {"DJANGO_SECRET_KEY": "x", "DATABASE_URL": "postgres://u:p@db.internal:5432/awards"},
        "s.DATABASES['default']['ENGINE'], s.DATABASES['default']['NAME'], s.DEBUG",
    )

    assert result.stdout.split() == ["django.db.backends.postgresql", "awards", "False"]


def test_sqlite_is_the_default_database():
    result = _settings_in_subprocess({"DJANGO_SECRET_KEY": "x"}, "s.DATABASES['default']['ENGINE']")

    assert result.stdout.strip() == "django.db.backends.sqlite3"
