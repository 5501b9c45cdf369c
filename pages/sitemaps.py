"""The sitemaps (django.contrib.sitemaps): every published public page in each language,
with hreflang alternates and x-default, from the static site's queries (pages/distill.py).

/sitemap.xml (``index``) names each section's parts at paths of their own, which a static
host can serve as files (/sitemap-papers.xml, /sitemap-papers-2.xml: ``section``; an old
``?p=2`` answers a 301). A part holds at most ``PART_URLS`` URLs (about 700 KB), far
under the protocol's 50,000 and 50 MB. Items are slugs: a part of 15,000 authors took
310 ms of CPU with model instances (benchmarks/server_time.py's data).
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
from django_distill.utils import iter_url_patterns

from awardsite.addresses import absolute_url
from catalogue.models import Author, Award, AwardKind, Conference, Paper, Venue
from editorial.history import last_changed
from pages.distill import one_page, published_slugs, series_slugs, url_kwargs
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
    """The registry's published pages of this app without URL kwargs (pages/distill.py),
    files aside (the feed): the home page, the indexes and the Open data page."""

    def items(self):
        return [
            f"{namespace}:{pattern.name}"
            for pattern, namespace, _depth in iter_url_patterns()
            if namespace == "papers"
            and getattr(pattern, "distill_func", None) is one_page
            and "." not in str(pattern.pattern)
        ]

    def location(self, item):
        return reverse(item)

    def priority(self, item):
        return 1.0 if item == "papers:home" else 0.8


class RouteSitemap(_Sitemap):
    """The pages of ``route`` (a URL name), one per item of ``items()`` (a function): a
    slug, or a tuple of the values of the route's ``kwargs``, in that order; with
    ``dated``, a tuple of those values and then the page's ``lastmod`` (or None)."""

    def __init__(self, route, items, kwargs=("slug",), dated=False):
        self.route, self.get_items, self.kwargs, self.dated = route, items, kwargs, dated

    def items(self):
        return self.get_items()

    def location(self, item):
        return reverse(
            self.route, kwargs=url_kwargs(item[:-1] if self.dated else item, self.kwargs)
        )

    def lastmod(self, item):
        return item[-1] if self.dated else None


def dated_rows(model, *fields, order="slug"):
    """``(*fields, lastmod)`` of each published object of ``model``, by ``order``: the
    values of the route's kwargs, then when the object last changed (``last_changed``,
    None without history). A ``values_list`` QuerySet, one query."""
    rows = model.objects.published().order_by(order).annotate(lastmod=last_changed(model))
    return rows.values_list(*fields, "lastmod")


def dated_pages(route, model):
    """The sitemap of ``route``, whose one kwarg is the slug of a ``model``, each page
    dated by its object's last change."""
    return RouteSitemap(route, lambda: dated_rows(model, "slug"), dated=True)


# Each page dated by its own object's last change; an award series and an award kind,
# of several awards, are not dated.
SITEMAPS = {
    "home": HomeSitemap(),
    "venues": dated_pages("papers:venue-detail", Venue),
    "conferences": dated_pages("papers:conference-detail", Conference),
    "awards": RouteSitemap(
        "papers:award-detail",
        lambda: dated_rows(Award, "conference__slug", "slug", order="pk"),
        ("conference_slug", "slug"),
        dated=True,
    ),
    "award-series": RouteSitemap(
        "papers:award-series", lambda: list(series_slugs()), ("venue_slug", "slug")
    ),
    # A kind's page lists awards of many conferences: not dated, as a series.
    "award-kinds": RouteSitemap("papers:award-kind", lambda: list(published_slugs(AwardKind))),
    "papers": dated_pages("papers:paper-detail", Paper),
    "authors": dated_pages("papers:author-detail", Author),
}


def part_count(section):
    """The number of parts (an int from 1) of ``section``'s sitemap (a key of
    ``SITEMAPS``), each item once per language. One COUNT query (none for a list)."""
    site = SITEMAPS[section]
    items = site.items()
    count = items.count() if isinstance(items, QuerySet) else len(items)
    return max(1, math.ceil(count * len(settings.LANGUAGES) / site.limit))


def sitemap_sections():
    """The sections of the sitemap index, as the distill function of their route."""
    return ({"section": section} for section in SITEMAPS)


def sitemap_section_pages():
    """Parts 2 to N of each sitemap section longer than one part (a distill function)."""
    for section in SITEMAPS:
        for page in range(2, part_count(section) + 1):
            yield {"section": section, "page": page}


def part_path(section, number):
    """The path of part ``number`` (an int from 1) of ``section``'s sitemap."""
    if number == 1:
        return reverse("sitemap-section", kwargs={"section": section})
    return reverse("sitemap-section-page", kwargs={"section": section, "page": number})


@x_robots_tag
def index(request):
    """/sitemap.xml: the absolute URL of every part of every section (at ``DJANGO_SITE_URL``
    when set). Not Django's index view, which loads every item of every section (seconds
    at 15,000 authors) and names parts by ``?p=``: this counts each section in one query."""
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
    """/sitemap-<section>.xml (``page`` None) and /sitemap-<section>-<page>.xml, rendered
    as Django's ``sitemap`` view does. An old ``?p=N``, and ``-1``, answer a 301 to the
    part's address; 404 for an unknown section, a bad ``p``, a part past the last."""
    if section not in SITEMAPS:
        raise Http404(f"No sitemap section {section!r}.")
    if "p" in request.GET:
        return HttpResponsePermanentRedirect(part_path(section, page_number(request.GET["p"])))
    if page == 1:
        return HttpResponsePermanentRedirect(part_path(section, 1))
    site = SITEMAPS[section]
    try:
        urls = site.get_urls(
            page=page or 1, site=get_current_site(request), protocol=request.scheme
        )
    except (EmptyPage, PageNotAnInteger) as error:
        raise Http404(f"The {section} sitemap has no part {page}.") from error
    return TemplateResponse(
        request, "sitemap.xml", {"urlset": urls}, content_type="application/xml"
    )
