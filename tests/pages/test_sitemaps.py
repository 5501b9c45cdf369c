"""/sitemap.xml, its parts, and /robots.txt (pages/sitemaps.py)."""

import datetime
import functools
import xml.etree.ElementTree as ET
from urllib.parse import urlsplit

import pytest
import reversion
from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django_distill.utils import iter_url_patterns

from catalogue.models import AwardKind
from pages import sitemaps
from tests import factories

NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}


def _xml(client, url):
    response = client.get(url)
    assert response.status_code == 200
    return ET.fromstring(response.content)


def _parts(client):
    """The absolute URLs of the parts that the sitemap index names."""
    index = _xml(client, "/sitemap.xml")
    assert index.tag == "{http://www.sitemaps.org/schemas/sitemap/0.9}sitemapindex"
    return [loc.text for loc in index.findall("s:sitemap/s:loc", NS)]


def _sitemap(client):
    """Every part of the sitemap joined into one urlset."""
    joined = ET.Element("{http://www.sitemaps.org/schemas/sitemap/0.9}urlset")
    for url in _parts(client):
        parts = urlsplit(url)
        joined.extend(_xml(client, f"{parts.path}?{parts.query}"))
    return joined


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
    # The home page, 4 index pages, the Open data page and the API's documentation, 1
    # venue, 2 conferences, 3 awards, 3 series, 3 award kinds, 19 papers and 66 authors.
    assert len(paths) == 2 * (7 + 1 + 2 + 3 + 3 + 3 + 19 + 66)


# The routes of the sitemap's sections of objects, and its list of index pages.
SITEMAP_ROUTES = {
    "venue-detail",
    "conference-detail",
    "award-detail",
    "award-series",
    "award-kind",
    "paper-detail",
    "author-detail",
}
INDEX_PAGES = [
    "home",
    "conference-list",
    "award-list",
    "author-list",
    "venue-list",
    "open-data",
    "api-docs",
]


def test_sitemap_lists_the_pages_the_urlconf_publishes(icml, client):
    """The registry of public pages (pages/distill.py) and the sitemap agree: each object
    page the static site publishes is in the sitemap, in both languages, and no other."""
    published = [
        (pattern.name, kwargs)
        for pattern, namespace, _depth in iter_url_patterns()
        if namespace == "papers" and getattr(pattern, "distill_func", None)
        for kwargs in (pattern.distill_func() or [{}])
        if pattern.name in SITEMAP_ROUTES or pattern.name in INDEX_PAGES
    ]
    expected = set()
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            expected |= {reverse(f"papers:{name}", kwargs=kwargs) for name, kwargs in published}

    paths = {_path(loc.text) for loc in _sitemap(client).findall("s:url/s:loc", NS)}

    assert paths == expected
    assert {name for name, _kwargs in published} == SITEMAP_ROUTES | set(INDEX_PAGES)


def test_every_sitemap_url_exists_and_its_alternates_lead_to_it(icml, client):
    root = _sitemap(client)
    # Each page is asked for once: a page is one <url>'s loc and an alternate of its own
    # and of its translation's <url>, and fetching it three times (about 800 requests
    # on the shipped content) was the slowest test of the suite on PostgreSQL.
    status = functools.cache(lambda path: client.get(path).status_code)
    redirect_to = functools.cache(
        lambda path: (
            (response := client.get(path, headers={"accept-language": "zh-CN"})).status_code,
            response.get("Location"),
        )
    )

    for url in root.findall("s:url", NS):
        loc = _path(url.find("s:loc", NS).text)
        assert status(loc) == 200, loc
        alternates = {
            link.get("hreflang"): _path(link.get("href")) for link in url.findall("x:link", NS)
        }
        assert set(alternates) == {"en", "zh-hans", "x-default"}
        assert loc in (alternates["en"], alternates["zh-hans"])
        for language in ("en", "zh-hans"):
            assert status(alternates[language]) == 200, alternates[language]
        assert redirect_to(alternates["x-default"]) == (302, alternates["zh-hans"])


def test_sitemap_leaves_out_drafts(client, db):
    shown = factories.paper(authors=[factories.author(slug="shown-author")])
    draft = factories.paper(status="draft", authors=[factories.author(slug="draft-author")])
    hidden_conference = factories.conference(status="draft")
    factories.award(conference=hidden_conference, slug="hidden-award")
    factories.award(status="draft", slug="draft-award")

    text = ET.tostring(_sitemap(client), encoding="unicode")

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
    assert _parts(client)[0] == "https://awards.example.org/sitemap-home.xml"


def test_index_names_one_part_per_section(icml, client):
    assert [_path(url) for url in _parts(client)] == [
        f"/sitemap-{section}.xml" for section in sitemaps.SITEMAPS
    ]


def test_long_sections_are_split_into_parts_at_paths_of_their_own(client, db, monkeypatch):
    monkeypatch.setattr(sitemaps._Sitemap, "limit", 4)
    conference = factories.conference()
    papers = [factories.paper(conference=conference) for _ in range(5)]

    parts = [url for url in _parts(client) if "/sitemap-papers" in url]
    sizes = [len(_xml(client, _path(url))) for url in parts]

    # Paths a static host serves as files: no query string (issue 12).
    assert [_path(url) for url in parts] == [
        "/sitemap-papers.xml",
        "/sitemap-papers-2.xml",
        "/sitemap-papers-3.xml",
    ]
    assert all(urlsplit(url).query == "" for url in _parts(client))
    # Four URLs a part: two papers in both languages; the last part holds the fifth.
    assert sizes == [4, 4, 2]
    paths = {_path(loc.text) for loc in _sitemap(client).findall("s:url/s:loc", NS)}
    assert {f"/en/papers/{paper.slug}/" for paper in papers} <= paths


def test_a_section_with_a_hyphen_has_its_parts_too(client, db, monkeypatch):
    monkeypatch.setattr(sitemaps._Sitemap, "limit", 2)
    venue = factories.venue()
    for number in range(2):
        conference = factories.conference(venue=venue, slug=f"conf-{number}", year=2020 + number)
        factories.award(conference=conference, slug=f"series-{number}")

    parts = [_path(url) for url in _parts(client) if "/sitemap-award-series" in url]

    assert parts == ["/sitemap-award-series.xml", "/sitemap-award-series-2.xml"]
    assert len(_xml(client, parts[1])) == 2


@pytest.mark.parametrize(
    ("url", "location"),
    [
        # Django's own paging of a section, as the index named it before (old links).
        ("/sitemap-papers.xml?p=2", "/sitemap-papers-2.xml"),
        ("/sitemap-papers.xml?p=1", "/sitemap-papers.xml"),
        ("/sitemap-papers.xml?p=", "/sitemap-papers.xml"),
        ("/sitemap-papers-2.xml?p=3", "/sitemap-papers-3.xml"),
        # One address a part: the first is the section's own.
        ("/sitemap-papers-1.xml", "/sitemap-papers.xml"),
    ],
)
def test_other_addresses_of_a_part_move_permanently_to_its_path(client, db, url, location):
    response = client.get(url)

    assert (response.status_code, response["Location"]) == (301, location)


@pytest.mark.parametrize(
    "url",
    [
        "/sitemap-papers.xml?p=0",
        "/sitemap-papers.xml?p=x",
        "/sitemap-papers-4.xml",
        "/sitemap-papers-0.xml",
        "/sitemap-papers-02.xml",
        "/sitemap-nothing.xml",
        "/sitemap-nothing-2.xml",
        "/sitemap-nothing.xml?p=2",
    ],
)
def test_a_missing_part_is_a_404(client, db, monkeypatch, url):
    monkeypatch.setattr(sitemaps._Sitemap, "limit", 4)
    conference = factories.conference()
    for _ in range(5):
        factories.paper(conference=conference)

    assert client.get(url).status_code == 404


def test_the_part_size_keeps_far_under_the_protocol_limits():
    # 50,000 URLs and 50 MB (sitemaps.org); a URL with its alternates is under 1 KB.
    assert sitemaps._Sitemap.limit == sitemaps.PART_URLS <= 50_000 // 25


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


@pytest.mark.parametrize(
    ("url", "count"),
    [
        # One query per section but the home page's, to count its URLs.
        ("/sitemap.xml", 7),
        ("/sitemap-home.xml", 0),
        ("/sitemap-venues.xml", 1),
        ("/sitemap-conferences.xml", 1),
        ("/sitemap-awards.xml", 1),
        ("/sitemap-award-series.xml", 1),
        ("/sitemap-award-kinds.xml", 1),
        ("/sitemap-papers.xml", 1),
        ("/sitemap-authors.xml", 1),
    ],
)
def test_sitemap_queries_do_not_grow_with_items(client, db, django_assert_num_queries, url, count):
    def get():
        with django_assert_num_queries(count):
            response = client.get(url)
        assert response.status_code == 200
        return len(ET.fromstring(response.content))

    def kind():  # an award kind of its own for each award
        return AwardKind.objects.create(slug=f"kind-{AwardKind.objects.count()}", name_en="K")

    award = factories.award(kind=kind())
    factories.award_entry(award, factories.paper(authors=[factories.author()]))
    one = get()
    for _ in range(4):
        award = factories.award(slug=f"prize-{award.pk}", kind=kind())
        factories.award_entry(award, factories.paper(authors=[factories.author()]))

    many = get()
    assert many > one or url in ("/sitemap.xml", "/sitemap-home.xml")


def test_sitemap_lists_the_index_pages_and_venues(icml, client):
    root = _sitemap(client)

    paths = {_path(loc.text) for loc in root.findall("s:url/s:loc", NS)}

    for language in ("en", "zh-hans"):
        pages = ("conferences/", "awards/", "authors/", "venues/", "venues/icml/", "open-data/")
        for page in pages:
            assert f"/{language}/{page}" in paths


def _lastmods(client, section):
    root = _xml(client, f"/sitemap-{section}.xml")
    return {
        _path(url.find("s:loc", NS).text): getattr(url.find("s:lastmod", NS), "text", None)
        for url in root.findall("s:url", NS)
    }


def test_sitemap_dates_each_page_by_its_objects_last_change(client, db):
    edited = factories.paper(authors=[factories.author(slug="ada")])
    untouched = factories.paper()
    award = factories.award(conference=edited.conference, slug="prize")
    factories.award_entry(award, edited)
    # A conference's version holds its awards' (reversion's follow): saved before the award.
    for obj, day in [(edited, 2), (edited, 9), (edited.conference, 3), (award, 4)]:
        with reversion.create_revision():
            reversion.set_date_created(datetime.datetime(2031, 6, day, 12, tzinfo=datetime.UTC))
            obj.save()
    conference = edited.conference.slug

    papers = _lastmods(client, "papers")
    awards = _lastmods(client, "awards")
    conferences = _lastmods(client, "conferences")

    assert papers[f"/en/papers/{edited.slug}/"] == "2031-06-09"
    assert papers[f"/zh-hans/papers/{edited.slug}/"] == "2031-06-09"
    assert papers[f"/en/papers/{untouched.slug}/"] is None
    assert awards[f"/en/conferences/{conference}/awards/prize/"] == "2031-06-04"
    assert conferences[f"/en/conferences/{conference}/"] == "2031-06-03"
    assert _lastmods(client, "authors")["/en/authors/ada/"] is None
