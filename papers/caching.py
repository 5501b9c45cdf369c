"""Public pages served from Django's cache to anonymous visitors, retired at once on a change.

What is cached: the response of every public view (the ``papers`` URL namespace: pages,
feeds, citation downloads; the sitemap; robots.txt), per full URL including the query
string, per language and per gzip/identity encoding, for a ``GET`` by a visitor who
carries no session or messages cookie. Never cached: staff and anyone logged in (they
carry the session cookie), ``?preview=1``, other methods than ``GET``/``HEAD``, the
admin, and any response that is not a plain 200, sets a cookie, varies on ``Cookie``,
is marked private or no-store, used the session, queued a message or holds a CSRF
token (``get_token()`` was called). So nothing personal is stored or shared.

Instant invalidation: :class:`~papers.models.ContentGeneration` holds a number raised
in the same transaction as every change to a ``papers`` model (``post_save``,
``post_delete`` and ``m2m_changed`` signals, connected in ``papers.apps``) and by the
importer, whose bulk queries send no signals (``papers.importing.applying``). Each
cached page is stored under the number current when the request began, so the next
request after a change commits misses and renders afresh, in every app server, whether
the cache is per process (local memory) or shared (Redis). The number lives in the
database, not in the cache, because a local-memory cache is not shared between
gunicorn workers; reading it is one query of one row. Old pages are not deleted: they
expire (``settings.PAGE_CACHE_TIMEOUT``) or are evicted by the cache's own culling.

Why a middleware of our own rather than Django's ``CacheMiddleware``/``cache_page``:
those key a page by URL and ``Vary`` headers only, so they cannot add the content
generation, and they would serve cached pages to staff. The pieces are Django's own:
the cache framework (``django.core.cache``), ``patch_cache_control``,
``set_response_etag``, ``GZipMiddleware`` (applied here, to public pages only) and
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

import hashlib
import logging
import re

from django.conf import settings
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.cache import caches
from django.db import transaction
from django.db.models import F
from django.middleware.gzip import GZipMiddleware
from django.utils.cache import has_vary_header, patch_cache_control, set_response_etag
from django.utils.translation import get_language

from .models import ContentGeneration
from .views import PreviewMixin

logger = logging.getLogger(__name__)

# Public views outside the ``papers`` namespace, by URL name.
PUBLIC_URL_NAMES = {"robots-txt"}
# The sitemap views of django.contrib.sitemaps, whatever URL names they are given.
SITEMAP_VIEWS_MODULE = "django.contrib.sitemaps.views"
ACCEPTS_GZIP = re.compile(r"\bgzip\b")
UNCACHEABLE_DIRECTIVES = re.compile(r"\b(private|no-store|no-cache)\b", re.IGNORECASE)
GENERATION_ID = 1


def content_generation():
    """The current content generation (0 before the first change): one query."""
    return (
        ContentGeneration.objects.filter(pk=GENERATION_ID).values_list("number", flat=True).first()
        or 0
    )


def bump_content_generation(**kwargs):
    """Raise the content generation by one, retiring every cached page.

    Runs inside the caller's transaction, so the new number is seen together with the
    change it announces (and not at all if that change is rolled back). Works as a
    receiver of any model signal (``**kwargs`` are ignored) and as a plain call.
    """
    generations = ContentGeneration.objects.filter(pk=GENERATION_ID)
    if generations.update(number=F("number") + 1):
        return
    with transaction.atomic():
        _row, created = ContentGeneration.objects.get_or_create(
            pk=GENERATION_ID, defaults={"number": 1}
        )
    if not created:  # another process made the row in the meantime
        generations.update(number=F("number") + 1)


def is_public_view(resolver_match):
    """True when the resolved view is a public page this cache may store."""
    if resolver_match is None:
        return False
    return (
        "papers" in resolver_match.namespaces
        or resolver_match.url_name in PUBLIC_URL_NAMES
        or getattr(resolver_match.func, "__module__", "") == SITEMAP_VIEWS_MODULE
    )


def is_anonymous_request(request):
    """A ``GET`` or ``HEAD`` with no session or messages cookie and no preview.

    Decided from the cookies alone, without loading a session: anyone logged in carries
    the session cookie, so staff are never served from (or stored into) the cache.
    """
    return (
        request.method in {"GET", "HEAD"}
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and CookieStorage.cookie_name not in request.COOKIES
        and PreviewMixin.preview_parameter not in request.GET
    )


def is_storable(request, response):
    """True when ``response`` holds nothing personal and may be shared with every visitor."""
    session = getattr(request, "session", None)
    messages = getattr(request, "_messages", None)
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and not has_vary_header(response, "Cookie")
        and not UNCACHEABLE_DIRECTIVES.search(response.get("Cache-Control", ""))
        and "CSRF_COOKIE_NEEDS_UPDATE" not in request.META
        and not (session is not None and session.accessed)
        and not (messages is not None and messages.added_new)
    )


def page_key(request, generation):
    """The cache key of ``request``'s page: generation, language, encoding and full URL."""
    encoding = "gzip" if ACCEPTS_GZIP.search(request.headers.get("Accept-Encoding", "")) else "id"
    url = hashlib.sha256(request.build_absolute_uri().encode()).hexdigest()
    return f"page:{generation}:{get_language()}:{encoding}:{url}"


class PublicPageCacheMiddleware:
    """Serve public pages to anonymous visitors from the cache (see the module docstring).

    Goes last in ``MIDDLEWARE``: its ``process_view`` runs once the URL is resolved (in
    the language LocaleMiddleware chose) and answers from the cache without calling the
    view; on a miss it gzips, tags (ETag, Cache-Control) and stores the view's response.
    With ``settings.PAGE_CACHE_ENABLED`` false (``DJANGO_PAGE_CACHE=false``) public pages
    are still gzipped and tagged, but rendered every time.
    The cache is ``caches[settings.PAGE_CACHE_ALIAS]``; if it fails (Redis down), pages
    are served uncached and the error is logged, rather than every page failing.
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.gzip = GZipMiddleware(get_response)

    def __call__(self, request):
        response = self.get_response(request)
        if not getattr(request, "_public_page", False) or not is_storable(request, response):
            return response
        response = self.gzip.process_response(request, response)
        set_response_etag(response)
        patch_cache_control(
            response,
            public=True,
            max_age=settings.PAGE_CACHE_MAX_AGE,
            s_maxage=settings.PAGE_CACHE_SHARED_MAX_AGE,
        )
        key = getattr(request, "_page_cache_key", None)
        if key is not None and request.method == "GET":
            try:
                caches[settings.PAGE_CACHE_ALIAS].set(key, response, settings.PAGE_CACHE_TIMEOUT)
            except Exception:  # the cache is an optimisation: never fail a page for it
                logger.exception("could not store a page in the cache")
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not (is_anonymous_request(request) and is_public_view(request.resolver_match)):
            return None
        request._public_page = True  # gzipped and tagged on the way out, even uncached
        if not settings.PAGE_CACHE_ENABLED:
            return None
        key = page_key(request, content_generation())
        try:
            cached = caches[settings.PAGE_CACHE_ALIAS].get(key)
        except Exception:  # see __call__
            logger.exception("could not read a page from the cache")
            return None
        if cached is None:
            request._page_cache_key = key
            return None
        request._public_page = False  # already gzipped and tagged when it was stored
        return cached
