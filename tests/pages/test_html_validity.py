"""The Nu HTML Checker (npm vnu-jar, run with Java) on the public pages in both
languages (tests/checked_pages.py, which holds every page `make audit` scores): no errors. The
pages are saved to files first, since the checker refuses to fetch loopback addresses.
The paper ``TEASER_PAPER`` is shown with a teaser image."""

import json
import shutil
import subprocess

import pytest
from django.conf import settings

from pages.views import AUTHOR_PAGE_SIZE, LIST_PAGE_SIZE
from tests import factories
from tests.catalogue.test_images import THUMBNAIL_URLS, give_icml_papers_teasers
from tests.checked_pages import TEASER_PAPER, URLS, add_teaser
from tests.pages.test_views import _author_with_papers, _other_papers

VNU = settings.BASE_DIR / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"


def test_pages_are_valid_html(icml, client, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    add_teaser()
    _assert_valid(client, tmp_path, URLS)


def test_lists_with_thumbnails_are_valid_html(icml, client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    assert give_icml_papers_teasers(settings.MEDIA_ROOT) > 0

    pages = _assert_valid(client, tmp_path, THUMBNAIL_URLS)

    assert all('class="paper-thumb"' in page for page in pages)


def test_second_pages_of_lists_are_valid_html(db, client, tmp_path):
    conference = factories.conference()
    _other_papers(conference, LIST_PAGE_SIZE + 1)
    person = _author_with_papers(LIST_PAGE_SIZE + 1)
    factories.paper(authors=[factories.author() for _ in range(AUTHOR_PAGE_SIZE)])
    lists = [conference.get_absolute_url()[4:], person.get_absolute_url()[4:], "authors/"]

    pages = _assert_valid(
        client,
        tmp_path,
        [f"/{language}/{path}page/2/" for language in ("en", "zh-hans") for path in lists],
    )

    assert all('rel="prev"' in page and "<h1>Page not found" not in page for page in pages)


def _assert_valid(client, tmp_path, urls):
    """Nu's errors on the pages at ``urls`` (200 or 404) are none; returns the pages."""
    assert VNU.exists(), "vnu-jar is missing: `make test` installs it (npm ci)"
    java = shutil.which("java")
    assert java, "Java is missing: `make test` installs it (default-jre-headless)"
    files, pages = {}, []
    for n, url in enumerate(urls):
        response = client.get(url)
        assert response.status_code in (200, 404), url
        if TEASER_PAPER in url:
            assert b'<figure class="teaser"><img' in response.content, url
        path = tmp_path / f"page-{n}.html"
        path.write_bytes(response.content)
        files[str(path)] = url
        pages.append(response.content.decode())

    result = subprocess.run(
        [java, "-jar", str(VNU), "--errors-only", "--format", "json", *files],
        capture_output=True,
        text=True,
        timeout=300,
    )

    messages = json.loads(result.stderr or result.stdout)["messages"]
    errors = [
        (files.get(m.get("url", "").removeprefix("file:"), m.get("url")), m["message"])
        for m in messages
    ]
    assert errors == []
    assert result.returncode == 0
    return pages


@pytest.mark.parametrize(
    ("url", "root"),
    [
        ("/en/feeds/awards.atom", "{http://www.w3.org/2005/Atom}feed"),
        ("/zh-hans/feeds/awards.atom", "{http://www.w3.org/2005/Atom}feed"),
        ("/sitemap.xml", "{http://www.sitemaps.org/schemas/sitemap/0.9}sitemapindex"),
        ("/sitemap-papers.xml", "{http://www.sitemaps.org/schemas/sitemap/0.9}urlset"),
    ],
)
def test_feeds_and_sitemap_are_well_formed_xml(icml, client, url, root):
    import xml.etree.ElementTree as ET

    response = client.get(url)

    assert response.status_code == 200
    assert ET.fromstring(response.content).tag == root  # raises ParseError if malformed
