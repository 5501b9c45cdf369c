"""scripts/mutate.py's targets (`make mutate`, issue 28) name code and tests that exist.

The functions of a target are found by name when the mutation run starts; a module that
lost one (renamed in a refactoring) stops that target. This keeps the list true
between runs, which take too long for CI."""

import pytest
from django.conf import settings

from tests.scripts import load

pytestmark = pytest.mark.no_database  # see the marker in pyproject.toml

mutate = load("scripts/mutate.py", "mutate")


@pytest.mark.parametrize("name", sorted(mutate.TARGETS))
def test_every_target_names_functions_and_tests_that_exist(name):
    target = mutate.TARGETS[name]
    ranges = mutate.line_ranges(settings.BASE_DIR / target.module, target.functions)
    assert set(ranges) == set(target.functions)
    paths = [test.split("::")[0] for test in target.tests if test.startswith("tests/")]
    assert paths
    for path in paths:
        assert (settings.BASE_DIR / path).is_file(), path


def test_a_missing_function_stops_the_target_with_its_name():
    with pytest.raises(SystemExit, match="has no no_such_function"):
        mutate.line_ranges(settings.BASE_DIR / "pagecache" / "caching.py", ["no_such_function"])
