"""The API's answers: the querysets each endpoint shows (prefetched so its queries are
fixed) and the dicts ``schemas`` validates, with absolute URLs and every language's own
column (``translated``), never modeltranslation's fallback.
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
    authorships_with_affiliations,
)

# The API's URL namespace (awardsite/urls.py mounts it at /api/v1/).
NAMESPACE = "api-v1"


# Building blocks ------------------------------------------------------------------


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


def paginated(request, items, page, per_page, serialize):
    """Page ``page`` of ``items`` (a queryset or list), ``per_page`` a page, each item
    through ``serialize``, with the count, the number of pages and the URLs of the
    neighbours (None at either end). A page past the last is a 404."""
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
        "items": [serialize(item) for item in items[start : start + per_page]],
    }


def venue_ref(request, venue):
    return {
        "slug": venue.slug,
        "acronym": venue.acronym,
        "url": api_url(request, "venue", slug=venue.slug),
    }


def conference_ref(request, conference):
    """Needs ``conference.venue`` (select it)."""
    return {
        "slug": conference.slug,
        "year": conference.year,
        "name": translated(conference, "name"),
        "venue": conference.venue.slug,
        "url": api_url(request, "conference", slug=conference.slug),
    }


def award_ref(request, award):
    """Needs ``award.conference``."""
    return {
        "conference": award.conference.slug,
        "year": award.conference.year,
        "slug": award.slug,
        "name": translated(award, "name"),
        "url": api_url(request, "award", conference=award.conference.slug, slug=award.slug),
    }


def level_ref(level):
    return {"slug": level.slug, "name": translated(level, "name"), "position": level.position}


def author_ref(request, author):
    return {
        "slug": author.slug,
        "name": author.name,
        "orcid": author.orcid or None,
        "url": api_url(request, "author", slug=author.slug),
    }


def institution_ref(request, institution):
    return {
        "slug": institution.slug,
        "name": translated(institution, "name"),
        "url": api_url(request, "institution", slug=institution.slug),
    }


def paper_ref(request, paper):
    """Needs ``paper.conference``."""
    return {
        "slug": paper.slug,
        "title": translated(paper, "title"),
        "conference": paper.conference.slug,
        "url": api_url(request, "paper", slug=paper.slug),
    }


def downloads(request, conference=None):
    """The whole downloads of ``conference``, or of the site when None (opendata/downloads.py)."""
    scope, kwargs = (
        ("site", {}) if conference is None else ("conference", {"slug": conference.slug})
    )
    return {
        kind: absolute_url(reverse(f"opendata-{scope}-{kind}", kwargs=kwargs), request)
        for kind in ("csv", "compact")
    }


# Querysets: what each endpoint shows, with the prefetches that keep its queries fixed.


def published_entries(lookup):
    """A prefetch of the published award entries of papers at ``lookup``, with what
    ``paper_award`` shows."""
    entries = AwardEntry.objects.published().for_paper()
    return Prefetch(lookup, queryset=entries.select_related("award__conference", "level"))


def papers_for_api():
    """Published papers with everything ``paper_out`` shows (five queries a page)."""
    return (
        Paper.objects.published()
        .select_related("conference__venue")
        .prefetch_related(
            authorships_with_affiliations(),
            "links",
            published_entries("award_entries"),
        )
    )


def awards_for_api():
    """Published awards with their levels and published entries (four queries a page)."""
    return (
        Award.objects.published()
        .select_related("conference__venue")
        .prefetch_related(
            Prefetch("levels", queryset=AwardLevel.objects.order_by("position", "slug")),
            Prefetch(
                "entries",
                queryset=AwardEntry.objects.published()
                .in_level_order()
                .select_related("paper__conference")
                .prefetch_related(
                    Prefetch(
                        "paper__authorships",
                        queryset=Authorship.objects.select_related("author").order_by("position"),
                    )
                ),
            ),
        )
    )


def paper_award(request, entry):
    """Where and how a paper was awarded. Needs the entry's award (with its conference)
    and level."""
    return {
        "award": award_ref(request, entry.award),
        "level": level_ref(entry.level),
        "position": entry.position,
    }


def paper_out(request, paper):
    links = sorted(paper.links.all(), key=lambda link: link.sort_key)
    return {
        **paper_ref(request, paper),
        "abstract": translated(paper, "abstract"),
        "summary": translated(paper, "summary"),
        "published_at": conference_ref(request, paper.conference),
        "pages": paper.pages or None,
        "authors": [
            {
                "position": authorship.position,
                "author": author_ref(request, authorship.author),
                "affiliations": [
                    institution_ref(request, institution)
                    for institution in authorship.affiliations.all()
                ],
            }
            for authorship in paper.authorships.all()
        ],
        "links": [{"kind": link.kind, "url": link.url} for link in links],
        "awards": [paper_award(request, entry) for entry in paper.award_entries.all()],
        "html": html(request, paper),
    }


def award_out(request, award):
    conference = award.conference
    return {
        **award_ref(request, award),
        "conference": conference_ref(request, conference),
        "description": translated(award, "description"),
        "position": award.position,
        "announced_on": award.announced_on,
        "series": {
            "venue": conference.venue.slug,
            "slug": award.slug,
            "url": api_url(request, "award-series", venue=conference.venue.slug, slug=award.slug),
        },
        "levels": [
            {**level_ref(level), "name_plural": translated(level, "name_plural")}
            for level in award.levels.all()
        ],
        "entries": [
            {
                "paper": paper_ref(request, entry.paper),
                "authors": [
                    author_ref(request, authorship.author)
                    for authorship in entry.paper.authorships.all()
                ],
                "level": entry.level.slug,
                "position": entry.position,
            }
            for entry in award.entries.all()
        ],
        "html": html(request, award),
    }


def conference_out(request, conference):
    return {
        **conference_ref(request, conference),
        "description": translated(conference, "description"),
        "city": translated(conference, "city"),
        "country": translated(conference, "country"),
        "proceedings": translated(conference, "proceedings"),
        "start_date": conference.start_date,
        "end_date": conference.end_date,
        "website": conference.website or None,
        "awards": [award_ref(request, award) for award in conference.awards.all()],
        "downloads": downloads(request, conference),
        "html": html(request, conference),
    }


def conferences_for_api():
    """Published conferences with their venue and published awards (two queries)."""
    return (
        Conference.objects.published()
        .select_related("venue")
        .prefetch_related(
            Prefetch(
                "awards",
                queryset=Award.objects.published()
                .select_related("conference")
                .order_by("position", "slug"),
            )
        )
    )


def venue_out(request, venue):
    return {
        **venue_ref(request, venue),
        "name": translated(venue, "name"),
        "website": venue.website or None,
        "conferences": [
            conference_ref(request, conference) for conference in venue.conferences.all()
        ],
        "html": html(request, venue),
    }


def venues_for_api():
    published = Conference.objects.published().select_related("venue").newest_first()
    return Venue.objects.published().prefetch_related(Prefetch("conferences", queryset=published))


def author_out(request, author):
    return {
        **author_ref(request, author),
        "other_names": author.other_name_list,
        "homepage": author.homepage or None,
    }


def institution_out(request, institution):
    return {
        **institution_ref(request, institution),
        "country": institution.country or None,
        "website": institution.website or None,
    }


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


def series_out(request, editions):
    """An award series from its published editions (newest first, conference and venue
    selected)."""
    latest = editions[0]
    venue = latest.conference.venue
    return {
        "venue": venue_ref(request, venue),
        "slug": latest.slug,
        "name": translated(latest, "name"),
        "years": [edition.conference.year for edition in editions],
        "url": api_url(request, "award-series", venue=venue.slug, slug=latest.slug),
    }
