"""The public site as files for a plain static host (``manage.py publish_site``).

The published routes are those pages/distill.py marks as django-distill's
``distill_path()`` does; :func:`routes` finds them by walking the URLconf, so this app
imports no module of the pages. Each page is a GET through the site's own WSGI handler
(middleware, i18n_patterns and templates as for a visitor), its URL and file name from
django-distill's functions (``/en/papers/x/`` -> ``en/papers/x/index.html``).
"""

import io
import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler, WSGIRequest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.template.loader import render_to_string
from django.urls import Resolver404, get_resolver, resolve, reverse
from django.utils import translation
from django_distill.request import (
    generate_filename,
    generate_uri,
    get_static_filepath,
    get_uri_values,
)
from django_distill.utils import iter_url_patterns

from opendata import downloads as opendata
from opendata.api.schemas import NAMESPACE as API_NAMESPACE
from publishing.files import PublishError


@dataclass(frozen=True)
class Route:
    """A published route: the pattern's ``distill_func`` (yielding each page's URL kwargs)
    and ``distill_file``; ``after``: rendered once every other page is written, by the
    process recording them; ``finish``: turns the view's bytes into those published."""

    name: str
    namespace: str | None
    func: object
    file: str | None = None
    after: bool = False
    finish: object = None


def routes():
    """The routes of the URLconf marked as published (``distill_func``), in its order."""
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


def _nulled(value, api_root, published):
    """``value`` (parsed JSON) with None for each absolute URL under ``api_root`` that
    names no route of ``published`` ((namespace, name) pairs) or has a query string."""
    if isinstance(value, dict):
        return {key: _nulled(item, api_root, published) for key, item in value.items()}
    if isinstance(value, list):
        return [_nulled(item, api_root, published) for item in value]
    if isinstance(value, str) and value.startswith(api_root):
        parts = urlsplit(value)
        try:
            match = resolve(unquote(parts.path))
        except Resolver404:
            return None
        if parts.query or (match.namespace, match.url_name) not in published:
            return None
    return value


def published_api_document(body):
    """The published bytes of an API answer ``body`` (JSON bytes, from django-ninja): every
    link to an API address no published route gives is null, so the static host's
    documents name only its files."""
    api_root = settings.SITE_URL + reverse(f"{API_NAMESPACE}:index")
    published = {(route.namespace, route.name) for route in routes() if route.namespace}
    return json.dumps(_nulled(json.loads(body), api_root, published)).encode()


# The Swagger UI settings django-ninja writes into the docs page (ninja/swagger.html).
_SWAGGER_SETTINGS = re.compile(
    rb'<script type="application/json" id="swagger-settings">(.*?)</script>', re.DOTALL
)


def published_api_docs_page(body):
    """The published bytes of the API's docs page ``body`` (HTML bytes): Swagger UI
    without "Try it out", which would ask the static host for files it has not. Raises
    PublishError when the page has no Swagger UI settings (django-ninja's changed)."""
    found = _SWAGGER_SETTINGS.search(body)
    if found is None:
        raise PublishError("the API's docs page has no Swagger UI settings to publish")
    swagger = json.loads(found.group(1))
    swagger["supportedSubmitMethods"] = []
    text = json.dumps(swagger, indent=1).encode()
    return body[: found.start(1)] + b"\n" + text + b"\n" + body[found.end(1) :]


FINISH = {
    (API_NAMESPACE, "index"): published_api_document,
    (API_NAMESPACE, "conference"): published_api_document,
    (API_NAMESPACE, "openapi-view"): published_api_docs_page,
    ("papers", "api-docs"): published_api_docs_page,  # the same page in each language
}
# Built from the conferences' archives (Site.reuse_conference_archives).
AFTER = {(None, "opendata-site-compact")}


def not_found_pages(site):
    """The pages a static host shows for an address with no file, ``{relative path:
    bytes}``: ``<lang>/404.html``, the URLconf's ``handler404`` called as Django calls it
    (so DEBUG shows no technical page and nothing is logged), and ``404.html`` with every
    language's words, home and search (templates/publish_404.html). ``site``: the
    :class:`Site`. Raises PublishError when a route matches ``/<lang>/404.html``."""
    files = {}
    languages = []
    for code, _name in settings.LANGUAGES:
        uri = f"/{code}/404.html"
        with translation.override(code):
            try:
                resolve(uri)
            except Resolver404 as error:
                request = WSGIRequest(site.environ(uri))
                response = get_resolver().resolve_error_handler(404)(request, error)
            else:
                raise PublishError(f"{uri} is a page of the site: it cannot be the 404 page.")
            languages.append(
                {"code": code, "home": reverse("papers:home"), "search": reverse("papers:search")}
            )
        files[uri.lstrip("/")] = response.content
    files["404.html"] = render_to_string("publish_404.html", {"languages": languages}).encode()
    return files


def pages():
    """Every published page as (route, kwargs, language), in the URLconf's order, in each
    language in which it has a URL of its own: its route's first page's (reversing every
    page took 5 s at 5,000 papers)."""
    for route in routes():
        uris = {}
        for param_set in get_uri_values(route.func, route.name):
            kwargs = (param_set,) if isinstance(param_set, str) else (param_set or ())
            if not uris:  # the route's first page
                for code, _name in settings.LANGUAGES:
                    with translation.override(code):
                        uris.setdefault(generate_uri(route.namespace, route.name, kwargs), code)
            for code in uris.values():
                yield route, kwargs, code


class Site:
    """The site's WSGI application, asked for one page at a time as a visitor would (GET,
    no cookie, no Accept-Encoding) at ``site_url``'s scheme and host. One handler for all
    pages: django-distill 4.0.6 makes one a page, and WhiteNoise scanned every static
    file each time (135 ms of a page's 150)."""

    def __init__(self, site_url):
        self.scheme, _, host = site_url.partition("://")
        self.host, _, port = host.partition("/")[0].partition(":")
        self.port = port or ("443" if self.scheme == "https" else "80")
        self.handler = WSGIHandler()
        self.compact_export = None  # see reuse_conference_archives()

    def reuse_conference_archives(self, publisher, changes):
        """Build the site's compact archive from the conferences' archives this run wrote,
        or the last run wrote and ``changes`` (an ``Affected``) does not name, rather than
        export every conference again (16 s of CPU at 5,000 papers). A missing or
        unreadable archive is exported afresh."""
        route = next((r for r in routes() if r.name == "opendata-conference-compact"), None)
        if route is None:
            return
        language = settings.LANGUAGES[0][0]

        def export(conference):
            kwargs = {"slug": conference.slug}
            _uri, relative = self.target(route, kwargs, language)
            written = relative in publisher.produced and not publisher.dry_run
            if written or (not changes.covers(route.name, kwargs) and publisher.has(relative)):
                try:
                    data = (publisher.directory / relative).read_bytes()
                    return opendata.read_compact_archive(data, conference.slug)
                except (OSError, zipfile.BadZipFile, KeyError):
                    pass
            return opendata.export_compact(conference)

        self.compact_export = export

    def environ(self, uri):
        """The WSGI environ of a visitor's GET ``uri`` (a path, as reverse() gives it)."""
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
        statuses = []
        # As Django's test client does: one process asks for one page after another, so
        # the connection is kept (close_old_connections would close a test's transaction).
        request_started.disconnect(close_old_connections)
        request_finished.disconnect(close_old_connections)
        try:
            chunks = self.handler(
                self.environ(uri), lambda status, headers, exc_info=None: statuses.append(status)
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
            uri = generate_uri(route.namespace, route.name, kwargs)
        filename = generate_filename(route.file, uri, kwargs)
        path, _local = get_static_filepath(PurePosixPath(), filename, uri)
        return uri, str(path)

    def render(self, route, kwargs, language):
        """(uri, path in the output, body) of one page in ``language``. Raises PublishError
        naming the URL for any answer but 200 (a static host cannot redirect or refuse)."""
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
        """``render()`` of ``route``'s page for each (URL kwargs, language) of ``items``."""
        for kwargs, language in items:
            yield self.render(route, kwargs, language)
