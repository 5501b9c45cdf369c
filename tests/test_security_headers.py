"""Content-Security-Policy and Permissions-Policy on every response (issue 8), and admin
pages whose markup needs neither inline scripts nor inline styles.

The browser test (tests/browser/test_csp.py) shows that Chromium reports no violation;
these tests show the headers are on every kind of response, and read the admin's
markup for what the policy would block."""

import json
from html.parser import HTMLParser

import pytest
import reversion
from django.conf import settings
from django.test import override_settings
from django.urls import path
from django.views.static import serve
from reversion.models import Version

from catalogue.models import Paper
from editorial.roles import create_editor
from tests import factories
from tests.checked_pages import URLS

EXPECTED_CSP = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
}
DENIED_FEATURES = {"camera", "microphone", "geolocation", "payment", "usb"}


def _policy(response):
    """The Content-Security-Policy header as {directive: [sources]}."""
    header = response.headers.get("Content-Security-Policy", "")
    directives = {}
    for part in header.split(";"):
        name, *sources = part.split()
        directives[name] = sources
    return directives


def _permissions(response):
    """The Permissions-Policy header as {feature: allowlist}."""
    header = response.headers.get("Permissions-Policy", "")
    return dict(item.strip().split("=", 1) for item in header.split(",") if item.strip())


# The API's documentation (Swagger UI) draws its icons from data: URIs; images only
# (opendata/api/__init__.py, DOCS_POLICY).
API_DOCS_CSP = {**EXPECTED_CSP, "img-src": ["'self'", "data:"]}


def assert_policies(response):
    path = response.request["PATH_INFO"]
    docs = path.endswith("/open-data/api/") or path == "/api/v1/docs"
    assert _policy(response) == (API_DOCS_CSP if docs else EXPECTED_CSP), path
    permissions = _permissions(response)
    assert {feature: permissions.get(feature) for feature in DENIED_FEATURES} == {
        feature: "()" for feature in DENIED_FEATURES
    }


# Permissions-Policy features Chromium recognises (third_party/blink/renderer/core/
# permissions_policy/permissions_policy_features.json5). Chromium reports any other
# name as "Unrecognized feature" on every page, e.g. "bluetooth".
CHROMIUM_FEATURES = {
    "accelerometer",
    "ambient-light-sensor",
    "attribution-reporting",
    "autoplay",
    "browsing-topics",
    "camera",
    "captured-surface-control",
    "clipboard-read",
    "clipboard-write",
    "compute-pressure",
    "cross-origin-isolated",
    "display-capture",
    "encrypted-media",
    "fullscreen",
    "gamepad",
    "geolocation",
    "gyroscope",
    "hid",
    "identity-credentials-get",
    "idle-detection",
    "keyboard-map",
    "local-fonts",
    "magnetometer",
    "microphone",
    "midi",
    "otp-credentials",
    "payment",
    "picture-in-picture",
    "publickey-credentials-create",
    "publickey-credentials-get",
    "screen-wake-lock",
    "serial",
    "storage-access",
    "sync-xhr",
    "usb",
    "web-share",
    "window-management",
    "xr-spatial-tracking",
}


def test_permissions_policy_names_only_features_chromium_recognises(client, db):
    features = set(_permissions(client.get("/robots.txt")))

    assert features - CHROMIUM_FEATURES == set()
    assert DENIED_FEATURES <= features


def _fail(request):
    raise RuntimeError("boom")


def _media(request, name):
    """Django's file view, as awardsite/urls.py mounts it, on the current MEDIA_ROOT."""
    return serve(request, name, document_root=settings.MEDIA_ROOT)


urlpatterns = [path("boom/", _fail), path("media/<path:name>", _media)]


ELSEWHERE = [
    "/en/papers/trust-region-policy-optimization/cite.bib",
    "/en/conferences/icml-2025/cite.json",
    "/zh-hans/feeds/awards.atom",
    "/sitemap.xml",
    "/robots.txt",
    "/",
    "/favicon.ico",
    "/no-language-prefix/",
    "/admin/login/",
    "/admin/",
    "/static/css/site.css",
    "/static/admin/js/core.js",
]


def test_every_response_carries_both_policies(client, icml):
    """Public pages in both languages, exports, feeds, redirects, 404s, the admin's
    login, and static files (one test: the fixture loads once)."""
    statuses = set()
    for url in [*URLS, *ELSEWHERE]:
        response = client.get(url)
        response.getvalue()  # static files are streamed: read them to the end
        statuses.add(response.status_code)
        assert_policies(response)

    assert statuses == {200, 301, 302, 404}


def test_static_and_media_html_files_carry_both_policies(client, db, settings, tmp_path):
    """An HTML file served as a file (WhiteNoise for static, Django for media) is
    covered as well: a script in an uploaded page could not run."""
    (tmp_path / "static").mkdir()
    (tmp_path / "static" / "page.html").write_text("<script>alert(1)</script>")
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "page.html").write_text("<script>alert(1)</script>")
    settings.STATICFILES_DIRS = [tmp_path / "static"]
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.ROOT_URLCONF = __name__  # through the settings fixture: restored in order

    static = client.get("/static/page.html")
    media = client.get("/media/page.html")
    # Read to the end: the test client ends a streamed request (and its URLconf) there.
    assert static.getvalue() == media.getvalue() == b"<script>alert(1)</script>"

    assert (static.status_code, media.status_code) == (200, 200)
    assert_policies(static)
    assert_policies(media)


# Headers the security middleware give a response, besides the two policies.
SECURITY_HEADERS = [
    "Content-Security-Policy",
    "Permissions-Policy",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "Cross-Origin-Opener-Policy",
    "X-Frame-Options",
]


@pytest.mark.parametrize("page_cache", [True, False])
def test_bad_host_answer_carries_every_security_header(client, db, settings, page_cache):
    """A Host header not in DJANGO_ALLOWED_HOSTS: the page cache, which comes before the
    security middleware, is the first to read it, and its 400 passed none of them."""
    settings.PAGE_CACHE_ENABLED = page_cache
    client.raise_request_exception = False
    usual = client.get("/admin/login/")

    response = client.get("/en/", headers={"host": "evil.example"})

    assert response.status_code == 400
    assert "<h1>Bad request</h1>" in response.content.decode()
    assert_policies(response)
    headers = {name: response.get(name) for name in SECURITY_HEADERS}
    assert headers == {name: usual[name] for name in SECURITY_HEADERS}


@override_settings(ROOT_URLCONF=__name__, DEBUG=False)
def test_server_error_page_carries_both_policies(client, django_db_blocker):
    client.raise_request_exception = False
    with django_db_blocker.block():
        response = client.get("/boom/")

    assert response.status_code == 500
    assert_policies(response)


# The admin's markup ------------------------------------------------------------------


class _InlineCode(HTMLParser):
    """Collects what a policy without 'unsafe-inline' blocks: style attributes, <style>
    elements, event-handler attributes, javascript: URLs and inline scripts (a script
    without src whose type is JavaScript; JSON data blocks are not run)."""

    SCRIPT_TYPES = {"", "text/javascript", "application/javascript", "module"}

    def __init__(self):
        super().__init__()
        self.found = []
        self._script = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for name, value in attrs:
            if name == "style" or name.startswith("on"):
                self.found.append(f"<{tag} {name}={value!r}>")
            if name in {"href", "src", "action"} and (value or "").strip().lower().startswith(
                "javascript:"
            ):
                self.found.append(f"<{tag} {name}={value!r}>")
        if tag == "style":
            self.found.append("<style>")
        if tag == "script" and "src" not in attributes:
            self._script = (attributes.get("type") or "").lower()

    def handle_data(self, data):
        if self._script is not None and self._script in self.SCRIPT_TYPES and data.strip():
            self.found.append(f"<script>{data.strip()[:60]}")

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = None


def inline_code(html):
    parser = _InlineCode()
    parser.feed(html)
    return parser.found


def test_inline_code_finder_finds_what_the_policy_blocks():
    html = (
        '<p style="color:red" onclick="x()"><a href="javascript:x()">a</a></p>'
        "<style>p{}</style><script>x()</script>"
        '<script type="application/ld+json">{"a": 1}</script><script src="/s.js"></script>'
    )

    assert inline_code(html) == [
        "<p style='color:red'>",
        "<p onclick='x()'>",
        "<a href='javascript:x()'>",
        "<style>",
        "<script>x()",
    ]


@pytest.fixture
def editor_client(client, icml):
    client.force_login(create_editor("editor", "editor@example.org", "a-long-passphrase"))
    return client


def _two_versions(obj, user, **change):
    """Give ``obj`` two history versions, the second after ``change``."""
    with reversion.create_revision():
        reversion.set_user(user)
        obj.save()
    for field, value in change.items():
        setattr(obj, field, value)
    with reversion.create_revision():
        reversion.set_user(user)
        obj.save()
    return list(Version.objects.get_for_object(obj).order_by("pk"))


def test_editors_admin_pages_have_no_inline_code(editor_client):
    paper = Paper.objects.get(slug="trust-region-policy-optimization")
    older, newer = _two_versions(paper, None, title_zh_hans="新的标题")
    conference = paper.conference
    urls = [
        "/admin/",
        "/admin/password_change/",
        *(
            f"/admin/papers/{name}/{suffix}"
            for name in [
                "venue",
                "conference",
                "institution",
                "author",
                "paper",
                "award",
                "awardentry",
                "authorship",
                "paperlink",
            ]
            for suffix in ["", "add/", "recover/", "?_popup=1&_to_field=id"]
        ),
        f"/admin/papers/paper/{paper.pk}/change/",
        f"/admin/papers/paper/{paper.pk}/delete/",
        f"/admin/papers/paper/{paper.pk}/history/",
        f"/admin/papers/paper/{paper.pk}/history/compare/"
        f"?version_id1={older.pk}&version_id2={newer.pk}",
        f"/admin/papers/paper/{paper.pk}/history/{older.pk}/",
        f"/admin/papers/conference/{conference.pk}/change/",
        "/admin/papers/author/add/?_popup=1&_to_field=id",
        "/admin/papers/paper/?q=learning&status__exact=published",
    ]

    found = {}
    for url in urls:
        response = editor_client.get(url)
        assert response.status_code == 200, url
        assert_policies(response)
        found[url] = inline_code(response.content.decode())

    assert {url: items for url, items in found.items() if items} == {}


def test_history_compare_fallback_has_no_inline_style(editor_client):
    """django-reversion-compare compares raw JSON when a version no longer loads;
    that page brought its own <style> element (templates/reversion-compare/)."""
    award = factories.award()
    older, newer = _two_versions(award, None, position=5)
    data = json.loads(older.serialized_data)
    data[0]["fields"]["position"] = "not a number"
    Version.objects.filter(pk=older.pk).update(serialized_data=json.dumps(data))

    response = editor_client.get(
        f"/admin/papers/award/{award.pk}/history/compare/"
        f"?version_id1={older.pk}&version_id2={newer.pk}"
    )

    assert response.status_code == 200
    assert 'class="highlight"' in response.content.decode()
    assert inline_code(response.content.decode()) == []


def test_popup_response_has_no_inline_code(editor_client):
    response = editor_client.post(
        "/admin/papers/author/add/?_popup=1&_to_field=id",
        {
            "name": "Ada Newcomer",
            "slug": "",
            "other_names": "",
            "homepage": "",
            "orcid": "",
            "_popup": "1",
        },
    )

    assert response.status_code == 200
    html = response.content.decode()
    assert "django-admin-popup-response-constants" in html
    assert inline_code(html) == []
