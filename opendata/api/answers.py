"""What the API's endpoints read: the querysets each shows (prefetched so its queries
are fixed), and the helpers ``schemas`` reads objects with: absolute URLs, and every
language's own column (``translated``), never modeltranslation's fallback.
"""

import math

from django.conf import settings
from django.db.models import Prefetch
from django.urls import reverse
from django.utils import translation
from modeltranslation.utils import build_localized_fieldname
from ninja.errors import HttpError

from awardsite.addresses import absolute_url
from catalogue.models import (
    Authorship,
    Award,
    AwardEntry,
    AwardLevel,
    Conference,
    Paper,
    Venue,
)

# The API's URL namespace (awardsite/urls.py mounts it at /api/v1/).
NAMESPACE = "api-v1"


def found(queryset, noun, **lookups):
    """The object of ``queryset`` matching ``lookups``, or a 404 naming what is missing."""
    try:
        return queryset.get(**lookups)
    except queryset.model.DoesNotExist:
        key = "/".join(str(value) for value in lookups.values())
        raise HttpError(404, f'No published {noun} "{key}".') from None


def narrowed(queryset, **lookups):
    """``queryset`` filtered by those of ``lookups`` that have a value (not None or "")."""
    return queryset.filter(
        **{key: value for key, value in lookups.items() if value not in (None, "")}
    )


def translated(obj, field):
    """``{language code: text or None}`` for ``obj.<field>`` from each language's own
    column (``name_en``, ``name_zh_hans``), never another language's text."""
    return {
        code: getattr(obj, build_localized_fieldname(field, code)) or None
        for code, _name in settings.LANGUAGES
    }


def api_url(request, name, **kwargs):
    """The absolute URL of the API endpoint ``name``."""
    return absolute_url(reverse(f"{NAMESPACE}:{name}", kwargs=kwargs), request)


def html(request, obj):
    """The absolute URL of ``obj``'s web page in every language of the site."""
    pages = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            pages[code] = absolute_url(obj.get_absolute_url(), request)
    return pages


def downloads(request, conference=None):
    """The whole downloads of ``conference``, or of the site when None (opendata/downloads.py)."""
    scope, kwargs = (
        ("site", {}) if conference is None else ("conference", {"slug": conference.slug})
    )
    return {
        kind: absolute_url(reverse(f"opendata-{scope}-{kind}", kwargs=kwargs), request)
        for kind in ("csv", "compact")
    }


def paginated(request, items, page, per_page):
    """Page ``page`` of ``items`` (a queryset or list), ``per_page`` a page, with the
    count, the number of pages and the URLs of the neighbours (None at either end). A
    page past the last is a 404."""
    count = len(items) if isinstance(items, list) else items.count()
    pages = max(1, math.ceil(count / per_page))
    if page > pages:
        raise HttpError(404, f"page: there is no page {page}; the last is {pages}.")
    start = (page - 1) * per_page

    def link(number):
        query = request.GET.copy()
        query["page"] = str(number)
        return absolute_url(f"{request.path}?{query.urlencode()}", request)

    return {
        "count": count,
        "page": page,
        "pages": pages,
        "next": link(page + 1) if page < pages else None,
        "previous": link(page - 1) if page > 1 else None,
        "items": list(items[start : start + per_page]),
    }


# Querysets: what each endpoint shows, with the prefetches that keep its queries fixed.


def published_entries(lookup):
    """A prefetch of the published award entries of papers at ``lookup``, with the
    award, its conference and the level."""
    return Prefetch(lookup, queryset=AwardEntry.objects.published().for_paper())


def awards_for_api():
    """Published awards with their levels and published entries (four queries a page)."""
    entries = (
        AwardEntry.objects.published()
        .in_level_order()
        .select_related("paper__conference")
        .prefetch_related(
            Prefetch(
                "paper__authorships",
                queryset=Authorship.objects.select_related("author").order_by("position"),
            )
        )
    )
    return (
        Award.objects.published()
        .with_conference()
        .prefetch_related(
            Prefetch("levels", queryset=AwardLevel.objects.order_by("position", "slug")),
            Prefetch("entries", queryset=entries),
        )
    )


def conferences_for_api():
    """Published conferences with their venue and published awards (two queries)."""
    awards = Award.objects.published().select_related("conference").order_by("position", "slug")
    return (
        Conference.objects.published()
        .select_related("venue")
        .prefetch_related(Prefetch("awards", queryset=awards))
    )


def venues_for_api():
    """Venues with published conferences, with those (newest first; two queries)."""
    published = Conference.objects.published().select_related("venue").newest_first()
    return Venue.objects.published().prefetch_related(Prefetch("conferences", queryset=published))


def filtered_papers(venue=None, conference=None, year=None, award=None, level=None, **people):
    """Published papers, narrowed by where they were published (``venue`` and
    ``conference`` slugs, ``year``), by a published award entry (``award``: an award
    series slug; ``level``: a level slug; both: the same entry), and by an author
    (``author``: slug, ``orcid``: ORCID iD). None leaves a filter open."""
    papers = narrowed(
        Paper.objects.published(),
        conference__venue__slug=venue,
        conference__slug=conference,
        conference__year=year,
    )
    if award or level:
        entries = narrowed(AwardEntry.objects.published(), award__slug=award, level__slug=level)
        papers = papers.filter(pk__in=entries.values("paper"))
    if people.get("author"):
        papers = papers.filter(authorships__author__slug=people["author"])
    if people.get("orcid"):
        papers = papers.filter(authorships__author__orcid=people["orcid"])
    return papers
