"""The registry of public pages, declared once on the URL patterns themselves.

A route is public (:func:`public`: the same page for every visitor, which the page cache
may store) or public and published (:func:`distill`: the static site holds it too, with
the attributes django-distill's ``distill_path()`` sets). The page cache, the publisher
and the sitemap read the marks by walking the URLconf
(``django_distill.utils.iter_url_patterns``).

Not ``django_distill.distill_path`` itself: it exists only once django-distill's app is
installed, whose ``ready()`` replaces ``django.urls.path`` for the whole project
(django-distill 4.0.6, ``DistillConfig.ready``).
"""

import math

from django.db.models import Count
from django.db.models.functions import Substr
from django.urls import path

from catalogue.models import Author, Award, AwardKind, Conference, Paper, Venue
from pages import citations
from pages.views import (
    AUTHOR_INITIALS,
    AUTHOR_PAGE_SIZE,
    AWARD_SERIES_PAGE_SIZE,
    DIGITS,
    LIST_PAGE_SIZE,
)


def public(pattern):
    """``pattern`` (a URLPattern) marked public: its page is the same for every visitor,
    so the page cache may store it (pagecache/caching.py). Returns ``pattern``."""
    pattern.public = True
    return pattern


def distill(pattern, func=None, file=None):
    """``pattern`` (a URLPattern) marked public and published, as django-distill's
    ``distill_path()`` marks one: ``func`` yields the URL kwargs of each page (None: one
    page without kwargs); ``file`` names the output file when the URL's path would be
    served with the wrong type (``{kwarg}`` placeholders allowed). Returns ``pattern``."""
    pattern.distill_func = func or one_page
    pattern.distill_file = file
    pattern.distill_status_codes = (200,)
    return public(pattern)


def distill_paged(patterns, func, pages):
    """The two patterns of ``paging.paged()`` published: ``func`` yields the lists'
    kwargs, ``pages`` those of their pages 2..N."""
    return [distill(patterns[0], func), distill(patterns[1], pages)]


def distill_named(patterns, routes):
    """``patterns`` (URLPatterns, such as django-ninja's) marked public, those named in
    ``routes`` (``{name: (func, file)}``) published too; returns ``patterns``."""
    for pattern in patterns:
        public(pattern)
        if pattern.name in routes:
            distill(pattern, *routes[pattern.name])
    return patterns


def one_page():
    """The distill function of a route without kwargs: one page."""
    return None


def published_slugs(model):
    """The slugs of ``model``'s published objects, by slug (a ``values_list`` QuerySet)."""
    return model.objects.published().order_by("slug").values_list("slug", flat=True)


def award_slugs():
    """``(conference slug, award slug)`` of each published award, by primary key."""
    return Award.objects.published().order_by("pk").values_list("conference__slug", "slug")


def series_slugs():
    """``(venue slug, award slug)`` of each award series with a published edition."""
    return (
        Award.objects.published()
        .values_list("conference__venue__slug", "slug")
        .order_by("conference__venue__slug", "slug")
        .distinct()
    )


def url_kwargs(row, names):
    """``{name: value}`` of ``row`` (a slug, or a tuple of values in ``names``' order)."""
    return dict(zip(names, row if isinstance(row, tuple) else (row,), strict=True))


def kwargs_of(rows, *names):
    """A distill function: the URL kwargs ``names`` of each of ``rows()`` (url_kwargs)."""
    return lambda: (url_kwargs(row, names) for row in rows())


# The published venues, conferences, papers (their conference published too), authors
# (of a published paper), awards (of published conferences), award series and kinds.
venues = kwargs_of(lambda: published_slugs(Venue), "slug")
conferences = kwargs_of(lambda: published_slugs(Conference), "slug")
papers = kwargs_of(lambda: published_slugs(Paper), "slug")
authors = kwargs_of(lambda: published_slugs(Author), "slug")
awards = kwargs_of(award_slugs, "conference_slug", "slug")
award_series = kwargs_of(series_slugs, "venue_slug", "slug")
# The kinds of award with a published award (AwardKindQuerySet.published).
award_kinds = kwargs_of(lambda: published_slugs(AwardKind), "slug")


def distill_citations(route, view, name, func):
    """The route ``name`` of the citation downloads of the page at ``route`` (whose
    distill function is ``func``), published in each format of ``citations.FORMATS``."""

    def formats():
        return ({**kwargs, "fmt": fmt} for kwargs in func() for fmt in citations.FORMATS)

    return distill(path(f"{route}cite.<citation_format:fmt>", view, name=name), formats)


def _later_pages(count, size):
    """Page numbers 2 to N of a list of ``count`` items, ``size`` a page."""
    return range(2, math.ceil(count / size) + 1)


def conference_pages():
    """Pages 2 to N of each published conference's list of other papers."""
    for conference in Conference.objects.published().order_by("slug"):
        count = Paper.objects.published().published_without_award_at(conference).count()
        for page in _later_pages(count, LIST_PAGE_SIZE):
            yield {"slug": conference.slug, "page": page}


def author_pages():
    """Pages 2 to N of the papers of each author with more than one page of them."""
    counts = (
        Paper.objects.published()
        .values_list("authorships__author__slug")
        .annotate(count=Count("pk"))
        .filter(count__gt=LIST_PAGE_SIZE)
        .order_by("authorships__author__slug")
    )
    for slug, count in counts:
        for page in _later_pages(count, LIST_PAGE_SIZE):
            yield {"slug": slug, "page": page}


def author_list_pages():
    """Pages 2 to N of the A-Z index of authors."""
    count = Author.objects.published().count()
    return ({"page": page} for page in _later_pages(count, AUTHOR_PAGE_SIZE))


def award_list_pages():
    """Pages 2 to N of the award index: its series (an award slug at a venue), counted."""
    count = Award.objects.published().values("conference__venue_id", "slug").distinct().count()
    return ({"page": page} for page in _later_pages(count, AWARD_SERIES_PAGE_SIZE))


def _author_initials():
    """{initial: number of authors} of the published authors by their sort name's first
    character; every digit counts as ``DIGITS``."""
    counts = {}
    initials = (
        Author.objects.published()
        .annotate(initial=Substr("sort_name", 1, 1))
        .values_list("initial")
        .annotate(count=Count("pk"))
        .order_by("initial")
    )
    for initial, count in initials:
        code = DIGITS if initial.isdigit() else initial
        if code in AUTHOR_INITIALS or code == DIGITS:
            counts[code] = counts.get(code, 0) + count
    return counts


def author_letters():
    """The letters of the A-Z index of authors that have authors."""
    return ({"letter": code} for code in _author_initials())


def author_letter_pages():
    """Pages 2 to N of each letter of the A-Z index of authors."""
    for code, count in _author_initials().items():
        for page in _later_pages(count, AUTHOR_PAGE_SIZE):
            yield {"letter": code, "page": page}
