"""docs/operations.md's nginx configuration ("Static hosting") serving what
``publish_site`` wrote of the shipped content, as a static host would: Debian's nginx
(``make test`` installs it) on a free loopback port, with the docs' block as written
but for its ``listen`` and ``root`` (tests/test_docs.py's ``nginx_serving``). Each kind
of file must come with the type and bytes the live site gives it, pages with the live
site's security headers, ``/`` must choose the language by ``Accept-Language`` as the
live site does, and an unknown page is the live site's 404 page."""

import http.client
import re
import shutil
import tempfile
from io import StringIO
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command

from catalogue.models import Paper
from publishing import site as publishing
from tests.test_docs import doc_block, nginx_serving

SITE_URL = "https://awards.example.org"
# The headers awardsite/settings.py sends with every page (SecurityMiddleware, django-csp,
# our PermissionsPolicyMiddleware); a static host must send them too.
SECURITY_HEADERS = [
    "Content-Security-Policy",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "X-Frame-Options",
    "Cross-Origin-Opener-Policy",
    "Permissions-Policy",
]
PAPER = "/papers/conformal-prediction-as-bayesian-quadrature/"


@pytest.fixture(scope="module")
def nginx_site():
    """Debian's nginx serving a folder with docs/operations.md's block (tests/test_docs.py's
    ``nginx_serving``), for this module; ``published_by_nginx`` publishes into it once.
    Yields a dict: ``site`` (the folder), ``port``, ``published`` (False until then)."""
    # nginx's workers run as www-data when started by root: the folder must be readable
    # by them, which pytest's tmp_path (under a private folder) is not.
    workdir = Path(tempfile.mkdtemp(prefix="awardsite-nginx-"))
    try:
        workdir.chmod(0o755)
        site = workdir / "site"
        site.mkdir()
        snippet = doc_block("docs/operations.md", "nginx", "nginx")
        with nginx_serving(snippet, site) as port:
            yield {"workdir": workdir, "site": site, "port": port, "published": False}
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def published_by_nginx(icml, settings, nginx_site):
    """The shipped content, published once for the module and served by nginx. Returns
    ``get(path, **headers) -> http.client.HTTPResponse`` (its ``body`` read; redirects
    are not followed)."""
    settings.SITE_URL = SITE_URL
    if not nginx_site["published"]:
        workdir = nginx_site["workdir"]
        settings.STATIC_ROOT = workdir / "collected"
        settings.MEDIA_ROOT = workdir / "media"
        call_command("publish_site", str(nginx_site["site"]), stdout=StringIO())
        nginx_site["published"] = True

    def get(path, **headers):
        connection = http.client.HTTPConnection("127.0.0.1", nginx_site["port"], timeout=10)
        try:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            response.body = response.read()
        finally:
            connection.close()
        return response

    return get


def _media_type(content_type, like=None):
    """``type/subtype; charset=x`` without spaces or case; the charset left out when
    ``like`` (the live site's header) names none: JSON and XML are UTF-8 either way."""
    value = content_type.replace(" ", "").lower()
    if like is not None and "charset=" not in like.lower():
        value = value.split(";", 1)[0]
    return value


@pytest.mark.parametrize(
    "path",
    [
        "/en/",
        "/zh-hans/",
        f"/zh-hans{PAPER}",
        "/en/conferences/icml-2025/",
        "/en/authors/",
        "/en/search/",
        "/en/feeds/awards.atom",
        f"/en{PAPER}cite.bib",
        f"/en{PAPER}cite.ris",
        f"/en{PAPER}cite.json",
        "/api/v1/",
        "/api/v1/conferences/icml-2025",
        "/api/v1/openapi.json",
        "/api/v1/docs",
        "/data/awardsite-csv.zip",
        "/sitemap.xml",
        "/robots.txt",
    ],
)
def test_each_kind_of_file_has_the_live_sites_type_and_bytes(published_by_nginx, client, path):
    live = client.get(path)
    served = published_by_nginx(path)

    assert (served.status, live.status_code) == (200, 200)
    assert _media_type(served.getheader("Content-Type"), live["Content-Type"]) == _media_type(
        live["Content-Type"]
    )
    # A ZIP's entries carry the time they were written; the published search page holds
    # the form only (publishing/search_index.py: results come from its index).
    # The API's documents and docs page are published without the links and the "Try it
    # out" a static host cannot answer (tests/publishing/test_publish.py checks what differs).
    finish = {
        "/api/v1/": publishing.published_api_document,
        "/api/v1/conferences/icml-2025": publishing.published_api_document,
        "/api/v1/docs": publishing.published_api_docs_page,
    }.get(path, lambda body: body)
    if not path.endswith((".zip", "/search/")):
        assert served.body == finish(live.content)


def test_pages_carry_the_live_sites_security_headers(published_by_nginx, client):
    live = client.get(f"/en{PAPER}")
    for path in (f"/en{PAPER}", "/zh-hans/", "/api/v1/", "/api/v1/docs"):
        served = published_by_nginx(path)
        headers = {name: served.getheader(name) for name in SECURITY_HEADERS}
        expected = {name: live[name] for name in SECURITY_HEADERS}
        # The policy's directives in any order (django-csp's order varies).
        policy = headers.pop("Content-Security-Policy") or ""
        live_policy = expected.pop("Content-Security-Policy")
        assert sorted(policy.split("; ")) == sorted(live_policy.split("; ")), path
        assert headers == expected, path
        assert served.getheader("Access-Control-Allow-Origin") == (
            "*" if path.startswith("/api/") else None
        ), path


@pytest.mark.parametrize(
    ("accept_language", "prefix"),
    [
        ("zh-CN,zh;q=0.9", "/zh-hans/"),
        ("zh-Hans-CN", "/zh-hans/"),
        ("en-GB", "/en/"),
        ("fr", "/en/"),
    ],
)
def test_the_language_is_chosen_as_the_live_site_chooses_it(
    published_by_nginx, client, accept_language, prefix
):
    for path in ("/", PAPER):
        served = published_by_nginx(path, **{"Accept-Language": accept_language})
        live = client.get(path, HTTP_ACCEPT_LANGUAGE=accept_language)

        assert served.status == 302
        assert served.getheader("Location").endswith(prefix + path.lstrip("/"))
        assert live["Location"].endswith(prefix + path.lstrip("/"))


def test_publish_sites_records_are_not_found(published_by_nginx):
    for path in ("/.publish-manifest.json", "/.publish-snapshot.json"):
        assert published_by_nginx(path).status == 404, path


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_unknown_page_is_the_live_sites_404_page(published_by_nginx, client, language):
    served = published_by_nginx(f"/{language}/no-such-page/")
    live = client.get(f"/{language}/no-such-page/")

    assert (served.status, live.status_code) == (404, 404)
    assert served.body == live.content


def test_static_files_are_served_for_good(published_by_nginx):
    page = published_by_nginx("/en/").body.decode()
    stylesheet = re.search(r'<link rel="stylesheet" href="(/static/[^"]+\.css)"', page).group(1)

    served = published_by_nginx(stylesheet)

    assert served.status == 200
    assert "max-age=315360000" in served.getheader("Cache-Control")


@pytest.mark.parametrize(
    "path",
    [
        "/en/authors/page/1/",
        "/zh-hans/conferences/icml-2025/page/1/",
        "/en/authors/letter/s/page/1/",
        "/en/authors/john-schulman/page/1/",
        "/en/authors/?page=2",
        "/zh-hans/authors/?page=1",
        "/en/authors/?page=",
        "/en/authors/?page=002",
        "/en/authors/letter/s/?page=3",
        "/en/conferences/icml-2025/?page=2",
        "/en/authors/john-schulman/?page=12",
        "/en/authors/page/2/?page=1",
        "/en/authors/page/1/?page=4",
        "/en/authors/?x=1&page=1&page=3",
    ],
)
def test_odd_addresses_of_a_list_redirect_as_on_the_live_site(published_by_nginx, client, path):
    """``page/1/`` and an old link's ``?page=N`` answer the live site's 301 (the docs'
    nginx rules: the other query parameters are dropped, none is used on a static copy)."""
    live = client.get(path)
    served = published_by_nginx(path)

    assert (served.status, live.status_code) == (301, 301)
    assert urlsplit(served.getheader("Location")).path == urlsplit(live["Location"]).path


@pytest.mark.parametrize(
    "path",
    ["/en/authors/?page=0", "/zh-hans/authors/?page=last", "/en/conferences/icml-2025/?page=-1"],
)
def test_a_page_number_that_is_not_one_is_a_404_in_its_language(published_by_nginx, client, path):
    """The 404 page of the address's language, as for an unknown page (the live one
    also names the address's query in its language links, which a file cannot)."""
    language = path.split("/")[1]
    live = client.get(path)
    served = published_by_nginx(path)

    assert (served.status, live.status_code) == (404, 404)
    assert served.body == published_by_nginx(f"/{language}/no-such-page/").body


def _status(port, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("directive", "status"),
    [
        ("", 200),  # nginx's default: disable_symlinks off
        ("disable_symlinks on from=$document_root;", 200),  # the root's own path not checked
        ("disable_symlinks on;", 404),  # refuses the link publish_site makes the root
    ],
)
def test_nginx_serves_the_published_link_unless_it_refuses_links(
    published_by_nginx, nginx_site, directive, status
):
    site = nginx_site["site"]
    assert site.is_symlink()
    snippet = doc_block("docs/operations.md", "nginx", "nginx")
    snippet = snippet.replace("root /srv/awardsite;", f"root /srv/awardsite; {directive}")

    with nginx_serving(snippet, site) as port:
        assert _status(port, f"/en{PAPER}")[0] == status


def test_after_a_publish_nginx_serves_the_new_version_without_a_reload(icml, settings):
    settings.SITE_URL = SITE_URL
    workdir = Path(tempfile.mkdtemp(prefix="awardsite-nginx-"))
    try:
        workdir.chmod(0o755)  # nginx's workers may run as www-data
        settings.STATIC_ROOT = workdir / "collected"
        settings.MEDIA_ROOT = workdir / "media"
        site = workdir / "site"
        call_command("publish_site", str(site), stdout=StringIO())
        snippet = doc_block("docs/operations.md", "nginx", "nginx")
        with nginx_serving(snippet, site) as port:
            status, before = _status(port, f"/en{PAPER}")
            paper = Paper.objects.get(slug=PAPER.split("/")[2])
            paper.title_en = "A title published while nginx runs"
            paper.save()

            call_command("publish_site", str(site), stdout=StringIO())

            assert (status, b"A title published while nginx runs" in before) == (200, False)
            assert b"A title published while nginx runs" in _status(port, f"/en{PAPER}")[1]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
