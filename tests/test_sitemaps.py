"""/sitemap.xml and /robots.txt (papers/sitemaps.py)."""

import xml.etree.ElementTree as ET
from urllib.parse import urlsplit

from . import factories

NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}


def _sitemap(client):
    response = client.get("/sitemap.xml")
    assert response.status_code == 200
    return ET.fromstring(response.content)


def _path(url):
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc) == ("http", "testserver")
    return parts.path


def test_sitemap_lists_every_public_page_in_both_languages(icml, client):
    root = _sitemap(client)

    paths = [_path(loc.text) for loc in root.findall("s:url/s:loc", NS)]
    assert len(paths) == len(set(paths))
    for path in [
        "/en/",
        "/zh-hans/",
        "/en/conferences/icml-2015/",
        "/zh-hans/conferences/icml-2025/awards/test-of-time/",
        "/en/venues/icml/awards/test-of-time/",
        "/zh-hans/papers/collabllm/",
        "/en/authors/michael-i-jordan/",
    ]:
        assert path in paths
    # 2 conferences, 3 awards, 3 series, 19 papers, 66 authors and the home page.
    assert len(paths) == 2 * (1 + 2 + 3 + 3 + 19 + 66)


def test_every_sitemap_url_exists_and_its_alternates_lead_to_it(icml, client):
    root = _sitemap(client)

    for url in root.findall("s:url", NS):
        loc = _path(url.find("s:loc", NS).text)
        assert client.get(loc).status_code == 200, loc
        alternates = {
            link.get("hreflang"): _path(link.get("href")) for link in url.findall("x:link", NS)
        }
        assert set(alternates) == {"en", "zh-hans", "x-default"}
        assert loc in (alternates["en"], alternates["zh-hans"])
        for language in ("en", "zh-hans"):
            assert client.get(alternates[language]).status_code == 200
        redirect = client.get(alternates["x-default"], headers={"accept-language": "zh-CN"})
        assert redirect.status_code == 302
        assert redirect["Location"] == alternates["zh-hans"]


def test_sitemap_leaves_out_drafts(client, db):
    shown = factories.paper(authors=[factories.author(slug="shown-author")])
    draft = factories.paper(status="draft", authors=[factories.author(slug="draft-author")])
    hidden_conference = factories.conference(status="draft")
    factories.award(conference=hidden_conference, slug="hidden-award")
    factories.award(status="draft", slug="draft-award")

    text = client.get("/sitemap.xml").content.decode()

    assert f"/en/papers/{shown.slug}/" in text
    assert "/en/authors/shown-author/" in text
    assert draft.slug not in text
    assert "draft-author" not in text
    assert hidden_conference.slug not in text
    assert "hidden-award" not in text
    assert "draft-award" not in text


def test_sitemap_uses_site_url(icml, client, settings):
    settings.SITE_URL = "https://awards.example.org"

    root = _sitemap(client)

    locs = [loc.text for loc in root.findall("s:url/s:loc", NS)]
    assert locs[0] == "https://awards.example.org/en/"
    assert all(loc.startswith("https://awards.example.org/") for loc in locs)


def test_robots_txt_names_the_sitemap(client, db):
    response = client.get("/robots.txt")

    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content.decode().splitlines() == [
        "User-agent: *",
        "Disallow: /admin/",
        "Disallow: /en/search/",
        "Disallow: /zh-hans/search/",
        "Sitemap: http://testserver/sitemap.xml",
    ]
