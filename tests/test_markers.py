"""The suite's own markers (tests/conftest.py): a test marked ``no_database`` runs once,
under ``make test``, so it must not ask for the database."""

import pytest

from tests.conftest import asks_for_the_database


def test_a_test_with_the_db_fixture_asks_for_the_database(request, db):
    assert asks_for_the_database(request.node) is True


@pytest.mark.django_db
def test_a_test_marked_django_db_asks_for_the_database(request):
    assert asks_for_the_database(request.node) is True


@pytest.fixture
def built_on_the_database(transactional_db):
    return "rows"


def test_a_fixture_on_the_database_asks_for_it(request, built_on_the_database):
    assert asks_for_the_database(request.node) is True


@pytest.mark.no_database
def test_a_test_without_database_fixtures_does_not_ask_for_it(request, tmp_path):
    assert asks_for_the_database(request.node) is False
