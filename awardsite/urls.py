"""Root URLconf: public pages under i18n_patterns (/en/, /zh-hans/); admin, sitemaps,
robots.txt, the JSON API and the data downloads outside."""

from urllib.parse import urlsplit

from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.http import HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.utils import translation
from django.views import i18n
from django.views.static import serve

from awardsite.security import with_security_headers
from opendata import api
from opendata import downloads as opendata
from pages import sitemaps
from pages import views as pages_views
from pages.distill import conferences, distill, distill_named
from pages.views import robots_txt

# Every API route is public (cached). Published are only the documents the pages link to,
# the index and each conference (JSON at extensionless URLs, typed by the web server):
# lists with query parameters cannot be files, and an award's document would pull in
# every paper and author. The publisher nulls the links to the rest (docs/operations.md).
api_patterns, api_name, api_namespace = api.urls()
distill_named(
    api_patterns,
    {
        "index": (None, "api/v1/index.json"),
        "openapi-json": (None, None),
        "openapi-view": (None, None),
        "conference": (conferences, None),
    },
)


def set_language(request):
    """Django's ``set_language`` view (POST ``language`` and ``next``: a redirect to
    ``next`` in that language, and the language cookie), resolving ``next`` in the
    language of its own prefix (``/zh-hans/...``).

    Django resolves ``next`` (else the Referer) in the request's language, which outside
    the prefixes is the language cookie's: with a stale cookie, a page of the other
    prefix did not resolve, was not translated, and the visitor was sent back to the old
    language."""
    going_to = request.POST.get("next", request.GET.get("next")) or request.headers.get("Referer")
    language = translation.get_language_from_path(urlsplit(going_to or "").path)
    if language is None:
        return i18n.set_language(request)
    with translation.override(language):
        return i18n.set_language(request)


urlpatterns = [
    # Browsers ask for /favicon.ico on every page, the admin's included.
    path("favicon.ico", lambda request: HttpResponsePermanentRedirect(static("favicon.ico"))),
    distill(path("robots.txt", robots_txt, name="robots-txt")),
    # The compact format's JSON Schema, for YAML editors (docs/compact-format.md).
    distill(
        path(
            "schemas/compact-format.json",
            pages_views.compact_format_schema,
            name="compact-format-schema",
        )
    ),
    distill(path("sitemap.xml", sitemaps.index, name="sitemap")),
    # A section's parts after the first at paths of their own (pages/sitemaps.py);
    # before the section's route, whose slug would take "papers-2" as a section name.
    distill(
        path(
            "sitemap-<slug:section>-<page_number:page>.xml",
            sitemaps.section,
            name="sitemap-section-page",
        ),
        sitemaps.sitemap_section_pages,
    ),
    distill(
        path("sitemap-<slug:section>.xml", sitemaps.section, name="sitemap-section"),
        sitemaps.sitemap_sections,
    ),
    path("admin/", admin.site.urls),
    path("i18n/setlang/", set_language, name="set_language"),
    # Open data (issue 11): the JSON API and the whole downloads, in both languages at once.
    path("api/v1/", (api_patterns, api_name, api_namespace)),
    distill(path("data/awardsite-csv.zip", opendata.site_csv, name="opendata-site-csv")),
    distill(
        path("data/awardsite-compact.zip", opendata.site_compact, name="opendata-site-compact")
    ),
    distill(
        path(
            "data/conferences/<slug:slug>-compact.zip",
            opendata.conference_compact,
            name="opendata-conference-compact",
        ),
        conferences,
    ),
    distill(
        path(
            "data/conferences/<slug:slug>-csv.zip",
            opendata.conference_csv,
            name="opendata-conference-csv",
        ),
        conferences,
    ),
]
urlpatterns += i18n_patterns(
    path("", include("pages.urls")),
    prefix_default_language=True,
)
# Error pages that never read the request's body (see pages/views/site.py).
handler400 = with_security_headers(pages_views.bad_request)  # awardsite/security.py says why
handler403 = "pages.views.permission_denied"
handler404 = "pages.views.page_not_found"
handler500 = "pages.views.server_error"

if settings.SERVE_MEDIA:
    urlpatterns += [
        re_path(
            rf"^{settings.MEDIA_URL.strip('/')}/(?P<path>.*)$",
            serve,
            {"document_root": settings.MEDIA_ROOT},
        )
    ]
