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
from django.core.management import call_command
from django.core.signals import request_finished
from django.db import close_old_connections, connection, transaction
from django.db.models import F
from django.http import BadHeaderError, HttpResponse, StreamingHttpResponse
from django.middleware.gzip import GZipMiddleware
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext, override_settings
from reversion.models import Version

from catalogue.models import ContentGeneration, Paper, Status
from editorial.roles import create_editor
from pagecache import caching
from pagecache.caching import (
    GENERATION_KEY,
    bump_content_generation,
    content_generation,
    is_shared_cache,
    is_storable,
)
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
    caches["default"].clear()
    yield
    caches["default"].clear()


@pytest.fixture
def editor_client(db):
    client = Client()
    client.force_login(create_editor("editor", "editor@example.org", "a-long-passphrase"))
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
    """Fetch ``url`` twice; assert the second answer came from the cache (no query on a
    shared cache, which holds the content generation; on local memory only the content
    generation was read); return the second response."""
    first, _ = fetch(client, url)
    second, queries = fetch(client, url)
    hit_queries = 0 if is_shared_cache() else 1
    assert (first.status_code, second.status_code, queries) == (200, 200, hit_queries)
    return second


# What is cached, and with which headers ------------------------------------------


@pytest.mark.django_db
def test_public_page_is_served_from_the_cache_with_etag_and_cache_control(visitor):
    paper = factories.paper()

    first, first_queries = fetch(visitor, paper.get_absolute_url())
    second, second_queries = fetch(visitor, paper.get_absolute_url())

    assert first_queries > 1
    assert second_queries == 1  # the content generation, nothing else
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


@pytest.mark.django_db
def test_a_sitemap_part_past_the_first_is_cached(visitor, monkeypatch):
    from pages import sitemaps

    factories.paper()
    factories.paper()
    monkeypatch.setattr(sitemaps.PaperSitemap, "limit", 1)

    response = cached_twice(visitor, "/sitemap-papers-2.xml")

    assert response["Cache-Control"] == "public, max-age=0, s-maxage=60"


def read_streamed(response):
    """The body of ``response``, whole or streamed (read to its end), unzipped."""
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return gzip.decompress(body) if response.get("Content-Encoding") == "gzip" else body


@pytest.mark.django_db
@pytest.mark.parametrize("headers", [{}, GZIP])
def test_a_streamed_citation_download_is_stored_once_sent_and_tagged(visitor, headers):
    """A conference's citation download is streamed (bounded memory for any size); once a
    visitor has read it to the end it is in the cache, and answered from there with the
    same body, an ETag that a conditional request matches, and Cache-Control."""
    paper = factories.paper(title_en=COMPRESSIBLE_TITLE)
    url = f"/en/conferences/{paper.conference.slug}/cite.bib"

    first, _ = fetch(visitor, url, **headers)
    body = read_streamed(first)
    second, queries = fetch(visitor, url, **headers)
    revalidated, _ = fetch(visitor, url, HTTP_IF_NONE_MATCH=first["ETag"], **headers)

    assert first.streaming and not second.streaming
    assert COMPRESSIBLE_TITLE.strip().encode() in body
    assert (read_streamed(second), queries) == (body, 0 if is_shared_cache() else 1)
    assert second["ETag"] == first["ETag"]
    assert first["ETag"].startswith('W/"')
    assert second["Content-Length"] == str(len(second.content))
    assert second.get("Content-Encoding") == first.get("Content-Encoding")
    assert second["Cache-Control"] == first["Cache-Control"] == "public, max-age=0, s-maxage=60"
    assert revalidated.status_code == 304


@pytest.mark.django_db
def test_a_conditional_request_for_a_streamed_download_gets_304_before_it_is_stored(visitor):
    paper = factories.paper()
    url = f"/en/conferences/{paper.conference.slug}/cite.bib"
    etag = visitor.get(url)["ETag"]  # not read: nothing stored

    response, _ = fetch(visitor, url, HTTP_IF_NONE_MATCH=etag)

    assert (response.status_code, response.content) == (304, b"")


@pytest.mark.django_db
def test_a_streamed_download_shows_a_change_on_the_next_request(visitor):
    paper = factories.paper(title_en="Before the change")
    url = f"/en/conferences/{paper.conference.slug}/cite.bib"
    before = visitor.get(url)
    read_streamed(before)

    Paper.objects.filter(pk=paper.pk).update(title_en="After the change")
    bump_content_generation()  # as the admin's save does (an update() sends no signal)
    after = visitor.get(url)

    assert b"After the change" in read_streamed(after)
    assert after["ETag"] != before["ETag"]


def left_early(response):
    """Close the streamed ``response`` unread, as a WSGI server does when its client goes
    away; without the test's database connection, as Django's test client closes one
    it has read (a server would close it: here it holds the test's transaction)."""
    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)


@pytest.mark.django_db
def test_a_streamed_download_over_the_limit_or_left_unread_is_not_stored(visitor, settings):
    paper = factories.paper()
    url = f"/en/conferences/{paper.conference.slug}/cite.bib"
    left_early(visitor.get(url))
    settings.PAGE_CACHE_STREAM_MAX_BYTES = 10
    read_streamed(visitor.get(url))  # read whole, but too big to keep

    again = visitor.get(url)

    assert again.streaming


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

    assert queries > 1


def test_the_release_is_the_fingerprint_and_read_once():
    from awardsite.release import fingerprint

    assert caching.release() == fingerprint()[:12]
    assert caching.release.cache_info().currsize == 1


@pytest.mark.django_db
def test_conditional_request_gets_304(visitor):
    etag = visitor.get("/en/")["ETag"]

    response, queries = fetch(visitor, "/en/", HTTP_IF_NONE_MATCH=etag)

    assert (response.status_code, response.content, queries) == (304, b"", 1)


@pytest.mark.django_db
def test_a_page_from_the_cache_carries_the_security_headers(visitor):
    """The CSP, Permissions-Policy and SecurityMiddleware's headers are stored with the
    page (those middleware sit inside the cache) and come back with every hit."""
    first = visitor.get("/en/")

    hit, queries = fetch(visitor, "/en/")

    assert queries == 1
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
    assert (response.status_code, queries) == (200, 1)
    return response


@pytest.mark.django_db
def test_gzip_is_cached_apart_from_identity_and_304_matches_it(visitor):
    factories.paper(title_en=COMPRESSIBLE_TITLE)
    plain = visitor.get("/en/search/?q=compressible")
    packed = visitor.get("/en/search/?q=compressible", **GZIP)
    again, queries = fetch(visitor, "/en/search/?q=compressible", **GZIP)

    assert plain.get("Content-Encoding") is None
    assert (packed["Content-Encoding"], again["Content-Encoding"], queries) == ("gzip", "gzip", 1)
    assert text(packed) == plain.content.decode()
    assert "Accept-Encoding" in packed["Vary"]
    assert packed["ETag"] != plain["ETag"]
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
def test_a_hit_does_not_parse_the_query_string(visitor):
    factories.paper(title_en="Preview of a gradient method")
    url = "/en/search/?q=preview"  # a search for the word, not a preview
    first = visitor.get(url)

    hit = cached_twice(visitor, url)

    # WSGIRequest.GET is a cached property: parsed only if something read it.
    assert ("GET" in vars(first.wsgi_request), "GET" in vars(hit.wsgi_request)) == (True, False)
    assert hit.content == first.content


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

    assert "public" not in login.get("Cache-Control", "")
    assert login.get("Content-Encoding") is None  # pages with CSRF tokens: no BREACH
    _again, queries = fetch(visitor, "/admin/login/")
    assert queries == 0  # no content generation read, no cache involved


@pytest.mark.django_db
def test_a_visitor_with_a_messages_cookie_is_not_served_from_the_cache(visitor):
    paper = factories.paper(title_en="Old title")
    cached_twice(visitor, paper.get_absolute_url())
    _stale_behind_the_cache(paper)
    visitor.cookies["messages"] = "pending"

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
    before = content_generation()

    paper = next(item for item in objects if item["model"] == "papers.paper")
    paper["fields"]["title_en"] = "Paper One, revised"
    call_command("import_conference", str(write(tmp_path, objects)), stdout=io.StringIO())

    assert content_generation() == before + 1
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
    before = content_generation()

    call_command("import_conference", str(path), stdout=io.StringIO())

    assert content_generation() == before


@pytest.mark.django_db
def test_changes_to_many_to_many_fields_raise_the_generation():
    authorship_paper = factories.paper(authors=[factories.author()])
    authorship = authorship_paper.authorships.get()
    before = content_generation()

    authorship.affiliations.add(factories.institution())

    # The institution's own save raises it once; adding it to the authorship, again.
    assert content_generation() >= before + 2


@pytest.mark.django_db
def test_the_generation_row_is_made_again_when_missing():
    ContentGeneration.objects.all().delete()

    factories.venue()

    assert content_generation() == 1


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
            "BACKEND": "awardsite.cache.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": "awardsite-tests",
            "OPTIONS": settings.REDIS_CACHE_OPTIONS,  # as awardsite/settings.py sets them
        }
    }
    caches["default"].clear()
    yield
    caches["default"].clear()


@pytest.mark.django_db
def test_redis_stores_the_pages(on_redis, visitor):
    paper = factories.paper()

    cached_twice(visitor, paper.get_absolute_url())

    assert type(caches["default"]).__name__ == "RedisCache"
    assert caches["default"]._cache.get_client().dbsize() >= 1


@pytest.mark.django_db
def test_on_redis_a_hit_runs_no_query_and_reads_the_generation_from_redis(on_redis, visitor):
    paper = factories.paper()

    first, first_queries = fetch(visitor, paper.get_absolute_url())
    second, second_queries = fetch(visitor, paper.get_absolute_url())

    assert first_queries > 1
    assert second_queries == 0
    assert second.content == first.content
    assert caches["default"].get(GENERATION_KEY) == content_generation()


@pytest.mark.django_db
def test_on_redis_a_lost_generation_key_is_read_from_the_database(on_redis, visitor):
    paper = factories.paper(title_en="Old title")
    cached_twice(visitor, paper.get_absolute_url())
    # A change whose write of the generation to Redis was lost, then the key itself.
    _stale_behind_the_cache(paper)
    ContentGeneration.objects.update(number=F("number") + 1)
    caches["default"].delete(GENERATION_KEY)
    _near_pages_hear_of_the_change()

    page = visitor.get(paper.get_absolute_url())
    again, queries = fetch(visitor, paper.get_absolute_url())

    assert "Changed behind the cache" in text(page)
    assert caches["default"].get(GENERATION_KEY) == content_generation()
    assert (queries, text(again)) == (0, text(page))


@pytest.mark.django_db
def test_on_redis_a_hit_answers_the_headers_and_body_of_the_page_it_stored(on_redis, visitor):
    """Stored headers are read back as they were (pagecache.caching.StoredHeaders)."""
    paper = factories.paper(title_en=COMPRESSIBLE_TITLE)
    for client in (visitor, Client(**GZIP)):
        first, _ = fetch(client, paper.get_absolute_url())
        second, queries = fetch(client, paper.get_absolute_url())

        assert queries == 0
        assert (list(second.items()), second.content) == (list(first.items()), first.content)
        # A header is still checked when set on a page read back (e.g. by CORS).
        with pytest.raises(BadHeaderError):
            second["X-Test"] = "a\nb"


@pytest.mark.django_db
def test_on_redis_a_connection_closed_by_redis_is_opened_again(on_redis, visitor, caplog, settings):
    """Each thread's client holds one connection (awardsite/cache.py): when Redis closes
    it (a restart, its idle timeout), the next page is still served from the cache. The
    pages kept in memory are off here, so that the page is read from Redis."""
    settings.PAGE_CACHE_NEAR_SIZE = 0
    paper = factories.paper()
    cached_twice(visitor, paper.get_absolute_url())
    client = caches["default"]._cache.get_client()
    held = client.client_id()
    with redis.Redis.from_url(caches["default"]._servers[0]) as admin:
        assert admin.client_kill_filter(_id=held) == 1

    page, queries = fetch(visitor, paper.get_absolute_url())

    assert (page.status_code, queries, caplog.records) == (200, 0, [])
    assert client.client_id() != held


# Pages kept in each process's memory too (pagecache.caching.NearPages), valid while Redis has
# not told that process's tracking connection (awardsite.cache.TrackedKey) of a change.


def _commands_run(admin):
    """How many commands Redis has run (INFO counts the INFO itself, made after)."""
    return admin.info("stats")["total_commands_processed"]


def _message_arrives(tracked):
    """Wait (at most 5 s) until an invalidation is readable on ``tracked``'s connection.
    Redis sends it in the same pass of its event loop as its answer to the write, but
    not always first: in 1-2% of tries the writer had its answer microseconds before it
    arrived, so a test that reads at once would sometimes see the old value."""
    assert tracked._client.connection.can_read(timeout=5), "Redis sent no invalidation"


def _near_pages_hear_of_the_change():
    """:func:`_message_arrives` for this process's pages kept in memory."""
    _message_arrives(caching.near_pages(caches["default"]).tracked)


def fetch_from_memory(client, url, **headers):
    """GET ``url``; assert it ran no query and cost Redis no command; return the page."""
    with redis.Redis.from_url(caches["default"]._servers[0]) as admin:
        before = _commands_run(admin)
        page, queries = fetch(client, url, **headers)
        after = _commands_run(admin)
    # The first INFO only: the page cost Redis nothing.
    assert (page.status_code, queries, after - before) == (200, 0, 1)
    return page


@pytest.mark.django_db
def test_on_redis_a_hit_is_answered_from_memory_without_a_round_trip(on_redis, visitor):
    paper = factories.paper()
    second = cached_twice(visitor, paper.get_absolute_url())

    assert fetch_from_memory(visitor, paper.get_absolute_url()).content == second.content


@pytest.mark.django_db
def test_on_redis_a_change_by_another_client_retires_the_pages_in_memory(on_redis, visitor):
    """Another app server (here a second cache object: its own clients and connections)
    writes a new generation: this thread's next request after Redis's invalidation has
    arrived (microseconds after its answer to that write) renders afresh."""
    paper = factories.paper(title_en="Old title")
    cached_twice(visitor, paper.get_absolute_url())
    assert "Old title" in text(fetch_from_memory(visitor, paper.get_absolute_url()))
    _stale_behind_the_cache(paper)
    other_server = caches.create_connection("default")
    assert other_server is not caches["default"]

    ContentGeneration.objects.update(number=F("number") + 1)
    other_server.set(GENERATION_KEY, content_generation(), 30)
    _near_pages_hear_of_the_change()
    page = visitor.get(paper.get_absolute_url())
    again, queries = fetch(visitor, paper.get_absolute_url())

    assert "Changed behind the cache" in text(page)
    assert (queries, text(again)) == (0, text(page))


def test_on_redis_a_tracked_key_follows_every_change_from_another_connection(on_redis):
    """awardsite.cache.TrackedKey: a set, a delete, a set of a missing key and a flush
    made on another connection are each seen by the next read after Redis's message
    has arrived, long before max_age (1 s) would read the key again."""
    tracked = caches["default"].tracked(GENERATION_KEY)
    other = caches.create_connection("default")
    other.set(GENERATION_KEY, 7, 30)
    seen = [tracked.get(), tracked.get()]
    other.set(GENERATION_KEY, 8, 30)
    _message_arrives(tracked)
    seen.append(tracked.get())
    other.delete(GENERATION_KEY)
    _message_arrives(tracked)
    seen.append(tracked.get())
    other.set(GENERATION_KEY, 9, 30)
    _message_arrives(tracked)
    seen.append(tracked.get())
    other.clear()
    _message_arrives(tracked)
    seen.append(tracked.get())

    assert seen == [7, 7, 8, None, 9, None]


def test_on_redis_a_tracked_key_is_read_again_on_a_new_connection_when_redis_closes_it(on_redis):
    """A tracking connection Redis closed would hear of no change: it is found closed
    when the messages are read, and the key is read again on a new one, tracked again."""
    tracked = caches["default"].tracked(GENERATION_KEY)
    other = caches.create_connection("default")
    other.set(GENERATION_KEY, 7, 30)
    assert tracked.get() == 7
    held = tracked._client.client_id()
    with redis.Redis.from_url(caches["default"]._servers[0]) as admin:
        assert admin.client_kill_filter(_id=held) == 1

    first = tracked.get()
    other.set(GENERATION_KEY, 8, 30)
    _message_arrives(tracked)

    assert (first, tracked.get()) == (7, 8)
    assert tracked._client.client_id() != held


def test_on_redis_a_tracked_key_is_read_again_after_max_age(on_redis):
    """Should an invalidation message be lost, the value is still read again after
    max_age seconds (written here behind the tracking, with CLIENT TRACKING off)."""
    tracked = caches["default"].tracked(GENERATION_KEY)
    tracked.max_age = 0.2
    other = caches.create_connection("default")
    other.set(GENERATION_KEY, 7, 30)
    assert tracked.get() == 7
    tracked._client.execute_command("CLIENT", "TRACKING", "OFF")
    other.set(GENERATION_KEY, 8, 30)
    soon = tracked.get()
    time.sleep(0.3)

    assert (soon, tracked.get()) == (7, 8)


@pytest.mark.django_db
def test_with_redis_down_pages_are_served_uncached(visitor, caplog):
    """No Redis listening (its tracking connection cannot be made either): each page is
    rendered and served, and the errors are logged, never a 500."""
    paper = factories.paper(title_en="Served anyway")
    down = {
        "BACKEND": "awardsite.cache.RedisCache",
        "LOCATION": f"redis://127.0.0.1:{_free_port()}/0",
    }

    with override_settings(CACHES={"default": down}):  # undone before the cache is cleared
        pages = [visitor.get(paper.get_absolute_url()) for _attempt in range(2)]

    assert [page.status_code for page in pages] == [200, 200]
    assert all("Served anyway" in text(page) for page in pages)
    # One traceback for the outage: the second page did not try the cache (CacheOutage).
    assert [(r.getMessage(), bool(r.exc_info)) for r in caplog.records] == [
        ("could not read a page from the cache; pages are served without the cache for 10 s", True)
    ]


@pytest.mark.django_db
def test_with_redis_down_the_cache_is_tried_again_after_a_pause(visitor, caplog, settings):
    """After a failure each process leaves the cache alone PAGE_CACHE_RETRY_AFTER seconds
    (a hung Redis would make every visitor wait its timeout); then one page tries it,
    and a failure again is one line, not a traceback."""
    paper = factories.paper(title_en="Served anyway")
    down = {
        "BACKEND": "awardsite.cache.RedisCache",
        "LOCATION": f"redis://127.0.0.1:{_free_port()}/0",
    }
    with override_settings(CACHES={"default": down}):
        visitor.get(paper.get_absolute_url())
        assert caching.outage.retry_at - time.monotonic() == pytest.approx(10, abs=1)
        paused = [visitor.get(paper.get_absolute_url()) for _attempt in range(3)]
        tried_while_paused = len(caplog.records)
        caching.outage.retry_at = 0.0  # the pause is over
        again = visitor.get(paper.get_absolute_url())

    assert [page.status_code for page in [*paused, again]] == [200] * 4
    assert tried_while_paused == 1
    last = caplog.records[-1]
    assert (len(caplog.records), bool(last.exc_info)) == (2, False)
    assert last.getMessage().startswith(
        "could not read a page from the cache: the cache still fails after "
    )


@pytest.mark.django_db(transaction=True)
def test_on_redis_a_change_made_during_an_outage_shows_when_redis_answers_again(
    on_redis, visitor, caplog
):
    """A change committed while Redis could not be written left Redis with the old
    generation; the first page after the outage writes it afresh, so it is not served
    from before the change (until the key expired, it was)."""
    paper = factories.paper(title_en="Old title")
    cached_twice(visitor, paper.get_absolute_url())
    _stale_behind_the_cache(paper)
    ContentGeneration.objects.update(number=F("number") + 1)  # its write to Redis failed:
    try:
        raise ConnectionError("Redis is down")
    except ConnectionError:
        caching.outage.failed("could not write the content generation to the cache")
    caching.outage.retry_at = 0.0  # Redis answers again

    page = visitor.get(paper.get_absolute_url())

    assert "Changed behind the cache" in text(page)
    assert caches["default"].get(GENERATION_KEY) == content_generation()
    assert caplog.records[-1].getMessage().startswith("the page cache works again after ")
    assert caching.outage.since is None


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
        "BACKEND": "awardsite.cache.RedisCache",
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


@pytest.mark.django_db
def test_on_redis_that_refuses_tracking_pages_are_cached_without_memory(redis_url, visitor, caplog):
    """An ACL user not allowed CLIENT TRACKING (as an old Redis or a managed service may
    refuse it): pages are still served from Redis, with no query, and the refusal is
    logged once per process, not as an error on every request (found by a fresh tester:
    every request was rendered afresh and logged a traceback)."""
    paper = factories.paper(title_en="Cached anyway")
    user, password = "awardsite-no-tracking", "no-tracking-password"
    admin = redis.Redis.from_url(redis_url)
    admin.acl_setuser(
        user,
        enabled=True,
        passwords=[f"+{password}"],
        keys=["*"],
        channels=["*"],
        commands=["+@all", "-client"],
    )
    location = redis_url.replace("redis://", f"redis://{user}:{password}@", 1)
    refusing = {
        "BACKEND": "awardsite.cache.RedisCache",
        "LOCATION": location,
        "KEY_PREFIX": "awardsite-tests-refused",
    }
    try:
        with override_settings(CACHES={"default": refusing}):
            caches["default"].clear()
            cached_twice(visitor, paper.get_absolute_url())
            again, queries = fetch(visitor, paper.get_absolute_url())
            caches["default"].clear()
    finally:
        admin.acl_deluser(user)
        admin.close()

    assert (again.status_code, queries) == (200, 0)
    assert "Cached anyway" in text(again)
    messages = [(record.levelname, record.getMessage()) for record in caplog.records]
    assert messages == [
        (
            "WARNING",
            "Redis refused CLIENT TRACKING: cached pages are read from Redis on every "
            "request (DJANGO_PAGE_CACHE_NEAR_MB has no effect)",
        )
    ]


@pytest.mark.django_db
def test_on_redis_tracking_refused_later_falls_back_to_reading_redis(redis_url, visitor, caplog):
    """Tracking allowed at first, then refused when the connection is made again (an
    ACL changed, a new server): that request and the next are still answered from
    Redis, and the refusal is logged once."""
    paper = factories.paper(title_en="Cached anyway")
    user, password = "awardsite-later", "later-password"
    admin = redis.Redis.from_url(redis_url)
    admin.acl_setuser(
        user,
        enabled=True,
        passwords=[f"+{password}"],
        keys=["*"],
        channels=["*"],
        commands=["+@all"],
    )
    location = redis_url.replace("redis://", f"redis://{user}:{password}@", 1)
    cache = {"BACKEND": "awardsite.cache.RedisCache", "LOCATION": location}
    try:
        with override_settings(CACHES={"default": cache}):
            caches["default"].clear()
            cached_twice(visitor, paper.get_absolute_url())
            held = caching.near_pages(caches["default"]).tracked._client.client_id()
            admin.acl_setuser(user, enabled=True, commands=["-client"])
            admin.client_kill_filter(_id=held)
            answers = [fetch(visitor, paper.get_absolute_url()) for _attempt in range(2)]
            caches["default"].clear()
    finally:
        admin.acl_deluser(user)
        admin.close()

    assert [(page.status_code, queries) for page, queries in answers] == [(200, 0), (200, 0)]
    assert [record.levelname for record in caplog.records] == ["WARNING"]


@pytest.mark.django_db
def test_on_redis_the_pages_in_memory_are_bounded(on_redis, visitor, settings):
    """At most PAGE_CACHE_NEAR_SIZE bytes of bodies (and about 1 KB each) per process,
    the least recently used dropped first; a page over a quarter of it is not kept."""
    papers = [factories.paper(title_en=f"Paper {number}") for number in range(6)]
    settings.PAGE_CACHE_NEAR_SIZE = 10**6
    for paper in papers:
        cached_twice(visitor, paper.get_absolute_url())
    near = caching.near_pages(caches["default"])
    sizes = [len(stored[-1]) + near.OVERHEAD for stored in near.pages.values()]
    assert len(sizes) == 6 and near.used == sum(sizes)
    # Room for four of these pages (of about the same size): the first two are dropped.
    settings.PAGE_CACHE_NEAR_SIZE = max(sizes) * 4 + min(sizes) // 2
    for paper in papers:
        cached_twice(visitor, paper.get_absolute_url())
    near = caching.near_pages(caches["default"])
    assert near.used <= settings.PAGE_CACHE_NEAR_SIZE
    assert list(near.pages) == [
        caching.page_key(RequestFactory().get(paper.get_absolute_url())) for paper in papers[2:]
    ]
    # Each page over a quarter of the size: none kept, all still served from Redis.
    settings.PAGE_CACHE_NEAR_SIZE = max(sizes)
    for paper in papers:
        cached_twice(visitor, paper.get_absolute_url())
    assert list(caching.near_pages(caches["default"]).pages) == []


@pytest.mark.django_db(transaction=True)
def test_on_redis_the_generation_is_written_when_the_change_commits(on_redis, visitor):
    paper = factories.paper()
    cached_twice(visitor, paper.get_absolute_url())
    before = caches["default"].get(GENERATION_KEY)

    with pytest.raises(RuntimeError), transaction.atomic():
        bump_content_generation()
        raise RuntimeError("rolled back")
    rolled_back = caches["default"].get(GENERATION_KEY)
    with transaction.atomic():
        bump_content_generation()
        inside = caches["default"].get(GENERATION_KEY)

    assert (rolled_back, inside) == (before, before)
    assert caches["default"].get(GENERATION_KEY) == content_generation() == before + 1


# The Redis tests of changes commit them (transaction=True), as a real request does: the
# generation is written to Redis when the change commits (transaction.on_commit), which a
# test rolled back at its end never does.
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
    served by the other without a query, and an admin change made on one shows on the
    other's next request, also when the page was held in memory (one process's, which
    these two share: a change heard of only from Redis is tested above with a second
    cache object)."""
    paper = factories.paper(title_en="Before the edit")
    url = paper.get_absolute_url()
    host = live_server.url.removeprefix("http://")  # the same host: the same cache key
    assert "Before the edit" in _served(live_server, url)  # cached by the live server
    served_here, queries = fetch(visitor, url, HTTP_HOST=host)
    assert ("Before the edit" in text(served_here), queries) == (True, 0)
    # Both now answer from memory (pagecache.caching.NearPages), Redis untouched.
    _served(live_server, url)
    with redis.Redis.from_url(caches["default"]._servers[0]) as admin:
        before = _commands_run(admin)
        assert "Before the edit" in _served(live_server, url)
        assert _commands_run(admin) - before == 1
    assert "Before the edit" in text(fetch_from_memory(visitor, url, HTTP_HOST=host))

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


def _gzipped_by(middleware_class, content, headers=None, streaming=False, **request_headers):
    """The response of ``content`` (bytes) once ``middleware_class`` has processed it for a
    GET carrying ``request_headers``; ``headers`` are set on the response first."""
    request = RequestFactory().get("/en/", **request_headers)
    if streaming:
        response = StreamingHttpResponse(iter([content[:300], content[300:]]))
    else:
        response = HttpResponse(content)
    for name, value in (headers or {}).items():
        response[name] = value
    return middleware_class(lambda request: response).process_response(request, response)


PAGE_LIKE = b"<li><a href='/en/papers/a-paper/'>A paper</a> by someone</li>\n" * 200


@pytest.mark.parametrize(
    ("content", "headers", "request_headers"),
    [
        (PAGE_LIKE, {}, GZIP),
        (PAGE_LIKE, {"ETag": '"abc"'}, GZIP),
        (PAGE_LIKE, {"ETag": 'W/"abc"', "Vary": "Cookie"}, GZIP),
        (PAGE_LIKE, {}, {}),  # a client without gzip: Vary only
        (PAGE_LIKE, {"Content-Encoding": "br"}, GZIP),
        (b"short" * 30, {}, GZIP),  # under 200 bytes: as it is
        (bytes(range(256)) * 2, {}, GZIP),  # gzip would not be shorter
    ],
)
def test_page_gzip_at_level_6_is_djangos_gzip(monkeypatch, content, headers, request_headers):
    # Django's random file name in the gzip header, made the same for both.
    monkeypatch.setattr("django.utils.text._get_random_filename", lambda most: b"aaa")
    monkeypatch.setattr(caching.PageGZipMiddleware, "level", 6)

    ours = _gzipped_by(caching.PageGZipMiddleware, content, headers, **request_headers)
    django = _gzipped_by(GZipMiddleware, content, headers, **request_headers)

    assert (ours.content, dict(ours.items())) == (django.content, dict(django.items()))


def test_page_gzip_compresses_at_its_level_with_a_random_file_name():
    sizes = set()
    for _ in range(20):
        response = _gzipped_by(caching.PageGZipMiddleware, PAGE_LIKE, **GZIP)
        assert gzip.decompress(response.content) == PAGE_LIKE
        sizes.add(len(response.content))
        # The header with the file-name flag, the name and its NUL, then the stream.
        plain = gzip.compress(PAGE_LIKE, compresslevel=caching.GZIP_LEVEL, mtime=0)
        name_length = response.content[10:].index(b"\x00")
        assert response.content[3] == gzip.FNAME
        assert set(response.content[10 : 10 + name_length]) <= {ord("a")}
        assert response.content[:3] + response.content[4:10] == plain[:3] + plain[4:10]
        assert response.content[11 + name_length :] == plain[10:]
    assert len(sizes) > 1  # the file name's length varies (BREACH)


def test_page_gzip_leaves_streaming_responses_to_django():
    response = _gzipped_by(caching.PageGZipMiddleware, PAGE_LIKE, streaming=True, **GZIP)

    assert response["Content-Encoding"] == "gzip"
    assert gzip.decompress(b"".join(response.streaming_content)) == PAGE_LIKE


@pytest.mark.django_db
def test_a_streamed_citation_download_is_stored_on_redis(on_redis, visitor):
    test_a_streamed_citation_download_is_stored_once_sent_and_tagged(visitor, GZIP)
