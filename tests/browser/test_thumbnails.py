"""Lists of papers with thumbnails in Chromium: axe-core finds no violation, and each
thumbnail loads at the slot's size from the thumbnails made at upload."""

import pytest
from playwright.sync_api import expect

from tests.catalogue.test_images import THUMBNAIL_URLS, give_icml_papers_teasers

from .test_accessibility import axe_source  # noqa: F401  # a fixture

pytestmark = pytest.mark.browser


@pytest.fixture
def teasers(site, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    assert give_icml_papers_teasers(tmp_path) > 0
    return site


@pytest.mark.parametrize("url", THUMBNAIL_URLS)
def test_list_with_thumbnails_has_no_axe_violations(page, teasers, axe_source, url):  # noqa: F811
    page.goto(teasers + url)
    page.evaluate(axe_source)

    results = page.evaluate("axe.run(document, {resultTypes: ['violations']})")

    violations = [
        (violation["id"], [node["target"] for node in violation["nodes"]][:3])
        for violation in results["violations"]
    ]
    assert violations == []


def test_first_thumbnail_loads_at_the_slots_size(page, teasers):
    page.goto(teasers + "/en/conferences/icml-2025/")
    thumbnail = page.locator("img.paper-thumb").first

    thumbnail.scroll_into_view_if_needed()
    # Waiting on the element's property, not on a string of script: when the image was
    # not loaded at the first look, wait_for_function polled by eval, which the site's
    # Content-Security-Policy refuses (and the test failed with an EvalError).
    expect(thumbnail).to_have_js_property("complete", True)

    assert thumbnail.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [160, 100]
    assert thumbnail.get_attribute("alt") == ""
