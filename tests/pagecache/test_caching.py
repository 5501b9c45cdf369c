"""The public page cache (pagecache/caching.py): what is cached, for whom, and invalidation
through the admin and through import_conference, on local memory and on Redis."""

import gzip
import io
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
import redis
import reversion
from csp.middleware import CSPMiddleware
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.core.management import call_command
from django.db import connection, transaction
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext, override_settings
from django.urls import path
from reversion.models import Version

from awardsite.release import fingerprint
from catalogue.models import ContentGeneration, Paper, Status
from editorial.roles import create_editor
from pagecache import caching
from pagecache.caching import forget_generation, is_storable, retire_cached_pages
from pages.distill import public
from pages.views import LIST_PAGE_SIZE
from tests import factories
from tests.editorial.test_admin import _change_url, _form_data
from tests.importing.test_importing import small_fixture, write
from tests.test_security_headers import assert_policies

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}
# A title long enough to be worth compressing, within the 400 characters a title holds
# (Paper.title: SQLite ignores the length, PostgreSQL refuses a longer value).
COMPRESSIBLE_TITLE = "A compressible title " * 18


@pytest.fixture(autouse=True)
def _page_cache(settings):
    """The page cache on, empty at the start of each test (the database is rolled back
    after each test, the content generation with it, the cache not)."""
    settings.PAGE_CACHE_ENABLED = True
    # Longer than any test, so that whether a hit reads the generation never depends on
    # the machine's speed: test_a_change_made_by_another_process_* moves the clock.
    settings.PAGE_CACHE_GENERATION_TTL = 3600
    caches["default"].clear()
    forget_generation()  # read again: the last test's number was rolled back
    yield
    caches["default"].clear()


@pytest.fixture
def editor_client(db):
    """An editor who may publish (the tests publish and unpublish)."""
    client = Client()
    editor = create_editor("editor", "editor@example.org", "a-long-passphrase", publisher=True)
    client.force_login(editor)
    return client


@pytest.fixture
def visitor():
    return Client()


def fetch(client, url, **headers):
    """GET ``url``; return (response, number of queries it ran)."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, **headers)
    return response, len(queries)


def text(response):
    body = response.content
    if response.get("Content-Encoding") == "gzip":
        body = gzip.decompress(body)
    return body.decode()


def cached_twice(client, url):
    """Fetch ``url`` twice; assert the second answer came from the cache (it ran no
    query: the content generation was read by the first); return the second response."""
    first, _ = fetch(client, url)
    second, queries = fetch(client, url)
    assert (first.status_code, second.status_code, queries) == (200, 200, 0)
    return second


# What is cached, and with which headers ------------------------------------------


@pytest.mark.django_db
def test_public_page_is_served_from_the_cache_with_etag_and_cache_control(visitor):
    paper = factories.paper()

    first, first_queries = fetch(visitor, paper.get_absolute_url())
    second, second_queries = fetch(visitor, paper.get_absolute_url())

    assert first_queries > 1
    assert second_queries == 0  # the content generation was read by the first
    assert second.content == first.content
    assert second["ETag"] == first["ETag"]
    assert second["Cache-Control"] == "public, max-age=0, s-maxage=60"
    assert second.cookies == {}
    assert "Cookie" not in second.get("Vary", "")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/en/",
        "/en/feeds/awards.atom",
        "/sitemap.xml",
        "/sitemap-papers.xml",
        "/robots.txt",
        "/en/search/?q=paper",
        "/en/papers/{paper}/cite.bib",
        "/en/conferences/{conference}/",
        "/en/conferences/{conference}/awards/{award}/",
        "/en/authors/{author}/",
    ],
)
def test_every_kind_of_public_page_is_cached(visitor, path):
    person = factories.author()
    paper = factories.paper(authors=[person])
    award = factories.award(conference=paper.conference)
    factories.award_entry(award, paper)
    url = path.format(
        paper=paper.slug, conference=paper.conference.slug, award=award.slug, author=person.slug
    )

    response = cached_twice(visitor, url)

    assert response["Cache-Control"] == "public, max-age=0, s-maxage=60"


def test_the_cache_reads_which_routes_are_public_from_the_urlconf():
    """The registry (pages/distill.py) marks every public route, published or not."""
    names = caching.public_view_names("awardsite.urls")

    assert {"papers:search", "papers:paper-detail", "api-v1:paper", "robots-txt"} <= names
    assert {"sitemap-section-page", "opendata-conference-csv"} <= names
    assert "set_language" not in names
    assert not [name for name in names if name.startswith("admin:")]


RENDERED = []


def _page(request):
    RENDERED.append(request.path)
    return HttpResponse("the same page for everyone")


# A URLconf with one route marked public and the same view unmarked.
urlpatterns = [
    public(path("marked/", _page, name="marked")),
    path("unmarked/", _page, name="unmarked"),
]


@pytest.mark.django_db
@override_settings(ROOT_URLCONF=__name__)
def test_only_a_route_marked_public_is_stored(visitor):
    RENDERED.clear()
    cached_twice(visitor, "/marked/")
    visitor.get("/unmarked/")
    again = visitor.get("/unmarked/")

    assert RENDERED == ["/marked/", "/unmarked/", "/unmarked/"]
    assert again.status_code == 200
    assert "public" not in again.get("Cache-Control", "")


@pytest.mark.django_db
def test_a_sitemap_part_past_the_first_is_cached(visitor, monkeypatch):
    from pages import sitemaps

    factories.paper()
    factories.paper()
    monkeypatch.setattr(sitemaps._Sitemap, "limit", 1)

    response = cached_twice(visitor, "/sitemap-papers-2.xml")

    assert response["Cache-Control"] == "public, max-age=0, s-maxage=60"


def read_streamed(response):
    """The body of ``response``, whole or streamed (read to its end), unzipped."""
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return gzip.decompress(body) if response.get("Content-Encoding") == "gzip" else body


@pytest.mark.django_db
def test_a_streamed_download_is_tagged_and_shows_a_change_on_the_next_request(visitor):
    """A conference's citation download is streamed (bounded memory for any size): sent
    with the public Cache-Control, never stored, so a change shows at once."""
    paper = factories.paper(title_en="Before the change")
    url = f"/en/conferences/{paper.conference.slug}/cite.bib"
    before = visitor.get(url, **GZIP)
    assert b"Before the change" in read_streamed(before)

    Paper.objects.filter(pk=paper.pk).update(title_en="After the change")
    after = visitor.get(url, **GZIP)

    assert after.streaming
    assert b"After the change" in read_streamed(after)
    assert after["Cache-Control"] == "public, max-age=0, s-maxage=60"
    assert after["Content-Encoding"] == "gzip"


@pytest.mark.django_db
def test_the_gzip_etag_is_the_same_for_every_rendering(visitor):
    """Gzip's header holds random bytes, so an ETag taken after gzip would differ with
    each rendering (each worker's own cache) and a browser would rarely get a 304."""
    factories.paper(title_en=COMPRESSIBLE_TITLE)
    etags = set()
    for _ in range(4):
        caches["default"].clear()
        response = visitor.get("/en/search/?q=compressible", **GZIP)
        assert response["Content-Encoding"] == "gzip"
        etags.add(response["ETag"])

    assert len(etags) == 1
    assert etags.pop().startswith('W/"')


@pytest.mark.django_db
def test_pages_stored_by_another_release_are_not_served(visitor, monkeypatch):
    """A deploy (new code, templates or static files) with a shared cache: the pages the
    old release stored name its static files, so the new one renders its own."""
    visitor.get("/en/")
    monkeypatch.setattr(caching, "release", lambda: "another-release")

    response, queries = fetch(visitor, "/en/")

    assert queries > 0  # rendered: a hit runs none


def test_the_release_is_the_fingerprint_and_read_once():
    assert caching.release() == fingerprint()[:12]
    assert caching.release.cache_info().currsize == 1


@pytest.mark.django_db
def test_conditional_request_gets_304(visitor):
    etag = visitor.get("/en/")["ETag"]

    response, queries = fetch(visitor, "/en/", HTTP_IF_NONE_MATCH=etag)

    assert (response.status_code, response.content, queries) == (304, b"", 0)


@pytest.mark.django_db
def test_a_page_from_the_cache_carries_the_security_headers(visitor):
    """The CSP, Permissions-Policy and SecurityMiddleware's headers are stored with the
    page (those middleware sit inside the cache) and come back with every hit."""
    first = visitor.get("/en/")

    hit, queries = fetch(visitor, "/en/")

    assert queries == 0
    assert_policies(hit)
    names = ["Content-Security-Policy", "Permissions-Policy"]
    names += ["X-Content-Type-Options", "Referrer-Policy", "Cross-Origin-Opener-Policy"]
    assert {name: hit.get(name) for name in names} == {name: first[name] for name in names}


@pytest.mark.django_db
def test_plain_http_is_redirected_to_https_even_when_the_page_is_cached(visitor, settings):
    """The HTTPS redirect and HSTS come from SecurityMiddleware, inside the cache: the
    scheme is part of the key, so an HTTPS page is never answered to plain HTTP."""
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 3600
    secure = cached_twice_over_https(visitor, "/en/")

    plain = visitor.get("/en/")

    assert secure["Strict-Transport-Security"] == "max-age=3600"
    assert (plain.status_code, plain["Location"]) == (301, "https://testserver/en/")
    assert "Strict-Transport-Security" not in plain


def cached_twice_over_https(client, url):
    """``cached_twice`` over HTTPS."""
    client.get(url, secure=True)
    response, queries = fetch(client, url, secure=True)
    assert (response.status_code, queries) == (200, 0)
    return response


@pytest.mark.django_db
def test_gzip_is_cached_apart_from_identity_and_304_matches_it(visitor):
    factories.paper(title_en=COMPRESSIBLE_TITLE)
    plain = visitor.get("/en/search/?q=compressible")
    packed = visitor.get("/en/search/?q=compressible", **GZIP)
    again, queries = fetch(visitor, "/en/search/?q=compressible", **GZIP)

    assert plain.get("Content-Encoding") is None
    assert (packed["Content-Encoding"], again["Content-Encoding"], queries) == ("gzip", "gzip", 0)
    assert text(packed) == plain.content.decode()
    assert "Accept-Encoding" in packed["Vary"]
    assert packed["ETag"] == f"W/{plain['ETag']}"  # one body, gzipped or not
    revalidated = visitor.get(
        "/en/search/?q=compressible", HTTP_IF_NONE_MATCH=packed["ETag"], **GZIP
    )
    assert revalidated.status_code == 304


@pytest.mark.django_db
def test_each_language_and_query_string_is_cached_apart(visitor):
    factories.paper(title_en="Gradient descent", title_zh_hans="梯度下降")
    factories.paper(title_en="Attention", title_zh_hans="注意力")
    urls = ["/en/search/?q=gradient", "/zh-hans/search/?q=gradient", "/en/search/?q=attention"]
    for url in urls:
        visitor.get(url)

    pages = [text(cached_twice(visitor, url)) for url in urls]

    assert '<html lang="en">' in pages[0] and "Gradient descent" in pages[0]
    assert '<html lang="zh-hans">' in pages[1] and "梯度下降" in pages[1]
    assert "Attention" in pages[2] and "Gradient descent" not in pages[2]


def check_page_two(visitor):
    """Page 2 of a conference's papers (its own path, page/2/) is cached apart from
    page 1, and a change to a paper on it shows on the next request."""
    conference = factories.conference()
    papers = [
        factories.paper(conference=conference, title_en=f"Paper {n:03d}")
        for n in range(LIST_PAGE_SIZE + 1)
    ]
    first_url = conference.get_absolute_url()
    second_url = f"{first_url}page/2/"

    first, second = cached_twice(visitor, first_url), cached_twice(visitor, second_url)
    last = papers[-1]
    last.title_en = "Paper 999, edited"
    last.save()
    edited, queries = fetch(visitor, second_url)

    assert "Paper 050" in text(second) and "Paper 050" not in text(first)
    assert queries > 1
    assert "Paper 999, edited" in text(edited) and "Paper 050" not in text(edited)
    assert "Paper 999, edited" in text(cached_twice(visitor, second_url))


@pytest.mark.django_db
def test_page_two_of_a_list_is_cached_apart_and_retired_by_a_change(visitor):
    check_page_two(visitor)


# Who is never served from the cache ------------------------------------------------


def _stale_behind_the_cache(paper):
    """Change ``paper``'s title without any signal (a raw UPDATE), so a cached page
    keeps the old title: whoever sees the new one was not served from the cache."""
    Paper.objects.filter(pk=paper.pk).update(title_en="Changed behind the cache")


@pytest.mark.django_db
def test_staff_are_never_served_from_the_cache(visitor, editor_client):
    paper = factories.paper(title_en="Old title")
    cached_twice(visitor, paper.get_absolute_url())
    _stale_behind_the_cache(paper)

    staff_page = editor_client.get(paper.get_absolute_url())

    assert "Changed behind the cache" in staff_page.content.decode()
    assert "Old title" in visitor.get(paper.get_absolute_url()).content.decode()
    assert "public" not in staff_page.get("Cache-Control", "")


@pytest.mark.django_db
def test_staff_pages_are_never_stored(visitor, editor_client):
    paper = factories.paper(title_en="Old title")
    editor_client.get(paper.get_absolute_url())

    _response, queries = fetch(visitor, paper.get_absolute_url())

    assert queries > 1


@pytest.mark.django_db
def test_preview_is_never_cached(visitor, editor_client):
    paper = factories.paper(status=Status.DRAFT, title_en="Draft title")
    url = f"{paper.get_absolute_url()}?preview=1"
    editor_client.get(url)
    visitor_page, _ = fetch(visitor, url)
    assert visitor_page.status_code == 404

    preview, queries = fetch(editor_client, url)

    assert preview.status_code == 200
    assert "Draft title" in preview.content.decode()
    assert {"private", "no-store"} <= set(preview["Cache-Control"].split(", "))
    Paper.objects.filter(pk=paper.pk).update(status=Status.PUBLISHED)
    public_preview, public_queries = fetch(visitor, url)
    assert public_preview.status_code == 200
    assert public_queries > 1
    assert "public" not in public_preview.get("Cache-Control", "")


@pytest.mark.django_db
def test_an_anonymous_preview_is_never_stored_and_finds_no_page(visitor):
    paper = factories.paper(title_en="Old title")
    url = f"{paper.get_absolute_url()}?preview=1"
    visitor.get(url)
    _stale_behind_the_cache(paper)

    again, queries = fetch(visitor, url)

    assert "Old title" not in again.content.decode()
    assert queries > 1
    assert "public" not in again.get("Cache-Control", "")


@pytest.mark.django_db
def test_post_is_never_served_from_the_cache(visitor):
    cached_twice(visitor, "/en/")

    response = visitor.post("/en/")

    assert response.status_code == 405


@pytest.mark.django_db
def test_the_admin_is_never_cached(visitor):
    login = visitor.get("/admin/login/", **GZIP)
    again = visitor.get("/admin/login/", **GZIP)

    assert "public" not in login.get("Cache-Control", "")
    assert login.get("Content-Encoding") is None  # pages with CSRF tokens: no BREACH
    assert "csrfmiddlewaretoken" in again.content.decode()
    assert again.cookies["csrftoken"].value  # rendered for this request, not stored


@pytest.mark.django_db
@pytest.mark.parametrize("cookie", ["sessionid", "messages"])
def test_a_visitor_with_a_session_or_messages_cookie_is_not_served_from_the_cache(visitor, cookie):
    paper = factories.paper(title_en="Old title")
    cached_twice(visitor, paper.get_absolute_url())
    _stale_behind_the_cache(paper)
    visitor.cookies[cookie] = "pending"

    page = visitor.get(paper.get_absolute_url())

    assert "Changed behind the cache" in page.content.decode()


def _through_csp(request, response, use_nonce):
    """Pass ``request`` and ``response`` through django-csp's middleware, as a view that
    used ``request.csp_nonce`` in its template (``use_nonce``) or not."""
    middleware = CSPMiddleware(lambda request: response)
    middleware.process_request(request)
    if use_nonce:
        str(request.csp_nonce)
    middleware.process_response(request, response)


@pytest.mark.parametrize(
    ("change", "storable"),
    [
        (lambda request, response: None, True),
        (lambda request, response: response.set_cookie("language", "en"), False),
        (lambda request, response: response.__setitem__("Vary", "Cookie"), False),
        (lambda request, response: response.__setitem__("Cache-Control", "private"), False),
        (lambda request, response: request.META.update(CSRF_COOKIE_NEEDS_UPDATE=True), False),
        (lambda request, response: setattr(response, "status_code", 404), False),
        (lambda request, response: _through_csp(request, response, use_nonce=False), True),
        (lambda request, response: _through_csp(request, response, use_nonce=True), False),
    ],
)
def test_only_responses_with_nothing_personal_are_storable(change, storable):
    request = RequestFactory().get("/en/")
    response = HttpResponse("page")
    change(request, response)

    assert is_storable(request, response) is storable


# Invalidation: a change shows on the next request ----------------------------------


def check_admin_invalidation(visitor, editor_client):
    """Cache pages, then change them through the admin: save, publish action, delete,
    history restore; after each, the next anonymous request shows the change."""
    paper = factories.paper(title_en="Before the edit")
    with reversion.create_revision():  # the first version in the history
        paper.save()
    award = factories.award(conference=paper.conference, status=Status.DRAFT)
    factories.award_entry(award, paper)
    conference_url = paper.conference.get_absolute_url()
    assert "Before the edit" in text(cached_twice(visitor, paper.get_absolute_url()))
    assert award.name_en not in text(cached_twice(visitor, conference_url))

    # A save through the change form (reversion keeps a version of it).
    data = _form_data(editor_client.get(_change_url(paper)))
    data["title_en"] = "After the edit"
    assert editor_client.post(_change_url(paper), data).status_code == 302
    assert "After the edit" in text(visitor.get(paper.get_absolute_url()))

    # The publish action of the award changelist.
    published = editor_client.post(
        "/admin/papers/award/", {"action": "publish", "_selected_action": [award.pk]}
    )
    assert published.status_code == 302
    assert award.name_en in text(visitor.get(conference_url))

    # Restoring the older version from the history.
    cached_twice(visitor, paper.get_absolute_url())
    oldest = Version.objects.get_for_object(paper).last()
    restore_url = f"/admin/papers/paper/{paper.pk}/history/{oldest.pk}/"
    data = _form_data(editor_client.get(restore_url))
    assert editor_client.post(restore_url, data).status_code == 302
    assert "Before the edit" in text(visitor.get(paper.get_absolute_url()))

    # Deleting the paper, then recovering it from the history.
    cached_twice(visitor, paper.get_absolute_url())
    deleted = editor_client.post(f"/admin/papers/paper/{paper.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 302
    assert visitor.get(paper.get_absolute_url()).status_code == 404
    recover_url = f"/admin/papers/paper/recover/{Version.objects.get_deleted(Paper).get().pk}/"
    data = _form_data(editor_client.get(recover_url))
    assert editor_client.post(recover_url, data).status_code == 302
    assert "Before the edit" in text(visitor.get(paper.get_absolute_url()))


def check_import_invalidation(visitor, tmp_path):
    """Cache a page, re-import its conference with a new title: the next request shows it."""
    objects = small_fixture()
    call_command("import_conference", str(write(tmp_path, objects)), stdout=io.StringIO())
    url = Paper.objects.get(slug="p1").get_absolute_url()
    assert "Paper One" in text(cached_twice(visitor, url))
    before = ContentGeneration.objects.current()

    paper = next(item for item in objects if item["model"] == "papers.paper")
    paper["fields"]["title_en"] = "Paper One, revised"
    call_command("import_conference", str(write(tmp_path, objects)), stdout=io.StringIO())

    assert ContentGeneration.objects.current() == before + 1
    assert "Paper One, revised" in text(visitor.get(url))


@pytest.mark.django_db
def test_admin_changes_show_on_the_next_request(visitor, editor_client):
    check_admin_invalidation(visitor, editor_client)


@pytest.mark.django_db
def test_import_shows_on_the_next_request(visitor, tmp_path):
    check_import_invalidation(visitor, tmp_path)


@pytest.mark.django_db
def test_an_import_that_changes_nothing_keeps_the_cache(tmp_path):
    path = write(tmp_path, small_fixture())
    call_command("import_conference", str(path), stdout=io.StringIO())
    before = ContentGeneration.objects.current()

    call_command("import_conference", str(path), stdout=io.StringIO())

    assert ContentGeneration.objects.current() == before


@pytest.mark.django_db
def test_changes_to_many_to_many_fields_raise_the_generation():
    authorship_paper = factories.paper(authors=[factories.author()])
    authorship = authorship_paper.authorships.get()
    before = ContentGeneration.objects.current()

    authorship.affiliations.add(factories.institution())

    # The institution's own save raises it once; adding it to the authorship, again.
    assert ContentGeneration.objects.current() >= before + 2


@pytest.mark.django_db
def test_a_change_made_by_another_process_shows_once_the_generation_is_read_again(
    visitor, settings, monkeypatch
):
    """A process reads the content generation at most once every
    ``PAGE_CACHE_GENERATION_TTL`` seconds: a change another process committed (here, a
    bulk update and the number it raised, with no signal in this process) is served
    from the cache until then, and rendered afresh after."""
    paper = factories.paper(title_en="Before the edit")
    url = paper.get_absolute_url()
    cached_twice(visitor, url)
    Paper.objects.filter(pk=paper.pk).update(title_en="After the edit")
    ContentGeneration.objects.advance()

    within, within_queries = fetch(visitor, url)
    later = time.monotonic() + settings.PAGE_CACHE_GENERATION_TTL
    monkeypatch.setattr(caching.time, "monotonic", lambda: later)
    after, after_queries = fetch(visitor, url)

    assert ("Before the edit" in text(within), within_queries) == (True, 0)
    assert "After the edit" in text(after)
    assert after_queries > 1


@pytest.mark.django_db
def test_the_generation_row_is_made_again_when_missing():
    ContentGeneration.objects.all().delete()

    factories.venue()

    assert ContentGeneration.objects.current() == 1


# Redis (Django's RedisCache), as several app servers share it --------------------


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def redis_url():
    """A Debian redis-server on a free local port, for this module's tests; stopped after."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed (make test installs Debian's redis-server)")
    port = _free_port()
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def on_redis(settings, redis_url):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": "awardsite-tests",
            "OPTIONS": settings.REDIS_CACHE_OPTIONS,  # as awardsite/settings.py sets them
        }
    }
    caches["default"].clear()
    yield
    caches["default"].clear()


@pytest.mark.django_db
def test_redis_stores_the_pages(on_redis, redis_url, visitor):
    paper = factories.paper()

    cached_twice(visitor, paper.get_absolute_url())

    assert type(caches["default"]) is RedisCache
    with redis.Redis.from_url(redis_url) as admin:
        assert admin.dbsize() >= 1


@pytest.mark.django_db
def test_on_redis_a_hit_answers_the_headers_and_body_of_the_page_it_stored(on_redis, visitor):
    paper = factories.paper(title_en=COMPRESSIBLE_TITLE)
    for client in (visitor, Client(**GZIP)):
        first, _ = fetch(client, paper.get_absolute_url())
        second, queries = fetch(client, paper.get_absolute_url())

        assert queries == 0
        # Gzip's header holds a random file name (against BREACH): a new length each time.
        headers = [dict(response.items()) for response in (first, second)]
        for response_headers in headers:
            response_headers.pop("Content-Length")
        assert headers[1] == headers[0]
        assert text(second) == text(first)


@pytest.mark.django_db
def test_on_redis_a_connection_closed_by_redis_is_opened_again(
    on_redis, redis_url, visitor, caplog
):
    """When Redis closes its clients' connections (a restart, its idle timeout), the
    next page is still served from the cache, with nothing logged."""
    paper = factories.paper()
    cached_twice(visitor, paper.get_absolute_url())
    with redis.Redis.from_url(redis_url) as admin:
        assert admin.client_kill_filter(_type="normal", skipme=True) >= 1

    page, queries = fetch(visitor, paper.get_absolute_url())

    assert (page.status_code, queries, caplog.records) == (200, 0, [])


@pytest.mark.django_db
def test_with_redis_down_pages_are_served_uncached(visitor, caplog):
    """No Redis listening: each page is rendered and served, and the error is logged,
    never a 500."""
    paper = factories.paper(title_en="Served anyway")
    down = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": f"redis://127.0.0.1:{_free_port()}/0",
    }

    with override_settings(CACHES={"default": down}):  # undone before the cache is cleared
        pages = [visitor.get(paper.get_absolute_url()) for _attempt in range(2)]

    assert [page.status_code for page in pages] == [200, 200]
    assert all("Served anyway" in text(page) for page in pages)
    # The page cache's records (a paper page's cite panel logs its own cache's failure).
    records = [r for r in caplog.records if r.name == caching.logger.name]
    assert [(r.getMessage(), bool(r.exc_info)) for r in records] == [
        ("could not read a page from the cache", True)
    ] * 2


@pytest.mark.django_db(transaction=True)
def test_on_redis_a_change_made_during_an_outage_shows_when_redis_answers_again(
    on_redis, visitor, editor_client
):
    """An editor's change is saved while Redis is down; once Redis answers again, the
    page it had cached from before the change is not served."""
    paper = factories.paper(title_en="Before the edit")
    cached_twice(visitor, paper.get_absolute_url())
    down = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": f"redis://127.0.0.1:{_free_port()}/0",
    }
    with override_settings(CACHES={"default": down}):
        data = _form_data(editor_client.get(_change_url(paper)))
        data["title_en"] = "After the edit"
        assert editor_client.post(_change_url(paper), data).status_code == 302

    assert "After the edit" in text(visitor.get(paper.get_absolute_url()))
    assert "After the edit" in text(cached_twice(visitor, paper.get_absolute_url()))


@pytest.mark.django_db
def test_with_redis_hung_a_page_waits_about_the_timeout_not_redis_pys_default(
    settings, visitor, caplog
):
    """A Redis that accepts connections and never answers (a stopped process, a lost
    network path): the page waits DJANGO_REDIS_TIMEOUT (0.5 s) per attempt, then is
    rendered and served, and the error is logged. With redis-py's own defaults (5 s per
    attempt, retried) the page took about 11 s; the alarm stops it at 4 s."""
    paper = factories.paper(title_en="Served after the wait")
    hung = socket.create_server(("127.0.0.1", 0))  # the kernel completes connections; no reply
    hung_cache = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": f"redis://127.0.0.1:{hung.getsockname()[1]}/0",
        "OPTIONS": settings.REDIS_CACHE_OPTIONS,
    }

    class StillWaiting(BaseException):  # not an Exception: the page cache catches those
        pass

    def give_up(_signum, _frame):
        raise StillWaiting("the page still waits for Redis after 4 s")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(4)
    try:
        with hung, override_settings(CACHES={"default": hung_cache}):
            page = visitor.get(paper.get_absolute_url())
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)

    assert page.status_code == 200
    assert "Served after the wait" in text(page)
    assert caplog.records[0].getMessage().startswith("could not read a page from the cache")


def test_redis_timeout_is_read_from_the_environment():
    """DJANGO_REDIS_TIMEOUT (seconds) sets redis-py's connect and read timeouts of the
    cache; anything but a number above 0 and at most 60 stops the start."""
    code = "import awardsite.settings as s; print(s.CACHES['default']['OPTIONS'])"
    environment = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_INSECURE_DEV": "true",
        "REDIS_URL": "redis://cache.internal:6379/0",
    }

    def start(**extra):
        return subprocess.run(
            [sys.executable, "-c", code],
            env={**environment, **extra},
            capture_output=True,
            text=True,
        )

    default, chosen, refused = (
        start(),
        start(DJANGO_REDIS_TIMEOUT="2.5"),
        start(DJANGO_REDIS_TIMEOUT="0"),
    )

    assert default.stdout.strip() == "{'socket_connect_timeout': 0.5, 'socket_timeout': 0.5}"
    assert chosen.stdout.strip() == "{'socket_connect_timeout': 2.5, 'socket_timeout': 2.5}"
    assert refused.returncode != 0
    assert "DJANGO_REDIS_TIMEOUT must be a number of seconds" in refused.stderr


@pytest.mark.django_db(transaction=True)
def test_a_change_rolled_back_keeps_the_cached_pages_and_a_commit_retires_them(on_redis, visitor):
    paper = factories.paper()
    cached_twice(visitor, paper.get_absolute_url())
    before = ContentGeneration.objects.current()

    with pytest.raises(RuntimeError), transaction.atomic():
        retire_cached_pages()
        raise RuntimeError("rolled back")
    _page, rolled_back_queries = fetch(visitor, paper.get_absolute_url())
    with transaction.atomic():
        retire_cached_pages()
    _page, committed_queries = fetch(visitor, paper.get_absolute_url())

    assert rolled_back_queries == 1
    assert committed_queries > 1
    assert ContentGeneration.objects.current() == before + 1


# The Redis tests of changes commit them (transaction=True), as a real request does:
# Redis keeps its pages when the test's transaction is rolled back.
@pytest.mark.django_db(transaction=True)
def test_page_two_of_a_list_is_cached_and_retired_on_redis(on_redis, visitor):
    check_page_two(visitor)


@pytest.mark.django_db(transaction=True)
def test_admin_changes_show_on_the_next_request_on_redis(on_redis, visitor, editor_client):
    check_admin_invalidation(visitor, editor_client)


@pytest.mark.django_db(transaction=True)
def test_import_shows_on_the_next_request_on_redis(on_redis, visitor, tmp_path):
    check_import_invalidation(visitor, tmp_path)


def _served(live_server, path):
    """The text of ``path`` as the live server answers an anonymous visitor."""
    with urllib.request.urlopen(f"{live_server.url}{path}", timeout=30) as answer:  # nosec B310
        return answer.read().decode()


@pytest.mark.django_db(transaction=True)
def test_two_servers_sharing_redis_see_each_others_changes_at_once(
    on_redis, live_server, visitor, editor_client
):
    """The live server (a thread with its own database connection and Redis client) and
    the test client are two app servers sharing one Redis: a page one of them cached is
    served by the other from the cache, and an admin change made on one shows on the
    other's next request."""
    paper = factories.paper(title_en="Before the edit")
    url = paper.get_absolute_url()
    host = live_server.url.removeprefix("http://")  # the same host: the same cache key
    assert "Before the edit" in _served(live_server, url)  # cached by the live server
    served_here, queries = fetch(visitor, url, HTTP_HOST=host)
    assert ("Before the edit" in text(served_here), queries) == (True, 0)

    data = _form_data(editor_client.get(_change_url(paper)))
    data["title_en"] = "After the edit"
    assert editor_client.post(_change_url(paper), data).status_code == 302

    assert "After the edit" in _served(live_server, url)
    assert "After the edit" in text(fetch(visitor, url, HTTP_HOST=host)[0])


@pytest.mark.django_db
def test_with_the_cache_off_public_pages_are_still_gzipped_and_tagged(settings, visitor):
    settings.PAGE_CACHE_ENABLED = False
    factories.paper(title_en=COMPRESSIBLE_TITLE)

    first, _ = fetch(visitor, "/en/search/?q=compressible", **GZIP)
    second, queries = fetch(visitor, "/en/search/?q=compressible", **GZIP)

    assert queries > 1
    assert (first["Content-Encoding"], second["Cache-Control"]) == (
        "gzip",
        "public, max-age=0, s-maxage=60",
    )
    assert text(second) == text(first)


@pytest.mark.django_db
def test_a_page_with_its_own_policy_keeps_it_from_the_cache(visitor):
    """The API's documentation page widens the CSP with django-csp's decorator (data:
    images for Swagger UI): its copy from the cache is sent with the same policy."""
    first = visitor.get("/api/v1/docs")

    hit = cached_twice(visitor, "/api/v1/docs")

    assert "img-src 'self' data:" in first["Content-Security-Policy"]
    assert hit["Content-Security-Policy"] == first["Content-Security-Policy"]
