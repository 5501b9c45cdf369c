"""The JSON API under /api/v1/ (opendata/api/): content, languages, filters, pages,
errors, caching headers, CORS, the rate limit and query counts."""

import datetime
import gzip
import json
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext

from catalogue.models import PaperLink, Status
from tests import factories

API = "/api/v1"


def get(client, url, **headers):
    response = client.get(url, **headers)
    assert response["Content-Type"].startswith("application/json"), response.content
    return response, json.loads(response.content)


def _awarded_paper(**fields):
    """A published paper with two authors (the first with two affiliations), two links
    and a winner's entry in a published award of its own conference."""
    first, second = factories.author(orcid="0000-0002-1825-0097"), factories.author()
    institutions = [factories.institution(), factories.institution()]
    paper = factories.paper(
        authors=[first, second],
        links=[
            (PaperLink.Kind.ARXIV, "https://arxiv.org/abs/2501.00001"),
            (PaperLink.Kind.PMLR, "https://proceedings.mlr.press/v1/a.html"),
        ],
        **fields,
    )
    authorship = paper.authorships.get(author=first)
    authorship.set_affiliations(list(reversed(institutions)))
    award = factories.award(conference=paper.conference)
    factories.award_entry(award, paper, level="winner")
    return paper, award, [first, second], list(reversed(institutions))


# Content -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_paper_gives_authors_affiliations_links_and_awards_in_order(client):
    paper, award, (first, second), institutions = _awarded_paper()

    _response, data = get(client, f"{API}/papers/{paper.slug}")

    assert [a["author"]["slug"] for a in data["authors"]] == [first.slug, second.slug]
    assert [i["slug"] for i in data["authors"][0]["affiliations"]] == [
        institution.slug for institution in institutions
    ]
    assert data["authors"][0]["author"]["orcid"] == "0000-0002-1825-0097"
    assert [link["kind"] for link in data["links"]] == ["pmlr", "arxiv"]
    assert data["published_at"]["slug"] == paper.conference.slug
    assert [(a["award"]["slug"], a["level"]["slug"]) for a in data["awards"]] == [
        (award.slug, "winner")
    ]
    assert data["html"]["zh-hans"] == f"http://testserver/zh-hans/papers/{paper.slug}/"


@pytest.mark.django_db
def test_untranslated_field_is_null_never_the_english_copy(client):
    paper = factories.paper(title_zh_hans="", abstract_zh_hans="", summary_en="")

    _response, data = get(client, f"{API}/papers/{paper.slug}")

    assert data["title"] == {"en": paper.title_en, "zh-hans": None}
    assert data["abstract"] == {"en": paper.abstract_en, "zh-hans": None}
    assert data["summary"] == {"en": None, "zh-hans": None}


@pytest.mark.django_db
def test_only_published_content_is_given(client):
    shown, _award, _authors, _institutions = _awarded_paper()
    draft_conference = factories.conference(status=Status.DRAFT)
    hidden = [
        factories.paper(status=Status.DRAFT, authors=[factories.author()]),
        factories.paper(conference=draft_conference, authors=[factories.author()]),
    ]
    factories.award(status=Status.DRAFT, conference=shown.conference)

    _response, papers = get(client, f"{API}/papers")
    _response, authors = get(client, f"{API}/authors")
    _response, awards = get(client, f"{API}/awards")
    _response, conferences = get(client, f"{API}/conferences")

    assert [p["slug"] for p in papers["items"]] == [shown.slug]
    assert sorted(a["slug"] for a in authors["items"]) == sorted(
        a.author.slug for a in shown.authorships.all()
    )
    assert [a["conference"]["slug"] for a in awards["items"]] == [shown.conference.slug]
    assert draft_conference.slug not in [c["slug"] for c in conferences["items"]]
    for paper in hidden:
        assert client.get(f"{API}/papers/{paper.slug}").status_code == 404
        author = paper.authorships.get().author
        assert client.get(f"{API}/authors/{author.slug}").status_code == 404


@pytest.mark.django_db
def test_award_gives_levels_and_entries_top_level_first(client):
    award = factories.award()
    mention, winner = (
        factories.paper(conference=award.conference),
        factories.paper(conference=award.conference),
    )
    factories.award_entry(award, mention, level="honourable-mention")
    factories.award_entry(award, winner, level="winner")

    _response, data = get(client, f"{API}/awards/{award.conference.slug}/{award.slug}")

    assert [level["slug"] for level in data["levels"]] == ["winner", "honourable-mention"]
    assert [(e["paper"]["slug"], e["level"]) for e in data["entries"]] == [
        (winner.slug, "winner"),
        (mention.slug, "honourable-mention"),
    ]
    assert data["levels"][1]["name_plural"] == {"en": "Honourable mentions", "zh-hans": "荣誉提名"}


@pytest.mark.django_db
def test_award_gives_its_announcement_date_or_null(client):
    dated = factories.award(announced_on=datetime.date(2031, 7, 16))
    undated = factories.award()

    answers = [
        get(client, f"{API}/awards/{award.conference.slug}/{award.slug}")[1]["announced_on"]
        for award in (dated, undated)
    ]

    assert answers == ["2031-07-16", None]


@pytest.mark.django_db
def test_award_series_gathers_the_editions_of_a_venue_newest_first(client):
    venue = factories.venue()
    older = factories.award(
        slug="test-of-time", conference=factories.conference(venue=venue, year=1999)
    )
    newer = factories.award(
        slug="test-of-time", conference=factories.conference(venue=venue, year=2024)
    )

    _response, listed = get(client, f"{API}/award-series?venue={venue.slug}")
    _response, data = get(client, f"{API}/award-series/{venue.slug}/test-of-time")

    assert [(s["slug"], s["years"]) for s in listed["items"]] == [
        ("test-of-time", [newer.conference.year, older.conference.year])
    ]
    assert [e["conference"]["slug"] for e in data["editions"]] == [
        newer.conference.slug,
        older.conference.slug,
    ]


@pytest.mark.django_db
def test_author_gives_papers_and_awards(client):
    paper, award, (first, _second), _institutions = _awarded_paper()

    _response, data = get(client, f"{API}/authors/{first.slug}")

    assert [p["slug"] for p in data["papers"]] == [paper.slug]
    assert [(a["award"]["slug"], a["paper"]) for a in data["awards"]] == [(award.slug, paper.slug)]


@pytest.mark.django_db
def test_authors_carry_their_given_and_family_names(client):
    """As editors wrote them (not the guess "Abaigar"); a name cited whole has no given
    name; the author's own answer adds the suffix and the name in native script."""
    split = factories.author(
        name="Unai Fischer Abaigar Jr.",
        given_name="Unai",
        family_name="Fischer Abaigar",
        name_suffix="Jr.",
        native_name="ウナイ",
    )
    team = factories.author(name="OpenFict Team", given_name="", family_name="OpenFict Team")
    paper = factories.paper(authors=[split, team])

    _response, data = get(client, f"{API}/papers/{paper.slug}")
    _response, detail = get(client, f"{API}/authors/{split.slug}")

    names = [
        (a["author"]["name"], a["author"]["given_name"], a["author"]["family_name"])
        for a in data["authors"]
    ]
    assert names == [
        ("Unai Fischer Abaigar Jr.", "Unai", "Fischer Abaigar"),
        ("OpenFict Team", None, "OpenFict Team"),
    ]
    assert {key: detail[key] for key in ("given_name", "family_name", "name_suffix")} == {
        "given_name": "Unai",
        "family_name": "Fischer Abaigar",
        "name_suffix": "Jr.",
    }
    assert detail["native_name"] == "ウナイ"


@pytest.mark.django_db
def test_openapi_schema_documents_the_name_fields(client):
    _response, schema = get(client, f"{API}/openapi.json")

    schemas = schema["components"]["schemas"]
    for name in ("AuthorRef", "Author", "AuthorDetail"):
        properties = schemas[name]["properties"]
        assert "particles included" in properties["family_name"]["description"], name
        assert properties["given_name"]["description"].startswith("Given name(s)"), name
    assert schemas["AuthorDetail"]["properties"]["native_name"]["description"]


# Filters and pages ---------------------------------------------------------------


@pytest.mark.django_db
def test_paper_filters_combine(client):
    paper, award, (first, _second), _institutions = _awarded_paper()
    other = factories.paper(authors=[factories.author()])
    mention = factories.paper(conference=award.conference)
    factories.award_entry(award, mention, level="honourable-mention")

    def slugs(query):
        return [p["slug"] for p in get(client, f"{API}/papers?{query}")[1]["items"]]

    assert slugs(f"award={award.slug}") == sorted([paper.slug, mention.slug])
    assert slugs(f"award={award.slug}&level=winner") == [paper.slug]
    assert slugs(f"author={first.slug}") == [paper.slug]
    assert slugs("orcid=0000-0002-1825-0097") == [paper.slug]
    assert slugs(f"conference={other.conference.slug}") == [other.slug]
    assert slugs(f"year={other.conference.year}") == [other.slug]
    assert slugs(f"venue={other.conference.venue.slug}") == [other.slug]
    assert slugs("conference=no-such-conference") == []


@pytest.mark.django_db
def test_pages_link_their_neighbours_in_a_stable_order(client):
    conference = factories.conference()
    papers = [factories.paper(conference=conference, slug=f"p-{n}") for n in range(5)]

    _response, first = get(client, f"{API}/papers?per_page=2")
    _response, second = get(client, first["next"].removeprefix("http://testserver"))
    _response, last = get(client, f"{API}/papers?per_page=2&page=3")

    assert (first["count"], first["pages"], first["previous"]) == (5, 3, None)
    assert first["next"] == "http://testserver/api/v1/papers?per_page=2&page=2"
    assert second["previous"] == "http://testserver/api/v1/papers?per_page=2&page=1"
    assert [p["slug"] for p in first["items"] + second["items"] + last["items"]] == [
        paper.slug for paper in papers
    ]
    assert last["next"] is None


# Bad parameters -----------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("year=abc", "year"),
        ("year=99999999999999999999999999", "year"),
        ("page=0", "page"),
        ("page=99999999999999999999", "page"),
        ("per_page=100000", "per_page"),
        ("per_page=-1", "per_page"),
        ("conference=a%00b", "conference"),
        ("venue=" + "x" * 500, "venue"),
        ("orcid=0000-0000", "orcid"),
        ("award=%E2%82", "award"),
    ],
)
def test_bad_parameter_is_a_422_naming_it(client, query, parameter):
    response, data = get(client, f"{API}/papers?{query}")

    assert response.status_code == 422
    assert [error["parameter"] for error in data["errors"]] == [parameter]
    assert parameter in data["detail"]


@pytest.mark.django_db
def test_bad_path_slug_is_a_422_and_unknown_objects_404_in_json(client):
    response, data = get(client, f"{API}/papers/a%00b")
    assert (response.status_code, data["errors"][0]["parameter"]) == (422, "slug")

    response, data = get(client, f"{API}/papers/no-such-paper")
    assert (response.status_code, data) == (404, {"detail": 'No published paper "no-such-paper".'})

    response, data = get(client, f"{API}/papers?page=2")
    assert (response.status_code, data) == (
        404,
        {"detail": "page: there is no page 2; the last is 1."},
    )


# HTTP: caching, CORS, rate limit -------------------------------------------------


@pytest.mark.django_db
def test_answers_carry_an_etag_and_a_conditional_request_gets_304(client):
    paper = factories.paper()
    url = f"{API}/papers/{paper.slug}"

    response = client.get(url)
    again = client.get(url, HTTP_IF_NONE_MATCH=response["ETag"])

    assert response.status_code == 200 and response["ETag"]
    assert "public" in response["Cache-Control"]
    assert again.status_code == 304


@pytest.mark.django_db
def test_answers_are_cached_and_retired_on_a_change(client, settings):
    settings.PAGE_CACHE_ENABLED = True
    cache.clear()
    paper = factories.paper(title_en="Before")
    url = f"{API}/papers/{paper.slug}"
    assert get(client, url)[1]["title"]["en"] == "Before"

    paper.title_en = "After"
    paper.save()

    assert get(client, url)[1]["title"]["en"] == "After"
    cache.clear()


@pytest.mark.django_db
def test_answers_are_gzipped_for_clients_that_accept_it(client):
    response = client.get(f"{API}/", HTTP_ACCEPT_ENCODING="gzip")

    assert response["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(response.content))["version"] == "1"


@pytest.mark.django_db
def test_any_site_may_read_the_api_from_a_browser(client):
    response = client.get(f"{API}/", HTTP_ORIGIN="https://elsewhere.example")
    preflight = client.options(
        f"{API}/papers",
        HTTP_ORIGIN="https://elsewhere.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
    )

    assert response["Access-Control-Allow-Origin"] == "*"
    assert "ETag" in response["Access-Control-Expose-Headers"]
    assert preflight.status_code == 200
    assert preflight["Access-Control-Allow-Origin"] == "*"
    assert "GET" in preflight["Access-Control-Allow-Methods"]
    assert "POST" not in preflight["Access-Control-Allow-Methods"]


@pytest.mark.django_db
def test_pages_are_not_opened_to_other_sites(client):
    response = client.get("/en/", HTTP_ORIGIN="https://elsewhere.example")

    assert "Access-Control-Allow-Origin" not in response


@pytest.mark.django_db
def test_too_many_requests_from_one_address_get_a_json_429(client, settings):
    settings.API_RATE_LIMIT = "2/min"
    cache.clear()

    statuses = [client.get(f"{API}/venues").status_code for _ in range(3)]
    response, data = get(client, f"{API}/venues")

    assert statuses == [200, 200, 429]
    assert response.status_code == 429
    assert int(response["Retry-After"]) == data["retry_after"] >= 1
    assert "at most 2/min" in data["detail"]
    cache.clear()


class _DistantCache:
    """Django's cache with a network's round trip (a millisecond) before each call, as a
    Redis server shared by the app servers has: requests overlap as under real load."""

    def __init__(self, cache):
        self.cache = cache

    def __getattr__(self, name):
        method = getattr(self.cache, name)

        def call(*args, **kwargs):
            time.sleep(0.001)
            return method(*args, **kwargs)

        return call


def test_rate_limit_holds_under_64_concurrent_clients(settings, monkeypatch):
    """64 clients at one address ask at once, 4 times each: exactly the limit is let
    through. A count read and then written back (django-ninja's throttle) loses the
    requests that come in between: it let 126 of 120 through."""
    from opendata.api import AnonymousRateThrottle

    settings.API_RATE_LIMIT = "120/min"
    cache.clear()
    monkeypatch.setattr(AnonymousRateThrottle, "cache", _DistantCache(cache))
    throttle = AnonymousRateThrottle()
    throttle.timer = lambda: 1_800_000_030.0  # mid-minute: the window does not turn
    request = RequestFactory().get(f"{API}/venues", REMOTE_ADDR="203.0.113.5")
    start = threading.Barrier(64)

    def one_client(_number):
        start.wait()
        return [throttle.allow_request(request) for _ in range(4)]

    with ThreadPoolExecutor(max_workers=64) as pool:
        answers = [allowed for each in pool.map(one_client, range(64)) for allowed in each]

    assert (answers.count(True), answers.count(False)) == (120, 136)
    assert throttle.wait() == 30.0  # the seconds left of the minute
    cache.clear()


@pytest.mark.django_db
def test_tests_are_not_throttled_by_default(client):
    assert {client.get(f"{API}/").status_code for _ in range(30)} == {200}


# The schema and its documentation ---------------------------------------------------


@pytest.mark.django_db
def test_operation_ids_are_those_version_1_published(client):
    """Clients generated from the schema name their methods by operationId: moving the
    endpoints' module (papers.api -> opendata.api) must not rename them."""
    _response, schema = get(client, f"{API}/openapi.json")

    operation_ids = sorted(
        operation["operationId"] for path in schema["paths"].values() for operation in path.values()
    )
    assert operation_ids == sorted(
        f"papers_api_endpoints_{name}"
        for name in (
            "index",
            "venues",
            "venue",
            "conferences",
            "conference",
            "awards",
            "award",
            "award_series_list",
            "award_series",
            "papers",
            "paper",
            "authors",
            "author",
            "institutions",
            "institution",
        )
    )


@pytest.mark.django_db
def test_schema_documents_every_endpoint(client):
    _response, schema = get(client, f"{API}/openapi.json")

    assert sorted(schema["paths"]) == [
        "/api/v1/",
        "/api/v1/authors",
        "/api/v1/authors/{slug}",
        "/api/v1/award-series",
        "/api/v1/award-series/{venue}/{slug}",
        "/api/v1/awards",
        "/api/v1/awards/{conference}/{slug}",
        "/api/v1/conferences",
        "/api/v1/conferences/{slug}",
        "/api/v1/institutions",
        "/api/v1/institutions/{slug}",
        "/api/v1/papers",
        "/api/v1/papers/{slug}",
        "/api/v1/venues",
        "/api/v1/venues/{slug}",
    ]
    translated = schema["components"]["schemas"]["Translated"]
    assert sorted(translated["properties"]) == ["en", "zh-hans"]


@pytest.mark.django_db
def test_docs_page_loads_swagger_ui_from_our_static_files(client):
    response = client.get(f"{API}/docs")
    html = response.content.decode()

    assert response.status_code == 200
    assert '<script src="/static/ninja/swagger-ui-bundle.js">' in html
    # Every script and stylesheet from our own static files (no CDN).
    assets = re.findall(r'<script src="([^"]*)"|<link rel="stylesheet" href="([^"]*)"', html)
    assert {url[:8] for pair in assets for url in pair if url} == {"/static/"}
    # Directives and their sources in any order: django-csp keeps sources in sets.
    policy = {
        directive.split()[0]: set(directive.split()[1:])
        for directive in response["Content-Security-Policy"].split(";")
        if directive.strip()
    }
    assert policy["script-src"] == {"'self'"}
    assert policy["img-src"] == {"'self'", "data:"}


# Query counts: a literal number, the same with one item as with many ------------


def _many_awarded_papers(count):
    conference = factories.conference()
    for _ in range(count):
        _awarded_paper(conference=conference)


@pytest.mark.django_db
@pytest.mark.parametrize("count", [1, 4])
@pytest.mark.parametrize(
    ("url", "queries"),
    [
        ("/papers", 6),
        ("/awards", 5),
        ("/authors", 2),
        ("/institutions", 2),
        ("/conferences", 3),
        ("/venues", 3),
        ("/award-series", 1),
    ],
)
def test_lists_run_a_fixed_number_of_queries(
    client, django_assert_num_queries, count, url, queries
):
    _many_awarded_papers(count)

    with django_assert_num_queries(queries):
        response = client.get(f"{API}{url}")

    assert response.status_code == 200
    assert json.loads(response.content)["count"] >= 1


@pytest.mark.django_db
@pytest.mark.parametrize("count", [1, 4])
def test_details_run_a_fixed_number_of_queries(client, count):
    paper, award, (first, _second), _institutions = _awarded_paper()
    for _ in range(count - 1):
        more = factories.paper(conference=paper.conference, authors=[first, factories.author()])
        factories.award_entry(award, more, level="winner")
    conference, venue = paper.conference, paper.conference.venue
    urls = {
        f"/papers/{paper.slug}": 5,
        f"/awards/{conference.slug}/{award.slug}": 4,
        f"/award-series/{venue.slug}/{award.slug}": 4,
        f"/authors/{first.slug}": 3,
        f"/conferences/{conference.slug}": 2,
        f"/venues/{venue.slug}": 2,
    }
    counts = {}
    for url in urls:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"{API}{url}").status_code == 200, url
        counts[url] = len(queries)

    assert counts == urls


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/no-such-thing", "/api/v2/", "/api/v1/papers/a/b"])
def test_unknown_api_address_is_a_json_404(client, path):
    response, data = get(client, path)

    assert (response.status_code, data) == (404, {"detail": "No such API endpoint."})


@pytest.mark.django_db
def test_downloads_give_the_csv_and_compact_archives_that_are_served(client):
    paper, award, *_ = _awarded_paper()
    slug = paper.conference.slug

    _, index = get(client, f"{API}/")
    _, conference = get(client, f"{API}/conferences/{slug}")

    assert index["downloads"] == {
        "csv": "http://testserver/data/awardsite-csv.zip",
        "compact": "http://testserver/data/awardsite-compact.zip",
    }
    assert conference["downloads"] == {
        "csv": f"http://testserver/data/conferences/{slug}-csv.zip",
        "compact": f"http://testserver/data/conferences/{slug}-compact.zip",
    }
    for downloads in [index["downloads"], conference["downloads"]]:
        for url in downloads.values():
            response = client.get(url.removeprefix("http://testserver"))
            assert response.status_code == 200
            assert response["Content-Type"] == "application/zip"


@pytest.mark.parametrize("path", ["/", "/papers", "/papers/no-such-paper"])
def test_head_is_answered_as_get_without_a_body(client, db, path):
    got = client.get(API + path)
    head = client.head(API + path)

    assert head.status_code == got.status_code
    assert head["Content-Type"] == got["Content-Type"]
    assert head.content == b""


class _UnreachableCache:
    """A cache whose server is down: every call raises, as redis-py's client does."""

    def get(self, *args, **kwargs):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    set = add = incr = get


@pytest.mark.django_db
def test_the_api_answers_when_the_rate_limits_cache_is_down(client, settings, monkeypatch, caplog):
    from opendata.api import AnonymousRateThrottle

    settings.API_RATE_LIMIT = "2/min"
    monkeypatch.setattr(AnonymousRateThrottle, "cache", _UnreachableCache())

    statuses = [client.get(f"{API}/venues").status_code for _ in range(3)]

    assert statuses == [200, 200, 200]
    assert "could not count an API request in the cache" in caplog.text


@pytest.mark.django_db
def test_conferences_of_one_year_come_in_the_same_order_as_on_the_site(client):
    """A July and a December conference of one year, and one with no start date: the
    API lists them in the home page's order, the site's one order (the later start
    first, no date last). The API ordered by year and slug alone."""
    for slug, start in [
        ("a-july", datetime.date(2030, 7, 1)),
        ("b-undated", None),
        ("c-december", datetime.date(2030, 12, 1)),
    ]:
        conference = factories.conference(slug=slug, year=2030, start_date=start, end_date=None)
        factories.award(conference=conference)

    _response, answer = get(client, f"{API}/conferences?year=2030")
    home = client.get("/en/").context["conferences"]

    expected = ["c-december", "a-july", "b-undated"]
    assert [item["slug"] for item in answer["items"]] == expected
    assert [conference.slug for conference in home] == expected
