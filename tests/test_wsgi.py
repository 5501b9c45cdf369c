"""The WSGI entry point loads with any URLconf (make bench serves a trivial one with it)."""

import os
import subprocess  # nosec B404  # runs this interpreter on a fixed module
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.no_database  # see the marker in pyproject.toml

ROOT = Path(__file__).resolve().parents[1]


def test_the_entry_point_loads_with_a_urlconf_of_one_route():
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "benchmarks")]),
        "DJANGO_SETTINGS_MODULE": "trivial_settings",
        "DJANGO_SECRET_KEY": "test-only-key-" + "x" * 40,
    }
    result = subprocess.run(  # nosec B603  # this interpreter, a fixed argument list
        [sys.executable, "-c", "import awardsite.wsgi; print(awardsite.wsgi.application)"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "WSGIHandler" in result.stdout
