"""The sitemaps: every published public page, in both languages, with hreflang
alternates and x-default (django.contrib.sitemaps). Each sitemap's items come
from the same ``published()`` vocabulary as the pages, so it lists nothing that
would be a 404.

/sitemap.xml is a sitemap index (``index``) naming one part per section
(/sitemap-papers.xml), and further pages of a long section (``?p=2``). A part holds
at most ``PART_URLS`` URLs (an item in each language counts once per language), far
under the protocol's limits of 50,000 URLs and 50 MB (sitemaps.org/protocol.html): a
URL with its three alternates takes about 350 bytes, so a full part is about 700 KB,
and its time to build is bounded too (10,000 URLs took seconds: each is reversed in
both languages for its alternates).
Django's Sitemap lists every item of a section to paginate it, so items are loaded
with their slug only.
"""

import math

from django.conf import settings
from django.contrib import sitemaps
from django.contrib.sitemaps.views import SitemapIndexItem, x_robots_tag
from django.db.models import QuerySet
from django.template.response import TemplateResponse
from django.urls import reverse

from .metadata import absolute_url
from .models import Author, Award, Conference, Paper, Venue

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


class VenueSitemap(_Sitemap):
    def items(self):
        return Venue.objects.published().only("slug").order_by("slug")


class ConferenceSitemap(_Sitemap):
    def items(self):
        return Conference.objects.published().only("slug").order_by("slug")


class AwardSitemap(_Sitemap):
    def items(self):
        return (
            Award.objects.published()
            .select_related("conference")
            .only("slug", "conference__slug")
            .order_by("pk")
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


class PaperSitemap(_Sitemap):
    def items(self):
        return Paper.objects.published().only("slug").order_by("slug")


class AuthorSitemap(_Sitemap):
    def items(self):
        return Author.objects.published().only("slug").order_by("slug")


SITEMAPS = {
    "home": HomeSitemap,
    "venues": VenueSitemap,
    "conferences": ConferenceSitemap,
    "awards": AwardSitemap,
    "award-series": AwardSeriesSitemap,
    "papers": PaperSitemap,
    "authors": AuthorSitemap,
}


@x_robots_tag
def index(request):
    """/sitemap.xml: the absolute URL of every part of every sitemap in ``SITEMAPS``.

    Django's own index view names the request's host; this one names
    ``DJANGO_SITE_URL`` when it is set, as the parts themselves do. It counts each
    section's items with one COUNT query (Django's index loads every item of every
    section: seconds at 15,000 authors); each item is listed once per language.
    """
    parts = []
    for section, sitemap in SITEMAPS.items():
        url = absolute_url(reverse("sitemap-section", kwargs={"section": section}), request)
        site = sitemap()
        items = site.items()
        count = items.count() if isinstance(items, QuerySet) else len(items)
        pages = max(1, math.ceil(count * len(settings.LANGUAGES) / site.limit))
        parts += [
            SitemapIndexItem(url if page == 1 else f"{url}?p={page}", None)
            for page in range(1, pages + 1)
        ]
    return TemplateResponse(
        request, "sitemap_index.xml", {"sitemaps": parts}, content_type="application/xml"
    )
