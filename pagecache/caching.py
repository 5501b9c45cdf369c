"""Public pages served from Django's cache to anonymous visitors, retired at once on a change.

What is cached: the response of every public view (the ``papers`` URL namespace: pages,
feeds, citation downloads; the sitemap; robots.txt; the JSON API and the open data
downloads), per release (:func:`release`), per full URL including the query
string, per language and per gzip/identity encoding, for a ``GET`` by a visitor who
carries no session or messages cookie. Never cached: staff and anyone logged in (they
carry the session cookie), ``?preview=1``, other methods than ``GET``/``HEAD``, the
admin, and any response that is not a plain 200, sets a cookie, varies on ``Cookie``,
is marked private or no-store, used the session, queued a message, holds a CSRF
token (``get_token()`` was called) or a CSP nonce (``request.csp_nonce`` was used).
So nothing personal is stored or shared. A streamed response (a big conference's
citation download) is stored once it has been sent whole, if it is at most
``PAGE_CACHE_STREAM_MAX_BYTES`` as sent (:func:`stored_when_sent`).

Instant invalidation: :class:`~catalogue.models.ContentGeneration` holds a number raised
in the same transaction as every change to a ``papers`` model (``post_save``,
``post_delete`` and ``m2m_changed`` signals, connected in ``catalogue.apps``) and by the
importer, whose bulk queries send no signals (``importing.applying``). Each
cached page is stored with the number current when its request began, and served only
to a request that finds the same number current, so the next request after a change
commits renders afresh, in every app server. Where that request learns the number
depends on the cache:

- **Shared cache** (Redis, ``REDIS_URL``; any backend but local memory): the number is
  also kept in the cache, under :data:`GENERATION_KEY`, and read together with the page
  in one ``get_many``: a hit costs one cache round trip and no query. On Redis each
  process also keeps the pages it served in its memory (:class:`NearPages`, up to
  ``settings.PAGE_CACHE_NEAR_SIZE`` bytes) and the generation too, read on a
  connection with Redis's ``CLIENT TRACKING`` on (``awardsite.cache.TrackedKey``):
  Redis tells that connection when the key changes, so a hit costs no round trip at
  all until it does. When a change
  commits, the process that made it writes the new number there
  (``transaction.on_commit``), before its own response is sent, so every server sees
  it on its next request. When the key is missing (evicted, expired, a new Redis), the
  number is read from the database and put back with ``add``, which never overwrites a
  newer number written by a commit meanwhile. The key expires after
  ``settings.PAGE_CACHE_GENERATION_TIMEOUT`` seconds and is read afresh: the bound on
  how long a page could stay stale if a write to the cache after a commit were lost
  (Redis down at that moment, the process killed between commit and write).
- **Local memory** (the default, one cache per process): another gunicorn worker's
  change cannot reach this process's memory, so the number is read from the database on
  every request, one query of one row (cheap on SQLite, a round trip on PostgreSQL:
  production on PostgreSQL uses Redis, README "Running at scale").

A page is stored under a key without the number, with the number inside the stored
value, so a new rendering replaces the retired one instead of leaving it to expire.

Why a middleware of our own rather than Django's ``CacheMiddleware``/``cache_page``:
those key a page by URL and ``Vary`` headers only, so they cannot add the content
generation, and they would serve cached pages to staff. The pieces are Django's own:
the cache framework (``django.core.cache``), ``patch_cache_control``,
``set_response_etag``, ``GZipMiddleware`` (applied here, to public pages only, at zlib
level ``GZIP_LEVEL``: :class:`PageGZipMiddleware`) and
``ConditionalGetMiddleware`` (in settings, outside this one: it answers ``304 Not
Modified`` from the ``ETag`` stored with each page).

Headers for browsers and CDNs: ``Cache-Control: public, max-age=PAGE_CACHE_MAX_AGE,
s-maxage=PAGE_CACHE_SHARED_MAX_AGE`` (defaults 0 and 60 seconds: a browser revalidates
each time, cheaply, with ``If-None-Match``; a CDN may keep a page a minute, so a change
reaches visitors behind a CDN within that time) and an ``ETag``.

Compression and BREACH: only these public pages are gzipped. They hold no secret (no
CSRF token, no session data, checked above), so an attacker who reflects text into a
page learns nothing by watching its compressed size; the admin, whose pages carry CSRF
tokens, is never compressed.
"""

import collections
import functools
import gzip
import hashlib
import logging
import os
import re
import threading
import time

from django.conf import settings
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache
from django.core.signals import setting_changed
from django.db import connection, transaction
from django.db.models import F
from django.http import HttpResponse
from django.http.response import ResponseHeaders
from django.middleware.gzip import GZipMiddleware
from django.urls import reverse
from django.utils import text
from django.utils.cache import (
    has_vary_header,
    patch_cache_control,
    patch_vary_headers,
    set_response_etag,
)
from django.utils.datastructures import CaseInsensitiveMapping
from django.utils.translation import get_language_from_request

from awardsite.release import fingerprint
from catalogue.models import GENERATION_ID, ContentGeneration
from opendata.api.answers import NAMESPACE as API_NAMESPACE
from pages.views import PreviewMixin

logger = logging.getLogger(__name__)

# Public views outside the ``papers`` namespace, by URL name: the sitemap index and its
# parts (pages.sitemaps), robots.txt and the open data downloads (opendata/downloads.py).
PUBLIC_URL_NAMES = {
    "robots-txt",
    "sitemap",
    "sitemap-section",
    "sitemap-section-page",
    "opendata-site-csv",
    "opendata-conference-csv",
    "opendata-site-compact",
    "opendata-conference-compact",
}
# URL namespaces whose every view is public: the pages, and the JSON API (opendata/api/).
PUBLIC_NAMESPACES = {"papers", API_NAMESPACE}
# Views that set their own Content-Security-Policy through django-csp's decorators: a
# response attribute the cache does not keep, so a cached copy would get the default
# policy. The API's documentation page (opendata/api/__init__.py).
OWN_POLICY_URL_NAMES = {"openapi-view"}
# The sitemap views of django.contrib.sitemaps, whatever URL names they are given.
SITEMAP_VIEWS_MODULE = "django.contrib.sitemaps.views"
ACCEPTS_GZIP = re.compile(r"\bgzip\b")
UNCACHEABLE_DIRECTIVES = re.compile(r"\b(private|no-store|no-cache)\b", re.IGNORECASE)
# The cache key of the content generation in a shared cache (see the module docstring).
GENERATION_KEY = "page-generation"


# zlib's level for the public pages gzipped here (PageGZipMiddleware). Django's is 6. On
# the benchmark's conference page (111 KB of HTML, benchmarks/server_time.py) level 6
# took 0.61 ms of CPU and made 8,885 bytes, level 4 0.46 ms and 8,958 bytes (+0.8%),
# level 1 0.28 ms but 10,624 bytes (+20%); a page from the cache is sent as stored.
GZIP_LEVEL = 4


class PageGZipMiddleware(GZipMiddleware):
    """Django's ``GZipMiddleware`` compressing at zlib level ``GZIP_LEVEL`` instead of
    Django's fixed 6 (``django.utils.text.compress_string``), for a whole (not
    streaming) response: the same conditions (200 bytes or more, no
    ``Content-Encoding`` yet, a client that accepts gzip, only if smaller), the same
    headers (``Vary: Accept-Encoding``, ``Content-Length``, a strong ``ETag`` made
    weak, ``Content-Encoding: gzip``) and the same random file name in the gzip header
    against BREACH (``max_random_bytes``). Streaming responses go to Django's own code,
    at its level. Django has no setting for the level; tests/pagecache/test_caching.py checks
    that at level 6 this gives Django's bytes and headers."""

    level = GZIP_LEVEL

    def process_response(self, request, response):
        """``response`` gzipped for ``request`` if Django's middleware would gzip it."""
        if response.streaming:
            return super().process_response(request, response)
        if len(response.content) < 200 or response.has_header("Content-Encoding"):
            return response
        patch_vary_headers(response, ("Accept-Encoding",))
        if not ACCEPTS_GZIP.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
            return response
        compressed = compress_string(
            response.content, level=self.level, max_random_bytes=self.max_random_bytes
        )
        if len(compressed) >= len(response.content):
            return response
        response.content = compressed
        response.headers["Content-Length"] = str(len(response.content))
        etag = response.get("ETag")
        if etag and etag.startswith('"'):
            response.headers["ETag"] = "W/" + etag
        response.headers["Content-Encoding"] = "gzip"
        return response


def compress_string(content, *, level, max_random_bytes):
    """``content`` (bytes) gzipped at zlib ``level`` as Django's ``compress_string``
    does it at 6: no time stamp, and a file name of 0 to ``max_random_bytes - 1``
    random bytes (Django's ``_get_random_filename``) in the header."""
    compressed = gzip.compress(content, compresslevel=level, mtime=0)
    header = bytearray(compressed[:10])
    header[3] = gzip.FNAME
    return bytes(header) + text._get_random_filename(max_random_bytes) + b"\x00" + compressed[10:]


def content_generation():
    """The current content generation (0 before the first change): one query.

    Plain SQL without parameters rather than the ORM: it runs for every cached page,
    where compiling the query (or converting its parameters, on SQLite) took most of
    the time of an answer from the cache.
    """
    table = connection.ops.quote_name(ContentGeneration._meta.db_table)
    with connection.cursor() as cursor:
        # The table name is quoted by the backend and the id is an int constant: no input.
        cursor.execute(f"SELECT number FROM {table} WHERE id = {GENERATION_ID:d}")  # nosec B608
        row = cursor.fetchone()
    return row[0] if row else 0


def bump_content_generation(**kwargs):
    """Raise the content generation by one, retiring every cached page.

    Runs inside the caller's transaction, so the new number is seen together with the
    change it announces (and not at all if that change is rolled back). With a shared
    cache, the committed number is written to it when the transaction commits
    (:func:`publish_content_generation`). Works as a receiver of any model signal
    (``**kwargs`` are ignored) and as a plain call.
    """
    generations = ContentGeneration.objects.filter(pk=GENERATION_ID)
    if not generations.update(number=F("number") + 1):
        with transaction.atomic():
            _row, created = ContentGeneration.objects.get_or_create(
                pk=GENERATION_ID, defaults={"number": 1}
            )
        if not created:  # another process made the row in the meantime
            generations.update(number=F("number") + 1)
    if is_shared_cache():
        transaction.on_commit(publish_content_generation)


def is_shared_cache():
    """True when the page cache is shared by every process (any backend but Django's
    local memory, which each process keeps for itself), so it can hold the generation."""
    return not isinstance(caches[settings.PAGE_CACHE_ALIAS], LocMemCache)


def publish_content_generation(raise_errors=False):
    """Write the database's content generation to the shared cache (after a commit, and
    when the cache works again after an outage: :class:`CacheOutage`).

    Reads the number afresh rather than taking the one a transaction made: a later
    commit's number is never replaced by an earlier one. A failure is logged, not
    raised (unless ``raise_errors``): the change is committed; the key expires within
    ``settings.PAGE_CACHE_GENERATION_TIMEOUT`` seconds and is then read from the
    database, and this process writes it again when the cache next answers.
    """
    try:
        cache = caches[settings.PAGE_CACHE_ALIAS]
        cache.set(GENERATION_KEY, content_generation(), settings.PAGE_CACHE_GENERATION_TIMEOUT)
        # Redis also tells this process's tracked copy, on its own connection; reading
        # it again here does not depend on when that message arrives.
        near = _near
        config = caches.settings[settings.PAGE_CACHE_ALIAS]
        if near is not None and near.serves(config, settings.PAGE_CACHE_NEAR_SIZE):
            near.forget_generation()
    except Exception:  # the cache is an optimisation: never fail a committed change for it
        if raise_errors:
            raise
        outage.failed("could not write the content generation to the cache")


class CacheOutage:
    """This process's view of whether the page cache works (a circuit breaker).

    The cache is an optimisation: when it fails, pages are rendered and served without
    it. Without a pause every request would try it again: with Redis hung, each would
    wait ``DJANGO_REDIS_TIMEOUT`` (two sync workers then serve 4 pages a second) and log
    a traceback. So after a failure the cache is left alone for
    ``settings.PAGE_CACHE_RETRY_AFTER`` seconds; then one request tries it. The first
    failure of an outage is logged with its traceback, later ones as one line each retry,
    and the end of the outage once.

    When the cache works again, the content generation is written to it afresh
    (:func:`publish_content_generation`) before it is read: a change committed during
    the outage could not write it, and the cache would otherwise hold the old number,
    so old pages, until the key expired (``PAGE_CACHE_GENERATION_TIMEOUT``).
    """

    def __init__(self):
        self.since = None  # time.monotonic() of the outage's first failure
        self.retry_at = 0.0

    def usable(self):
        """False while pausing after a failure; True when the cache may be tried."""
        return time.monotonic() >= self.retry_at

    def failed(self, message):
        """Note a failure (call inside the ``except``: the first is logged with its
        traceback); ``message`` says what could not be done."""
        now = time.monotonic()
        pause = settings.PAGE_CACHE_RETRY_AFTER
        if self.since is None:
            self.since = now
            logger.exception("%s; pages are served without the cache for %s s", message, pause)
        else:
            logger.warning(
                "%s: the cache still fails after %.0f s; trying again in %s s",
                message,
                now - self.since,
                pause,
            )
        self.retry_at = now + pause

    def recovering(self):
        """True while the cache has failed and not yet answered again (each attempt
        after a pause): the caller writes the content generation afresh first, then
        calls :meth:`recovered` if that and its read worked."""
        return self.since is not None

    def recovered(self):
        """The cache answered again: log it, end the outage."""
        if self.since is not None:
            logger.warning("the page cache works again after %.0f s", time.monotonic() - self.since)
        self.since = None
        self.retry_at = 0.0


outage = CacheOutage()


def _forget_outage(*, setting, **kwargs):
    """A new cache (tests' ``override_settings``): it has not failed."""
    global outage
    if setting in {"CACHES", "PAGE_CACHE_ALIAS", "PAGE_CACHE_ENABLED"}:
        outage = CacheOutage()


setting_changed.connect(_forget_outage, dispatch_uid="pagecache.caching.outage")


class NearPages:
    """Pages of the shared cache also kept in this process's memory, at most ``size``
    bytes of bodies, the least recently used dropped first (README "Running at scale").

    Valid only at the generation the shared cache's tracked key holds
    (``awardsite.cache.TrackedKey``: Redis tells its connection when the key
    changes, so reading it costs no round trip while it has not), like every page of
    the shared cache: a page is served from here only if it was made at the current
    generation, and all are dropped when a new generation is seen. One per process,
    shared by its threads (a threaded server may make a thread per request), each
    method under one lock.
    """

    # Counted per page besides its body: the tuple, headers and key (about 1 KB).
    OVERHEAD = 1024

    def __init__(self, tracked, config, size):
        self.config = config
        self.size = size
        self.pid = os.getpid()
        self.used = 0
        self.generation = None
        self.pages = collections.OrderedDict()
        self.lock = threading.Lock()
        self.tracked = tracked

    def serves(self, config, size):
        """True when made for the cache settings ``config``, ``size`` and this process."""
        return self.config is config and self.size == size and self.pid == os.getpid()

    def current_generation(self):
        """The generation in the shared cache (None when it is missing there), without
        a round trip while Redis has not said it changed; drops every page when it has."""
        with self.lock:
            generation = self.tracked.get()
            if generation != self.generation:
                self.pages.clear()
                self.used = 0
                self.generation = generation
            return generation

    def forget_generation(self):
        """Read the generation from Redis on the next request (it was just written)."""
        with self.lock:
            self.tracked.forget()

    def get(self, key):
        """The stored page under ``key`` kept here, or None."""
        with self.lock:
            stored = self.pages.get(key)
            if stored is not None:
                self.pages.move_to_end(key)
            return stored

    def put(self, key, stored):
        """Keep ``stored`` (a :func:`frozen` page) under ``key`` if it was made at the
        current generation and its body is at most a quarter of ``size``."""
        cost = len(stored[-1]) + self.OVERHEAD
        with self.lock:
            if self.generation is None or stored[0] != self.generation or cost * 4 > self.size:
                return
            previous = self.pages.pop(key, None)
            if previous is not None:
                self.used -= len(previous[-1]) + self.OVERHEAD
            self.pages[key] = stored
            self.used += cost
            while self.used > self.size:
                _key, dropped = self.pages.popitem(last=False)
                self.used -= len(dropped[-1]) + self.OVERHEAD


_near = None
_near_lock = threading.Lock()
# The cache settings whose Redis refused to track a key (see near_pages).
_refused = None


def near_pages(cache):
    """This process's :class:`NearPages` for the shared ``cache`` (the cache object of
    the calling thread), or None when it is off (``settings.PAGE_CACHE_NEAR_SIZE`` 0),
    the backend cannot track a key, or Redis refused to (``RedisCache.tracked``
    returned None: an old server, or an ACL without ``CLIENT TRACKING``; logged once
    per process, and every hit then reads Redis, as with the size 0). Made again when
    the cache's settings or the size change (tests), in a forked child and after
    :func:`drop_near_pages`. Raises the cache's errors when Redis cannot be reached."""
    global _near, _refused
    size = settings.PAGE_CACHE_NEAR_SIZE
    if not size or not hasattr(cache, "tracked"):
        return None
    config = caches.settings[settings.PAGE_CACHE_ALIAS]
    near = _near
    if near is None or not near.serves(config, size):
        if _refused is config:
            return None
        with _near_lock:
            near = _near
            if near is None or not near.serves(config, size):
                tracked = cache.tracked(GENERATION_KEY)
                if tracked is None:
                    _refused = config
                    logger.warning(
                        "Redis refused CLIENT TRACKING: cached pages are read from Redis "
                        "on every request (DJANGO_PAGE_CACHE_NEAR_MB has no effect)"
                    )
                    return None
                near = _near = NearPages(tracked, config, size)
    return near


def drop_near_pages():
    """Forget this process's :class:`NearPages` (its pages and its tracked key's
    connection): the next request makes them again, checking that Redis still tracks."""
    global _near
    with _near_lock:
        _near = None


def cached_page(key):
    """``(generation, stored page or None)`` for the page cache key ``key``.

    The generation is the current one; the page is what :func:`frozen` stored under
    ``key`` if it was made at that generation, else None. Shared cache with a tracked
    generation (Redis, :class:`NearPages`): the generation from memory unless Redis has
    said it changed, and the page from memory, else one ``get`` from the cache. Other
    shared caches, or when the generation is missing there: one ``get_many`` of the
    generation and the page, and one query only when the generation is missing there.
    Local memory: one query and one ``get``. Cache errors propagate.
    """
    cache = caches[settings.PAGE_CACHE_ALIAS]
    shared = is_shared_cache()
    near = near_pages(cache) if shared else None
    if near is not None:
        try:
            generation = near.current_generation()
        except Exception:
            # Redis restarted with tracking refused, an ACL changed, Redis down: this
            # request reads Redis as without NearPages (whose errors propagate), the
            # next one makes NearPages again (near_pages checks tracking anew).
            drop_near_pages()
            near, generation = None, None
        if generation is not None:
            stored = near.get(key)
            if stored is None:
                stored = cache.get(key)
                if stored is not None:
                    near.put(key, stored)
            if stored is None or stored[0] != generation:
                return generation, None
            return generation, stored[1:]
    if shared:
        found = cache.get_many([GENERATION_KEY, key])
        generation = found.get(GENERATION_KEY)
        if generation is None:
            generation = content_generation()
            cache.add(GENERATION_KEY, generation, settings.PAGE_CACHE_GENERATION_TIMEOUT)
        stored = found.get(key)
    else:
        generation = content_generation()
        stored = cache.get(key)
    if stored is None or stored[0] != generation:
        return generation, None
    return generation, stored[1:]


def is_public_view(resolver_match):
    """True when the resolved view is a public page this cache may store."""
    if resolver_match is None or resolver_match.url_name in OWN_POLICY_URL_NAMES:
        return False
    return (
        not PUBLIC_NAMESPACES.isdisjoint(resolver_match.namespaces)
        or resolver_match.url_name in PUBLIC_URL_NAMES
        or getattr(resolver_match.func, "__module__", "") == SITEMAP_VIEWS_MODULE
    )


def is_anonymous_visitor(request):
    """A ``GET`` or ``HEAD`` with no session or messages cookie.

    Decided from the cookies alone, without loading a session: anyone logged in carries
    the session cookie, so staff are never served from (or stored into) the cache.
    """
    cookies = request.COOKIES
    return (
        request.method in {"GET", "HEAD"}
        and settings.SESSION_COOKIE_NAME not in cookies
        and CookieStorage.cookie_name not in cookies
    )


def is_anonymous_request(request):
    """:func:`is_anonymous_visitor`, and no preview (``?preview``): a page is stored
    only for such a request."""
    return is_anonymous_visitor(request) and not (
        # Without a query string there is no parameter to parse for.
        request.META.get("QUERY_STRING") and PreviewMixin.preview_parameter in request.GET
    )


def is_storable(request, response):
    """True when ``response`` holds nothing personal and may be shared with every visitor."""
    session = getattr(request, "session", None)
    messages = getattr(request, "_messages", None)
    return (
        response.status_code == 200
        # A streamed response is kept while it is sent (stored_when_sent), in a sync view.
        and not getattr(response, "is_async", False)
        and not response.cookies
        and not has_vary_header(response, "Cookie")
        and not UNCACHEABLE_DIRECTIVES.search(response.get("Cache-Control", ""))
        and "CSRF_COOKIE_NEEDS_UPDATE" not in request.META
        and not (session is not None and session.accessed)
        and not (messages is not None and messages.added_new)
        # django-csp's nonce, true once a template used it: a stored page would give
        # every visitor the same nonce, and its header the first visitor's.
        and not getattr(request, "csp_nonce", None)
    )


def page_key(request):
    """The cache key of ``request``'s page: language, encoding and full URL.

    The language is the one LocaleMiddleware will choose (the URL's prefix, else the
    language cookie or Accept-Language), so it can be known before that middleware runs;
    the key also names the :func:`release`.
    """
    language = get_language_from_request(request, check_path=True)
    # META rather than request.headers, which would build a dict of every header.
    accepted = request.META.get("HTTP_ACCEPT_ENCODING", "")
    encoding = "gzip" if ACCEPTS_GZIP.search(accepted) else "id"
    # Scheme, host (checked against ALLOWED_HOSTS), path and query string as sent: the
    # key is a digest, so nothing needs escaping.
    query = request.META.get("QUERY_STRING", "")
    address = f"{request.scheme}://{request.get_host()}{request.path}?{query}"
    url = hashlib.sha256(address.encode()).hexdigest()
    return f"page:{release()}:{language}:{encoding}:{url}"


@functools.cache
def release():
    """What renders the pages, in 12 hex digits: ``awardsite.release.fingerprint()`` (the
    code, templates, catalogues, static files and their manifest, the installed
    packages), read once per process (about 70 ms; awardsite/wsgi.py reads it before a
    worker serves). Part of every page's key, so pages a shared cache holds from before a
    deploy are not served after it (they would name the old release's static files),
    and app servers of two releases side by side each serve their own."""
    return fingerprint()[:12]


@functools.cache
def never_cached_prefixes():
    """Where paths never looked up in the cache begin: the admin, static and media files."""
    prefixes = (reverse("admin:index"), f"/{settings.STATIC_URL}", f"/{settings.MEDIA_URL}")
    return tuple(prefix.replace("//", "/") for prefix in prefixes)


def frozen(response, generation):
    """What the cache stores of ``response`` made at content generation ``generation``:
    the generation, status, headers and body (a plain tuple, which is several times
    quicker to unpickle than the response object)."""
    return (generation, response.status_code, list(response.items()), response.content)


class StoredHeaders(ResponseHeaders):
    """The headers of a page read back from the cache, taken as they were stored.

    ``ResponseHeaders`` checks each name and value as it is set (ASCII or Latin-1, no
    newline) and keeps what it made of them; ``frozen`` stored those, so they are
    filled in as ``CaseInsensitiveMapping`` does, without checking them again
    (building a hit's response took 31.6 us, now 17.4 us; a hit takes about 0.5 ms).
    Headers set later (CORS, Content-Length) are checked as usual.
    """

    def __init__(self, items):
        CaseInsensitiveMapping.__init__(self, items)


def thawed(stored):
    """The response ``frozen`` stored (without its generation)."""
    status, headers, content = stored
    response = HttpResponse(content, status=status)
    response.headers = StoredHeaders(headers)
    return response


class PublicPageCacheMiddleware:
    """Serve public pages to anonymous visitors from the cache (see the module docstring).

    Goes early in ``MIDDLEWARE``, right after ConditionalGetMiddleware, in the place of
    Django's UpdateCacheMiddleware: a page found in the cache is answered at once,
    without the security, CSP, Permissions-Policy, session, locale, CSRF,
    authentication and message middleware, URL resolution or the view; the headers the
    first three add are stored with the page (see settings.MIDDLEWARE). On a miss, once
    the inner middleware and the view have answered, a response of a public view
    (``request.resolver_match``) that passes ``is_storable`` is gzipped, tagged (ETag,
    Cache-Control) and stored, with every header the inner middleware added. With
    ``settings.PAGE_CACHE_ENABLED`` false (``DJANGO_PAGE_CACHE=false``) public pages
    are still gzipped and tagged but rendered every time. The cache is
    ``caches[settings.PAGE_CACHE_ALIAS]``; if it fails (Redis down), pages are served
    uncached and the error is logged, rather than every page failing.
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.gzip = PageGZipMiddleware(get_response)

    def __call__(self, request):
        key = None
        # Looked up without parsing the query string for ``?preview``: a page is stored
        # only for a request that passed is_anonymous_request, under a key made of its
        # whole query string (page_key), so a page found there is never a preview, and a
        # preview request finds none. Parsing it took a seventh of a hit's time.
        if (
            settings.PAGE_CACHE_ENABLED
            and is_anonymous_visitor(request)
            and not request.path_info.startswith(never_cached_prefixes())
        ):
            key = page_key(request) if outage.usable() else None
            if key is not None:
                try:
                    if outage.recovering() and is_shared_cache():
                        publish_content_generation(raise_errors=True)
                    generation, cached = cached_page(key)
                    outage.recovered()
                except Exception:  # the cache is an optimisation: never fail a page for it
                    outage.failed("could not read a page from the cache")
                    cached = key = None
                if cached is not None:
                    return thawed(cached)
        response = self.get_response(request)
        if not (
            is_anonymous_request(request)
            and is_public_view(getattr(request, "resolver_match", None))
            and is_storable(request, response)
        ):
            return response
        # The ETag from the body as rendered, before gzip: gzip's header holds random
        # bytes (against BREACH), so a digest of the gzipped body would differ with each
        # rendering (each worker's copy, with local memory) and a browser's
        # If-None-Match would rarely match. Gzip then makes it weak, as Django's
        # middleware does. A streamed response has no body yet: its ETag names the
        # content generation and the address instead (streamed_etag).
        if response.streaming:
            if key is not None:
                response.headers["ETag"] = streamed_etag(key, generation)
        else:
            set_response_etag(response)
        response = self.gzip.process_response(request, response)
        patch_cache_control(
            response,
            public=True,
            max_age=settings.PAGE_CACHE_MAX_AGE,
            s_maxage=settings.PAGE_CACHE_SHARED_MAX_AGE,
        )
        if key is not None and request.method == "GET":
            if response.streaming:
                response.streaming_content = stored_when_sent(
                    response, key, generation, settings.PAGE_CACHE_STREAM_MAX_BYTES
                )
            else:
                store(key, frozen(response, generation))
        return response


def store(key, stored):
    """Put ``stored`` (a :func:`frozen` page) in the page cache under ``key``, and in
    this process's :class:`NearPages` with Redis. A failure of the cache is noted
    (:class:`CacheOutage`), not raised: the page has been answered anyway."""
    try:
        cache = caches[settings.PAGE_CACHE_ALIAS]
        cache.set(key, stored, settings.PAGE_CACHE_TIMEOUT)
        near = near_pages(cache) if is_shared_cache() else None
        if near is not None:
            near.put(key, stored)
    except Exception:  # the cache is an optimisation: never fail a page for it
        outage.failed("could not store a page in the cache")


def streamed_etag(key, generation):
    """A weak ETag for the streamed page under the cache key ``key`` made at content
    ``generation``: the same in every process and for both encodings, and new after
    every change, as the page may be (its body is not known before it is sent)."""
    address = key.replace(":gzip:", ":id:", 1)
    return f'W/"{generation}-{hashlib.sha256(address.encode()).hexdigest()[:32]}"'


def stored_when_sent(response, key, generation, limit):
    """The streamed ``response``'s chunks, passed on as they come, and kept: once the
    last one is sent, the whole body (as sent, gzipped or not) is stored under ``key``
    with the status and headers ``response`` has now, if it is at most ``limit`` bytes
    (``PAGE_CACHE_STREAM_MAX_BYTES``), so the next request for it is answered from the
    cache like any page. A larger body stops being kept, so memory stays bounded, and a
    client that goes away before the end leaves nothing stored."""
    source = response.streaming_content  # read now: the response will hold what is returned
    headers = [(name, value) for name, value in response.items() if name != "Content-Length"]
    return _kept_while_sent(source, key, generation, response.status_code, headers, limit)


def _kept_while_sent(source, key, generation, status, headers, limit):
    chunks, size = [], 0
    for chunk in source:
        if chunks is not None:
            size += len(chunk)
            if size <= limit:
                chunks.append(chunk)
            else:
                chunks = None
        yield chunk
    if chunks is not None:
        body = b"".join(chunks)
        store(key, (generation, status, [*headers, ("Content-Length", str(len(body)))], body))
