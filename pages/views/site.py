"""robots.txt, the compact format's JSON Schema and the error pages."""

import json

from django.conf import settings
from django.http import (
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseForbidden,
    HttpResponseNotFound,
    HttpResponseServerError,
    JsonResponse,
)
from django.template import loader
from django.urls import reverse

from awardsite.addresses import absolute_url
from importing.compact.schema import compact_schema


def robots_txt(request):
    """robots.txt: everything may be crawled except the admin and the search results
    (endless combinations of parameters); names the sitemap by its absolute URL."""
    lines = [
        "User-agent: *",
        "Disallow: /admin/",
        *(f"Disallow: /{code}/search/" for code, _name in settings.LANGUAGES),
        f"Sitemap: {absolute_url(reverse('sitemap'), request)}",
    ]
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")


def compact_format_schema(request):
    """The JSON Schema of a compact conference file (importing/compact/schema.py) as
    ``application/schema+json``, its ``$id`` its own absolute address: what a YAML editor
    names in ``# yaml-language-server: $schema=...`` (docs/compact-format.md)."""
    schema = compact_schema(absolute_url(request.path, request))
    text = json.dumps(schema, ensure_ascii=False, indent=2) + "\n"
    return HttpResponse(text, content_type="application/schema+json")


# Error pages (awardsite/urls.py's handlers). Django's own run a CSRF check, which reads a
# POST's body (one it cannot parse made a 404 a 500); these never read the body.


def bad_request(request, exception):
    """400 (a bad Host header, a body Django cannot parse): templates/400.html, bilingual,
    built without the request (whose host may be what was wrong) or the database."""
    return HttpResponseBadRequest(loader.render_to_string("400.html"))


def permission_denied(request, exception):
    """403 (e.g. an editor without the permission a page of the admin needs):
    templates/403.html, plain and bilingual like the 400 page."""
    return HttpResponseForbidden(loader.render_to_string("403.html"))


def csrf_failure(request, reason=""):
    """403 for a failed CSRF check (settings.CSRF_FAILURE_VIEW): templates/403.html saying
    so in both languages (Django's page has an inline style the CSP blocks)."""
    return HttpResponseForbidden(loader.render_to_string("403.html", {"csrf_failure": True}))


# Addresses under the JSON API (opendata/api/), whose clients read JSON, errors included.
API_PREFIX = "/api/"


def page_not_found(request, exception):
    """404: templates/404.html in the language of the address, with the site's header;
    under ``API_PREFIX``, a JSON ``{"detail": ...}`` as every other API error."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": "No such API endpoint."}, status=404)
    return HttpResponseNotFound(loader.render_to_string("404.html", request=request))


def server_error(request):
    """500: templates/500.html, built without the request, context processors or the
    database, so it still works when they are what failed."""
    return HttpResponseServerError(loader.render_to_string("500.html"))
