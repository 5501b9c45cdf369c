"""`make screenshots` (scripts/screenshots.py) writes whole pages at the widths asked, in
both languages, and the admin's pages as an editor sees them, on a fresh clone too (the
throwaway site collects its own static files)."""

import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

pytestmark = [pytest.mark.browser, pytest.mark.no_database]

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "screenshots.py"


def test_screenshots_of_a_public_and_an_admin_page_in_both_languages(tmp_path):
    # "venues/icml/" is the venue's page and its award series'; the admin's page of this
    # week's changes lists what the site's import wrote.
    only = ["--only", "venues/icml/", "--only", "/admin/editorial/"]
    result = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path), "--widths", "390", *only],
        capture_output=True,
        text=True,
        timeout=600,
    )

    assert result.returncode == 0, result.stderr
    names = sorted(path.name for path in tmp_path.glob("*.png"))
    assert names == sorted(
        name
        for language in ["en", "zh-hans"]
        for name in [
            f"admin-{language}-390-changes.png",
            f"{language}-390-award-series.png",
            f"{language}-390-venue.png",
        ]
    )
    for path in tmp_path.glob("*.png"):
        with Image.open(path) as image:
            width, height = image.size
        assert width == 390 and height >= 600, (path.name, image.size)
    assert "6 screenshots in" in result.stdout
