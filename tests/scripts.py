"""Load one of the project's scripts (scripts/, benchmarks/), which are not packages, as
a module, for the tests of its pure functions."""

import importlib.util

from django.conf import settings


def load(relative_path, name):
    """The module at ``relative_path`` (from the project's root) run under ``name``."""
    spec = importlib.util.spec_from_file_location(name, settings.BASE_DIR / relative_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
