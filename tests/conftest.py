import pytest
from django.core.management import call_command
from django.utils import translation


@pytest.fixture(autouse=True)
def _default_language():
    """Start each test in English: a request through LocaleMiddleware leaves its
    language active in the thread, which would change reverse() in later tests."""
    with translation.override("en"):
        yield


@pytest.fixture
def icml(db):
    """The shipped ICML fixtures, loaded into the test database."""
    call_command("loaddata", "icml", verbosity=0)
