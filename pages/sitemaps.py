"""The sitemaps: every published public page, in both languages, with hreflang
alternates and x-default (django.contrib.sitemaps). Each sitemap's items come
from the same ``published()`` vocabulary as the pages, so it lists nothing that
would be a 404.

/sitemap.xml is a sitemap index (``index``) naming one part per section
(/sitemap-papers.xml), and the further parts of a long section at paths of their own
(/sitemap-papers-2.xml, ``section``), so that a static host, which ignores the query
string, serves each of them as a file (issue 12). Django's own ``?p=2`` is answered
with a 301 to the part's path, as an old link's ``?page=N`` of a list is
(pages/paging.py), and ``-1`` with a 301 to the section's own address. A part holds
at most ``PART_URLS`` URLs (an item in each language counts once per language), far
under the protocol's limits of 50,000 URLs and 50 MB (sitemaps.org/protocol.html): a
URL with its three alternates takes about 350 bytes, so a full part is about 700 KB,
and its time to build is bounded too (10,000 URLs took seconds: each is reversed in
both languages for its alternates).
Django's Sitemap lists every item of a section to paginate it, so items are slugs
(rows of ``values_list()``, not model instances) and each address is made from them by
``reverse()``, as the models' ``get_absolute_url()`` makes it. On the
benchmark's data (15,000 authors) a part of the authors' sitemap took 310 ms of CPU
with instances of Author, 0 ms with slugs (benchmarks/server_time.py's data, in process).
"""

import math

from django.conf import settings
from django.contrib import sitemaps
from django.contrib.sitemaps.views import SitemapIndexItem, x_robots_tag
from django.contrib.sites.shortcuts import get_current_site
from django.core.paginator import EmptyPage, PageNotAnInteger
from django.db.models import QuerySet
from django.http import Http404, HttpResponsePermanentRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from awardsite.addresses import absolute_url
from catalogue.models import Author, Award, Conference, Paper, Venue
from pages.paging import page_number

PART_URLS = 2_000


class _Sitemap(sitemaps.Sitemap):
    limit = PART_URLS
    i18n = True
    alternates = True
    x_default = True

    def get_protocol(self, protocol=None):
        # DJANGO_SITE_URL, when set, names the public scheme and host.
        if settings.SITE_URL:
            return settings.SITE_URL.split("://", 1)[0]
        return super().get_protocol(protocol)

    def get_domain(self, site=None):
        if settings.SITE_URL:
            return settings.SITE_URL.split("://", 1)[1]
        return super().get_domain(site)


class HomeSitemap(_Sitemap):
    """The home page, the index pages of conferences, awards, authors and venues, and
    the Open data page."""

    def items(self):
        return [
            "papers:home",
            "papers:conference-list",
            "papers:award-list",
            "papers:author-list",
            "papers:venue-list",
            "papers:open-data",
        ]

    def location(self, item):
        return reverse(item)

    def priority(self, item):
        return 1.0 if item == "papers:home" else 0.8


class _SlugSitemap(_Sitemap):
    """The published objects of ``model`` (their slugs), at the address of ``route``."""

    model = route = None

    def items(self):
        return self.model.objects.published().order_by("slug").values_list("slug", flat=True)

    def location(self, item):
        return reverse(self.route, kwargs={"slug": item})


class VenueSitemap(_SlugSitemap):
    model, route = Venue, "papers:venue-detail"


class ConferenceSitemap(_SlugSitemap):
    model, route = Conference, "papers:conference-detail"


class AwardSitemap(_Sitemap):
    """Each published award: its conference's slug and its own."""

    def items(self):
        return Award.objects.published().order_by("pk").values_list("conference__slug", "slug")

    def location(self, item):
        conference_slug, slug = item
        return reverse(
            "papers:award-detail", kwargs={"conference_slug": conference_slug, "slug": slug}
        )


class AwardSeriesSitemap(_Sitemap):
    """One page per award series: a venue slug and an award slug with a published edition."""

    def items(self):
        return list(
            Award.objects.published()
            .values_list("conference__venue__slug", "slug")
            .order_by("conference__venue__slug", "slug")
            .distinct()
        )

    def location(self, item):
        venue_slug, slug = item
        return reverse("papers:award-series", kwargs={"venue_slug": venue_slug, "slug": slug})


class PaperSitemap(_SlugSitemap):
    model, route = Paper, "papers:paper-detail"


class AuthorSitemap(_SlugSitemap):
    model, route = Author, "papers:author-detail"


SITEMAPS = {
    "home": HomeSitemap,
    "venues": VenueSitemap,
    "conferences": ConferenceSitemap,
    "awards": AwardSitemap,
    "award-series": AwardSeriesSitemap,
    "papers": PaperSitemap,
    "authors": AuthorSitemap,
}


def part_count(section):
    """The number of parts (an int from 1) of the sitemap of ``section`` (a key of
    ``SITEMAPS``): its items, once per language, over ``PART_URLS`` a part, rounded up.
    One COUNT query (none for a section whose items are a list)."""
    site = SITEMAPS[section]()
    items = site.items()
    count = items.count() if isinstance(items, QuerySet) else len(items)
    return max(1, math.ceil(count * len(settings.LANGUAGES) / site.limit))


def part_path(section, number):
    """The path of part ``number`` (an int from 1) of ``section``'s sitemap:
    /sitemap-<section>.xml for the first, /sitemap-<section>-<number>.xml after it."""
    if number == 1:
        return reverse("sitemap-section", kwargs={"section": section})
    return reverse("sitemap-section-page", kwargs={"section": section, "page": number})


@x_robots_tag
def index(request):
    """/sitemap.xml: the absolute URL of every part of every sitemap in ``SITEMAPS``.

    Django's own index view names the request's host; this one names
    ``DJANGO_SITE_URL`` when it is set, as the parts themselves do. It counts each
    section's items with one COUNT query (Django's index loads every item of every
    section: seconds at 15,000 authors); each item is listed once per language. Parts
    after the first are named by their paths (``part_path``), not by ``?p=``.
    """
    parts = [
        SitemapIndexItem(absolute_url(part_path(section, number), request), None)
        for section in SITEMAPS
        for number in range(1, part_count(section) + 1)
    ]
    return TemplateResponse(
        request, "sitemap_index.xml", {"sitemaps": parts}, content_type="application/xml"
    )


@x_robots_tag
def section(request, section, page=None):
    """/sitemap-<section>.xml (``page`` None: the first part) and
    /sitemap-<section>-<page>.xml (``page`` an int from 1): one part of the sitemap of
    ``section``, as Django's ``sitemap`` view renders it (template sitemap.xml).

    An old link's ``?p=N`` (Django's own paging of a section) is answered with a 301
    to the part's path, and ``-1`` with a 301 to the section's own address, so that
    each part has one address. 404 for a section not in ``SITEMAPS``, a ``p`` that is
    not a whole number from 1, and a part past the last.
    """
    if section not in SITEMAPS:
        raise Http404(f"No sitemap section {section!r}.")
    if "p" in request.GET:
        return HttpResponsePermanentRedirect(part_path(section, page_number(request.GET["p"])))
    if page == 1:
        return HttpResponsePermanentRedirect(part_path(section, 1))
    site = SITEMAPS[section]()
    try:
        urls = site.get_urls(
            page=page or 1, site=get_current_site(request), protocol=request.scheme
        )
    except (EmptyPage, PageNotAnInteger) as error:
        raise Http404(f"The {section} sitemap has no part {page}.") from error
    return TemplateResponse(
        request, "sitemap.xml", {"urlset": urls}, content_type="application/xml"
    )
