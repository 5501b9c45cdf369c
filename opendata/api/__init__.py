"""The read-only JSON API under ``/api/v1/`` (issue 11, "Open data"), on django-ninja,
outside the language prefixes (every answer holds both languages). Its schema is
``/api/v1/openapi.json`` (from ``schemas``), shown at ``/api/v1/docs`` and, in each
language's address, at ``open-data/api/`` (:func:`docs_page`). Errors are JSON:
404 for an unknown object, 422 naming a parameter that cannot be read, 429 with
``Retry-After``. ETags come from the page cache and ConditionalGetMiddleware, CORS from
django-cors-headers.
"""

import functools
import logging
import math

from csp.decorators import csp_update
from django.conf import settings
from ninja import NinjaAPI, Swagger
from ninja.errors import Throttled, ValidationError
from ninja.throttling import SimpleRateThrottle

from awardsite.security import client_ip
from opendata.api.endpoints import router
from opendata.api.schemas import NAMESPACE

logger = logging.getLogger(__name__)


class AnonymousRateThrottle(SimpleRateThrottle):
    """At most ``settings.API_RATE_LIMIT`` requests (e.g. "120/min"; empty: no limit,
    read on every request) from one address (``client_ip``) in each window of the
    rate's period (a minute for "/min", aligned on the clock), counted in Django's
    default cache, which app servers share; answers from the page cache are not counted.
    When the cache cannot be reached the request is let through and the error logged.

    The count is atomic: the window's counter is made by ``cache.add`` and raised by
    ``cache.incr`` (Redis's INCR; the local-memory cache's lock), so requests arriving
    together each get their own number. django-ninja's own throttle reads a list of
    times and writes it back, and lets through whatever arrives in between: 126 of a
    limit of 120 under 64 concurrent clients. A client may get twice the limit across
    the turn of a window, never more.
    """

    def __init__(self):
        # django-ninja's throttles read their rate once, here; ours reads it per request.
        self.rate = None

    def allow_request(self, request):
        rate = settings.API_RATE_LIMIT
        if not rate:
            return True
        limit, period = self.parse_rate(rate)
        window = int(self.timer() // period)
        key = f"api-throttle:{period}:{window}:{client_ip(request)}"
        try:
            # The window's first request makes the counter; it expires with the window.
            count = 1 if self.cache.add(key, 1, period) else self.cache.incr(key)
        except ValueError:  # the counter expired between add and incr: a new window
            count = 1
        except Exception:  # the cache's own errors: redis-py's, a memcached client's, ...
            logger.exception("could not count an API request in the cache")
            return True
        return count <= limit

    def wait(self):
        """Seconds until the current window ends (computed, not kept: threads share this
        object)."""
        _limit, period = self.parse_rate(settings.API_RATE_LIMIT or None)
        return period - self.timer() % period if period else None


class OpenDataAPI(NinjaAPI):
    """The API, with each operation's ``operationId`` as version 1 published it: from
    the module path it had before the apps were split (clients name methods by it)."""

    def get_openapi_operation_id(self, operation):
        return f"papers_api_endpoints_{operation.view_func.__name__}"


# Swagger UI's icons are data: URIs; images cannot run code, so the docs page may show
# them (img-src); scripts and styles stay 'self' only.
DOCS_POLICY = csp_update({"img-src": ["data:"]})

api = OpenDataAPI(
    title="awardsite open data",
    version="1",
    description=(
        "Read-only access to the published conferences, awards, papers, authors and "
        "institutions. Translated fields hold every language of the site, keyed by "
        "language code; a missing translation is null. Lists are paginated with "
        "`page` and `per_page` and link their neighbours."
    ),
    urls_namespace=NAMESPACE,
    throttle=[AnonymousRateThrottle()],
    # Without deep links: Swagger UI puts each operation's link inside the button that
    # opens it, an interactive element inside another that axe-core refuses
    # (nested-interactive) and a screen reader cannot reach.
    docs=Swagger(settings={"deepLinking": False}),
    docs_decorator=DOCS_POLICY,
)
api.add_router("/", router)


@DOCS_POLICY
def docs_page(request):
    """The API's documentation, Swagger UI as at ``/api/v1/docs`` (django-ninja's docs
    page, in the site's header and footer: templates/ninja/swagger.html), at an address
    in the site's languages (``/en/open-data/api/``), so that it is in the language of
    its address like every public page, and the language switcher leads to the other."""
    return api.docs.render_page(request, api)


@api.exception_handler(ValidationError)
def validation_error(request, exc):
    """422 naming each parameter that could not be read, where it was and why."""
    errors = [
        {
            "parameter": str(error["loc"][-1]) if error.get("loc") else "",
            "where": str(error["loc"][0]) if error.get("loc") else "",
            "message": str(error.get("msg", "")),
        }
        for error in exc.errors
    ]
    names = ", ".join(error["parameter"] for error in errors)
    detail = f"Invalid parameter: {names}." if names else "Invalid request."
    return api.create_response(request, {"detail": detail, "errors": errors}, status=422)


@api.exception_handler(Throttled)
def throttled(request, exc):
    """429: how many requests one address may make, and when to try again."""
    wait = max(1, math.ceil(exc.wait or 60))  # django-ninja's Retry-After: ceil too
    detail = (
        f"Too many requests: at most {settings.API_RATE_LIMIT} from one address. "
        f"Try again in {wait} seconds."
    )
    response = api.create_response(request, {"detail": detail, "retry_after": wait}, status=429)
    response["Retry-After"] = str(wait)
    return response


def _answering_head(view):
    """``view`` answering HEAD as GET, as Django's own views do (the server drops the
    body). django-ninja routes only the declared methods; declaring HEAD on each
    operation would give the schema a second operation of the same id."""

    @functools.wraps(view)
    def answer(request, *args, **kwargs):
        if request.method != "HEAD":
            return view(request, *args, **kwargs)
        request.method = "GET"
        try:
            return view(request, *args, **kwargs)
        finally:
            request.method = "HEAD"

    return answer


def urls():
    """``api.urls`` (patterns, app name, namespace) with every view answering HEAD."""
    patterns, app_name, namespace = api.urls
    for pattern in patterns:
        pattern.callback = _answering_head(pattern.callback)
    return patterns, app_name, namespace
