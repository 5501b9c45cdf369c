"""The public site as files for a plain static host (issue 12, ``manage.py publish_site``).

Which URLs are published is said once, on the URL patterns (pages/distill.py marks
them as django-distill's ``distill_path()`` does, each with the function that lists its
published objects); :func:`routes` finds them by walking the URLconf, so this app
imports no module of the pages. Every page is rendered by a request to the site's own
views (middleware, i18n_patterns and templates as for a visitor), with the page cache
off, the URL and file name coming from django-distill's functions. The files are written
at the path a static host serves for the live URL (``/en/papers/x/`` ->
``en/papers/x/index.html``), only when their bytes changed; files an earlier run wrote
that are no longer produced are removed, and no other file.
"""

import contextlib
import io
import json
import logging
import re
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.template.loader import render_to_string
from django.test.utils import override_settings
from django.urls import Resolver404, resolve, reverse
from django.utils import translation
from django_distill.request import (
    generate_filename,
    generate_uri,
    get_static_filepath,
    get_uri_values,
)
from django_distill.utils import iter_url_patterns

from opendata import downloads as opendata
from opendata.api.answers import NAMESPACE as API_NAMESPACE
from publishing.files import PublishError

# --- What is published: the routes the URLconf marks. ------------------------------


@dataclass(frozen=True)
class Route:
    """A published route of the URLconf, in the shape django-distill's renderer reads:
    ``func`` yields the URL kwargs of each page, ``file`` names the output file when the
    URL's own path would not be served with the right type (its ``distill_func`` and
    ``distill_file``, pages/distill.py). ``after``: its pages are rendered once every
    other page is written, by the process that records them (publishing/render.py), for
    a page built from other pages' files. ``finish``, when given, turns the view's
    answer (bytes) into the bytes published (e.g. ``published_api_document``)."""

    name: str
    namespace: str | None = None
    func: object = None
    file: str | None = None
    after: bool = False
    finish: object = None

    @property
    def distill_namespace(self):
        return self.namespace

    @property
    def distill_func(self):
        return self.func or _nothing

    @property
    def distill_file(self):
        return self.file


def _nothing():
    return None


def routes():
    """The routes of the URLconf marked as published (``distill_func``, as
    django-distill's ``distill_path()`` and pages/distill.py mark them), in its order,
    found by walking the URLconf: the publisher imports no module of the pages."""
    return [
        Route(
            pattern.name,
            namespace,
            pattern.distill_func,
            pattern.distill_file,
            after=(namespace, pattern.name) in AFTER,
            finish=FINISH.get((namespace, pattern.name)),
        )
        for pattern, namespace, _depth in iter_url_patterns()
        if getattr(pattern, "distill_func", None) is not None
    ]


# --- The API's documents as a static host holds them. ----------------------------


def _unpublished_api_link(value, api_root, published):
    """Whether the string ``value`` is an absolute URL under ``api_root`` (the API's
    public address) naming an API document the published site has no file for (a
    route not in ``published``, (namespace, name) pairs, or any query string). Any
    other string (text, a page's or a download's URL, another host's) is not."""
    if not value.startswith(api_root):
        return False
    parts = urlsplit(value)
    try:
        match = resolve(unquote(parts.path))
    except Resolver404:
        return True
    return bool(parts.query) or (match.namespace, match.url_name) not in published


def _nulled(value, api_root, published):
    """``value`` (parsed JSON) with every ``_unpublished_api_link`` string made None."""
    if isinstance(value, dict):
        return {key: _nulled(item, api_root, published) for key, item in value.items()}
    if isinstance(value, list):
        return [_nulled(item, api_root, published) for item in value]
    if isinstance(value, str) and _unpublished_api_link(value, api_root, published):
        return None
    return value


def published_api_document(body):
    """The published bytes of an API answer ``body`` (JSON bytes, as django-ninja's
    renderer writes it: ``json.dumps`` with its defaults): every link to an API address
    that no published route gives (the lists, an award, a paper, an author, ...;
    anything with a query string) is null, so that the static host's documents name
    only files it has. The live API is not changed; other values keep their bytes."""
    api_root = settings.SITE_URL + reverse(f"{API_NAMESPACE}:index")
    published = {(route.namespace, route.name) for route in routes() if route.namespace}
    return json.dumps(_nulled(json.loads(body), api_root, published)).encode()


# The Swagger UI settings django-ninja writes into the docs page (ninja/swagger.html).
_SWAGGER_SETTINGS = re.compile(
    rb'<script type="application/json" id="swagger-settings">(.*?)</script>', re.DOTALL
)


def published_api_docs_page(body):
    """The published bytes of the API's docs page ``body`` (HTML bytes): Swagger UI
    without "Try it out" (its setting ``supportedSubmitMethods: []``), which would ask
    the static host for lists and objects it has no file for. Raises PublishError when
    the page has no Swagger UI settings (django-ninja's template changed)."""
    found = _SWAGGER_SETTINGS.search(body)
    if found is None:
        raise PublishError("the API's docs page has no Swagger UI settings to publish")
    swagger = json.loads(found.group(1))
    swagger["supportedSubmitMethods"] = []
    text = json.dumps(swagger, indent=1).encode()
    return body[: found.start(1)] + b"\n" + text + b"\n" + body[found.end(1) :]


# What a publish does to some routes' pages. The API's documents name only files the
# static host has; its docs page has no "Try it out" (published_api_docs_page).
FINISH = {
    (API_NAMESPACE, "index"): lambda body: published_api_document(body),
    (API_NAMESPACE, "conference"): lambda body: published_api_document(body),
    (API_NAMESPACE, "openapi-view"): lambda body: published_api_docs_page(body),
}
# Built from the conferences' archives (Site.reuse_conference_archives): rendered after
# them, in the process that records what the workers wrote.
AFTER = {(None, "opendata-site-compact")}


# --- Pages for the addresses that have none. ----------------------------------------


def not_found_pages(site):
    """The pages a static host shows for an address with no file (HTTP 404), as
    ``{relative path: bytes}``, for ``Publisher.write``:

    - ``<lang>/404.html`` for each language of ``settings.LANGUAGES``: the live site's
      404 page for a missing address under that prefix (its ``handler404``, answering
      ``/<lang>/404.html`` itself, which no route matches), for a web server that can
      pick a page by prefix (README: the nginx snippet's ``error_page``);
    - ``404.html`` at the top, for every other address and for hosts that take one 404
      page for the whole site (GitHub Pages, Netlify, S3's error document): the same
      words in every language, each with its language's home and search
      (templates/publish_404.html). The live site answers such an address in the
      visitor's language; a file cannot know it.

    ``site`` is the :class:`Site` that renders the pages (with DEBUG off here, whatever
    the settings say). Raises PublishError when the live site does not answer 404
    there (a route now matches that address).
    """
    files = {}
    languages = []
    for code, _name in settings.LANGUAGES:
        uri = f"/{code}/404.html"
        # With DEBUG on, Django answers a 404 with its technical page instead.
        with (
            translation.override(code),
            override_settings(DEBUG=False),
            _not_logged_as_not_found(uri),
        ):
            status, body = site.get(uri)
            languages.append(
                {
                    "code": code,
                    "home": reverse("papers:home"),
                    "search": reverse("papers:search"),
                }
            )
        if status != 404:
            raise PublishError(f"{uri} answered {status}, not 404: it cannot be the 404 page.")
        files[uri.lstrip("/")] = body
    files["404.html"] = render_to_string("publish_404.html", {"languages": languages}).encode()
    return files


class _NotFoundAt(logging.Filter):
    """Drops django.request's "Not Found: <path>" record of one path (``path``)."""

    def __init__(self, path):
        super().__init__()
        self.path = path

    def filter(self, record):
        request = getattr(record, "request", None)
        return not (
            getattr(record, "status_code", None) == 404
            and getattr(request, "path", None) == self.path
        )


@contextlib.contextmanager
def _not_logged_as_not_found(path):
    """Within: Django's request logger does not report the 404 of ``path`` (a path, as
    the request has it). The 404 pages are rendered by asking for an address that has
    none on purpose; its "Not Found" warning, which Django logs for every 404
    (``django.utils.log.log_response``), would report a broken link that is not one.
    Any other record, a 404 of another path included, is logged as ever."""
    logger = logging.getLogger("django.request")
    quiet = _NotFoundAt(path)
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


# --- Rendering and writing. --------------------------------------------------------


def pages():
    """Every published URL in every language it exists in, as (route, kwargs, language),
    in the URLconf's order: a route under i18n_patterns once per language, others once.
    The URL kwargs come from each route's function as django-distill reads them
    (``get_uri_values``); which languages a route has is found from its first page's
    URLs (a route is under i18n_patterns or not, whatever its kwargs), not by reversing
    every page in every language (5 s of the 5,000-paper data set's listing)."""
    for route in routes():
        languages = None
        for param_set in get_uri_values(route.distill_func, route.name):
            kwargs = (param_set,) if isinstance(param_set, str) else (param_set or ())
            if languages is None:
                languages = _languages(route, kwargs)
            for code in languages:
                yield route, kwargs, code


def _languages(route, kwargs):
    """The codes of settings.LANGUAGES under which ``route``'s page of ``kwargs`` has a
    URL of its own (the first language of each distinct URL)."""
    seen, codes = set(), []
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            uri = _reverse(route, kwargs)
        if uri not in seen:
            seen.add(uri)
            codes.append(code)
    return codes


def _reverse(route, kwargs):
    name = f"{route.namespace}:{route.name}" if route.namespace else route.name
    if isinstance(kwargs, dict):
        return reverse(name, kwargs=kwargs)
    return reverse(name, args=kwargs)


# Middleware a publish run leaves out (issue 12: about 0.5 ms of a page's 5 to 8): each
# only adds response headers, which a file does not keep (the static host sends its own:
# README "Publishing to a static host"), answers requests other than a published page's
# (static files, CORS preflights, locked-out logins), or works on what a publish request
# never has (a cookie, a POST, a message, a cached copy: the page cache is off). The
# pages' bytes are the same with and without them: tests/publishing/test_publish_render.py renders
# every shipped page both ways. Kept: sessions and authentication (views read
# ``request.user``, e.g. PreviewMixin), LocaleMiddleware (the language of the URL), and
# any middleware not named here, such as one added to the settings later.
NOT_PUBLISHING_MIDDLEWARE = {
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.http.ConditionalGetMiddleware",
    "pagecache.caching.PublicPageCacheMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
}


def publish_middleware():
    """``settings.MIDDLEWARE`` without ``NOT_PUBLISHING_MIDDLEWARE``, in its order."""
    return [name for name in settings.MIDDLEWARE if name not in NOT_PUBLISHING_MIDDLEWARE]


class Site:
    """The site's WSGI application, asked for one page at a time as a visitor would
    (GET, no cookie, no Accept-Encoding), at ``site_url``'s scheme and host.

    django-distill 4.0.6's ``render_pattern()`` builds a new WSGI handler for every page
    (``internal_wsgi_request``), so all middleware is set up again each time: WhiteNoise
    scanned every static file per page, 135 ms of the 150 ms a page took. Here the
    handler is made once, with the middleware of ``publish_middleware()``; the URL and
    the file name still come from django-distill (``generate_uri``,
    ``generate_filename``, ``get_static_filepath``).
    """

    def __init__(self, site_url):
        scheme, _, host = site_url.partition("://")
        self.scheme = scheme
        self.host, _, port = host.partition("/")[0].partition(":")
        self.port = port or ("443" if scheme == "https" else "80")
        # The handler loads its middleware when made: only what a published page needs.
        middleware = publish_middleware()
        with override_settings(MIDDLEWARE=middleware):
            self.handler = WSGIHandler()
        self.compact_export = None  # see reuse_conference_archives()

    def reuse_conference_archives(self, publisher, changes):
        """Build the whole site's compact archive from the conferences' own compact
        archives: those this run wrote, and those the last run published for each
        conference whose archive ``changes`` (publishing.affected.Affected) does not name.
        They hold the same compact file and images the site's archive holds for it
        (``opendata.read_compact_archive``). Exporting every conference again took 16 s
        of CPU at 5,000 papers on every run. A conference whose archive is missing or
        unreadable is exported afresh; the archive's bytes are the same either way.
        The site's archive is rendered after every other page (its route's
        ``after``): a worker process's ``publisher.produced`` would not
        name the archives the other workers wrote, and the changed conferences would be
        exported twice."""
        route = next((r for r in routes() if r.name == "opendata-conference-compact"), None)
        if route is None:
            return
        language = settings.LANGUAGES[0][0]

        def export(conference):
            kwargs = {"slug": conference.slug}
            _uri, relative = self.target(route, kwargs, language)
            # Kept from the last run, or written by this one (before the site's archive).
            written = relative in publisher.produced and not publisher.dry_run
            if written or not changes.covers(route.name, kwargs):
                if written or publisher.has(relative):
                    try:
                        data = (publisher.directory / relative).read_bytes()
                        return opendata.read_compact_archive(data, conference.slug)
                    except (OSError, zipfile.BadZipFile, KeyError):
                        pass
            return opendata.export_compact(conference)

        self.compact_export = export

    def _environ(self, uri):
        return {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": unquote(uri).encode().decode("latin-1"),
            "SCRIPT_NAME": "",
            "QUERY_STRING": "",
            "SERVER_NAME": self.host,
            "SERVER_PORT": self.port,
            "SERVER_PROTOCOL": "HTTP/1.1",
            "wsgi.url_scheme": self.scheme,
            "wsgi.input": io.BytesIO(),
            "wsgi.errors": io.StringIO(),
            "wsgi.version": (1, 0),
            "wsgi.multithread": False,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }

    def get(self, uri):
        """(status code, body) of GET ``uri`` (a path, as reverse() gives it)."""
        environ = self._environ(uri)
        statuses = []
        # As Django's test client does: the pages are asked for one after another by
        # one process, so the connection is not closed and opened again around each
        # (close_old_connections closes one inside a transaction, such as a test's).
        request_started.disconnect(close_old_connections)
        request_finished.disconnect(close_old_connections)
        try:
            chunks = self.handler(
                environ, lambda status, headers, exc_info=None: statuses.append(status)
            )
            try:
                body = b"".join(chunks)
            finally:
                chunks.close()  # as a WSGI server does: request_finished, files closed
        finally:
            request_started.connect(close_old_connections)
            request_finished.connect(close_old_connections)
        return int(statuses[0].split(" ", 1)[0]), body

    def target(self, route, kwargs, language):
        """(uri, path in the output) of one page in ``language``, without rendering it."""
        with translation.override(language):
            uri = generate_uri(route.distill_namespace, route.name, kwargs)
        filename = generate_filename(route.distill_file, uri, kwargs)
        path, _local = get_static_filepath(PurePosixPath(), filename, uri)
        return uri, str(path)

    def render(self, route, kwargs, language):
        """(uri, path in the output, body) of one page in ``language``. Raises
        PublishError naming the URL for any answer but 200 (a static host cannot
        redirect or refuse)."""
        uri, path = self.target(route, kwargs, language)
        if route.name == "opendata-site-compact" and self.compact_export is not None:
            return uri, path, opendata.site_compact_archive(export=self.compact_export)
        with translation.override(language):
            status, body = self.get(uri)
        if status != 200:
            raise PublishError(f"{uri} answered {status}, not 200: nothing can be published there.")
        if route.finish is not None:
            body = route.finish(body)
        return uri, path, body

    def render_many(self, route, items):
        """(uri, path in the output, body) of ``route``'s page for each (URL kwargs,
        language) of ``items``, in their order, as ``render()`` gives them."""
        for kwargs, language in items:
            yield self.render(route, kwargs, language)
