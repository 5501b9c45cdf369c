"""Root URLconf: public pages under i18n_patterns (/en/, /zh-hans/); admin, sitemaps,
robots.txt, the JSON API and the data downloads outside."""

from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.http import HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.static import serve

from opendata import api
from opendata import downloads as opendata
from pages import sitemaps
from pages.views import robots_txt

urlpatterns = [
    # Browsers ask for /favicon.ico on every page, the admin's included.
    path("favicon.ico", lambda request: HttpResponsePermanentRedirect(static("favicon.ico"))),
    path("robots.txt", robots_txt, name="robots-txt"),
    path("sitemap.xml", sitemaps.index, name="sitemap"),
    # A section's parts after the first at paths of their own (pages/sitemaps.py);
    # before the section's route, whose slug would take "papers-2" as a section name.
    path(
        "sitemap-<slug:section>-<page_number:page>.xml",
        sitemaps.section,
        name="sitemap-section-page",
    ),
    path("sitemap-<slug:section>.xml", sitemaps.section, name="sitemap-section"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    # Open data (issue 11): the JSON API and the whole downloads, in both languages at once.
    path("api/v1/", api.urls()),
    path("data/awardsite-csv.zip", opendata.site_csv, name="opendata-site-csv"),
    path("data/awardsite-compact.zip", opendata.site_compact, name="opendata-site-compact"),
    path(
        "data/conferences/<slug:slug>-compact.zip",
        opendata.conference_compact,
        name="opendata-conference-compact",
    ),
    path(
        "data/conferences/<slug:slug>-csv.zip",
        opendata.conference_csv,
        name="opendata-conference-csv",
    ),
]
urlpatterns += i18n_patterns(
    path("", include("pages.urls")),
    prefix_default_language=True,
)
# Error pages that never read the request's body (see pages/views.py).
handler400 = "pages.views.bad_request"
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
