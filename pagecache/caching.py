"""Public pages served to anonymous visitors from Django's cache, retired by any change.

A page's key holds the release (:func:`release`: code, templates, catalogues, static
files), the content generation (``catalogue.models.ContentGeneration``: raised in the
transaction of every change to the catalogue's models and by ``content_changed``; see
:func:`current_generation` for when a process reads it), the language, gzip or not, the
scheme, host, path and query string.

Only a ``GET`` or ``HEAD`` without a session or messages cookie and without ``?preview``
is served from the cache (staff and anyone logged in carry the session cookie). A
response is stored only when it answers such a ``GET``, comes from a route marked public
(:func:`is_public_view`, the registry of pages/distill.py) and holds nothing personal
(:func:`is_storable`). Public pages, stored or not, get an ``ETag`` (answered with 304 by
``ConditionalGetMiddleware``, before this one), ``Cache-Control: public`` and gzip; only
they are gzipped, as they hold no secret for BREACH to find.

Not Django's ``CacheMiddleware``: it keys pages by URL and ``Vary`` only (no content
generation), serves staff, and stores nothing marked ``max-age=0``.
"""

import functools
import hashlib
import logging
import re
import time

from django.conf import settings
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.cache import cache
from django.db import transaction
from django.middleware.gzip import GZipMiddleware
from django.urls import get_resolver
from django.utils.cache import has_vary_header, patch_cache_control, set_response_etag
from django.utils.translation import get_language_from_request
from django_distill.utils import iter_url_patterns

from awardsite.release import fingerprint
from catalogue.models import ContentGeneration

logger = logging.getLogger(__name__)
PERSONAL = re.compile(r"\b(private|no-store|no-cache)\b", re.IGNORECASE)
ACCEPTS_GZIP = re.compile(r"\bgzip\b")  # as Django's GZipMiddleware reads Accept-Encoding


# (monotonic seconds, number) of this process's last read of the content generation.
_last_read = [float("-inf"), 0]


def current_generation():
    """The content generation (an int), read from the database at most once every
    ``settings.PAGE_CACHE_GENERATION_TTL`` seconds in this process, and afresh after
    this process changed the content. So a change made through another process reaches
    this one's visitors within that time (1 s; a CDN may keep a page for
    ``DJANGO_CDN_MAX_AGE``, 60 s); editors, who carry a session, never get a cached page.

    Why not read it for each hit: on PostgreSQL that was two round trips (the query and
    ``CONN_HEALTH_CHECKS``' ``SELECT 1``), and ``make bench``'s cached pages ran at
    0.47-0.48 of the trivial view's req/s (issue 28's target: 0.5), SQLite's at 0.67-0.74;
    read this way, 0.83-0.92 and 0.84-0.91 (5,000 papers, one round).
    """
    read_at, number = _last_read
    now = time.monotonic()
    if now - read_at >= settings.PAGE_CACHE_GENERATION_TTL:
        number = ContentGeneration.objects.current()
        _last_read[:] = [now, number]
    return number


def forget_generation():
    """Make this process's next :func:`current_generation` read the database."""
    _last_read[0] = float("-inf")


def retire_cached_pages(**kwargs):
    """Raise the content generation (a receiver of any signal: ``kwargs`` are ignored),
    so that no page cached before this transaction commits is served after it."""
    ContentGeneration.objects.advance()
    # Now, and again at the commit: a request of this process that read the number in
    # between would otherwise keep the old one for PAGE_CACHE_GENERATION_TTL.
    forget_generation()
    transaction.on_commit(forget_generation)


@functools.cache
def release():
    """The release in 12 hex digits (``awardsite.release.fingerprint()``, about 70 ms),
    computed once per process: the middleware asks for it as Django loads it."""
    return fingerprint()[:12]


def is_anonymous_request(request):
    """True for a ``GET`` or ``HEAD`` without a session or messages cookie, not a
    preview nor a static file: the only requests the cache serves or stores."""
    cookies = request.COOKIES
    return (
        request.method in {"GET", "HEAD"}
        and not request.path_info.startswith(settings.STATIC_URL)
        and settings.SESSION_COOKIE_NAME not in cookies
        and CookieStorage.cookie_name not in cookies
        and settings.PREVIEW_PARAMETER not in request.GET
    )


@functools.cache
def public_view_names(urlconf):
    """The view names (``namespace:name``) of the routes of ``urlconf`` (a module path)
    marked public (``pattern.public``, set by pages/distill.py's ``public()`` and
    ``distill()``), read once per process."""
    return frozenset(
        ":".join(filter(None, [namespace, pattern.name]))
        for pattern, namespace, _depth in iter_url_patterns(get_resolver(urlconf).url_patterns)
        if getattr(pattern, "public", False)
    )


def is_public_view(request):
    """True when the view that answered ``request`` may be stored: its route is marked
    public in the URLconf. False when no view answered (a 404)."""
    match = getattr(request, "resolver_match", None)
    urlconf = getattr(request, "urlconf", None) or settings.ROOT_URLCONF
    return match is not None and match.view_name in public_view_names(urlconf)


def is_storable(request, response):
    """True when ``response`` holds nothing personal and may be sent to every visitor."""
    return (
        response.status_code == 200
        and not response.cookies
        and not has_vary_header(response, "Cookie")
        and not PERSONAL.search(response.get("Cache-Control", ""))
        and "CSRF_COOKIE_NEEDS_UPDATE" not in request.META  # get_token() was called
        # django-csp's nonce, true once a template used it: every visitor would share it.
        and not getattr(request, "csp_nonce", None)
    )


def page_key(request, generation):
    """The cache key of ``request``'s page at content ``generation`` (an int). The
    language is the one LocaleMiddleware will choose (the URL's prefix, else the
    language cookie or ``Accept-Language``); gzip or not, as the client accepts; the
    address is hashed, so that any query string makes a valid key."""
    language = get_language_from_request(request, check_path=True)
    encoding = "gzip" if ACCEPTS_GZIP.search(request.headers.get("Accept-Encoding", "")) else "id"
    address = f"{request.scheme}://{request.get_host()}{request.get_full_path()}"
    digest = hashlib.sha256(address.encode()).hexdigest()
    return f"page:{release()}:{generation}:{language}:{encoding}:{digest}"


class PublicPageCacheMiddleware:
    """Serve public pages to anonymous visitors from the cache (see the module docstring).

    Goes right after ConditionalGetMiddleware, before every other middleware but CORS,
    so a hit skips them and the headers they add are stored with the page.
    ``settings.PAGE_CACHE_ENABLED`` false renders every page, still tagged and gzipped.
    If the cache fails (Redis down or hung), the page is rendered and the error logged.

    Speed (issue 28: a hit at least 0.5 of a trivial view's rate), measured by
    benchmarks/server_time.py, CPU per request: the page is stored gzipped (gzipping
    each hit took 0.5 of the conference page's 0.91 ms), the generation is read at
    most once a second (:func:`current_generation`), and this middleware sits outside
    the CSP one (0.19 ms, now 0.13).
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.gzip = GZipMiddleware(get_response)
        release()  # at start-up rather than in a visitor's request

    def __call__(self, request):
        key = None
        anonymous = is_anonymous_request(request)
        if settings.PAGE_CACHE_ENABLED and anonymous:
            key = page_key(request, current_generation())
            try:
                cached = cache.get(key)
            except Exception:  # the cache only saves work: never fail a page for it
                logger.exception("could not read a page from the cache")
                cached = key = None
            if cached is not None:
                return cached
        response = self.get_response(request)
        if not (anonymous and is_public_view(request) and is_storable(request, response)):
            return response
        if not response.streaming:
            set_response_etag(response)  # of the body before gzip: the same every time
        patch_cache_control(
            response,
            public=True,
            max_age=settings.PAGE_CACHE_MAX_AGE,
            s_maxage=settings.PAGE_CACHE_SHARED_MAX_AGE,
        )
        response = self.gzip.process_response(request, response)
        if key is not None and request.method == "GET" and not response.streaming:
            try:
                cache.set(key, response, settings.PAGE_CACHE_TIMEOUT)
            except Exception:  # the page is answered anyway
                logger.exception("could not store a page in the cache")
        return response
