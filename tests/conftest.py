import os

import pytest
from django.utils import translation
from hypothesis import settings

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


@pytest.fixture(autouse=True)
def _default_language():
    """Start each test in English: a request through LocaleMiddleware leaves its
    language active in the thread, which would change reverse() in later tests."""
    with translation.override("en"):
        yield


@pytest.fixture
def icml(db):
    """The shipped ICML fixtures, loaded into the test database (tests/shipped_content.py:
    the rows a real loaddata gave, copied in)."""
    load_icml()
