"""axe-core (from npm, node_modules/) run in Debian's Chromium on the public pages,
in both languages: no violations of any rule axe runs by default (WCAG 2.0-2.2
A and AA and best practices). The pages are tests/checked_pages.py's, which hold every page
`make audit` scores; the paper ``TEASER_PAPER`` is shown with a teaser image."""

import pytest
from django.conf import settings

from tests.checked_pages import TEASER_PAPER, URLS, add_teaser

pytestmark = pytest.mark.browser

AXE = settings.BASE_DIR / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="module")
def axe_source():
    assert AXE.exists(), "axe-core is missing: `make test` installs it (npm ci)"
    return AXE.read_text()


@pytest.mark.parametrize("url", URLS)
def test_page_has_no_axe_violations(page, site, axe_source, url, settings, tmp_path):
    if TEASER_PAPER in url:
        settings.MEDIA_ROOT = tmp_path
        add_teaser()
    page.goto(site + url)
    if TEASER_PAPER in url:
        assert page.locator("figure.teaser img").count() == 1
    page.evaluate(axe_source)  # no request: the script runs in the page itself

    results = page.evaluate("axe.run(document, {resultTypes: ['violations']})")

    violations = [
        (violation["id"], [node["target"] for node in violation["nodes"]][:3])
        for violation in results["violations"]
    ]
    assert violations == []
