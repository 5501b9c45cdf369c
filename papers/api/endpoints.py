"""The API's endpoints: published content only, in a fixed number of queries each.

Every list is ordered by a unique key (so pages never overlap or skip), paginated with
``?page=`` (from 1) and ``?per_page=`` (1 to ``MAX_PER_PAGE``), and links its
neighbours. Filters take slugs, years and ORCID iDs; a value of the wrong form is a 422
naming the parameter (``papers.api.validation_error``), an unknown slug simply matches
nothing, and an unknown object is a 404. Translated fields carry every language's own
column (``translated``), never modeltranslation's fallback.
"""

import math
from functools import partial
from typing import Annotated

from django.conf import settings
from django.db.models import Prefetch
from django.urls import reverse
from django.utils import translation
from modeltranslation.utils import build_localized_fieldname
from ninja import Path, Query, Router
from ninja.errors import HttpError

from ..metadata import absolute_url
from ..models import (
    Author,
    Authorship,
    Award,
    AwardEntry,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    Venue,
    affiliations_in_order,
)
from . import schemas

NAMESPACE = "api-v1"
DEFAULT_PER_PAGE = 50
MAX_PER_PAGE = 200
# Beyond any real list; keeps OFFSET within what every database accepts.
MAX_PAGE = 1_000_000
SLUG = r"^[-a-zA-Z0-9_]{1,120}$"
ORCID = r"^[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]$"

router = Router()
# Answers are written with the schemas' aliases ("zh-hans"), as the schema names them.
get = partial(router.get, by_alias=True)

Slug = Annotated[str, Path(pattern=SLUG, description="A slug, e.g. icml-2025.")]
SlugFilter = Annotated[str | None, Query(pattern=SLUG)]
Year = Annotated[int | None, Query(ge=1, le=32767, description="A conference's year.")]
Page = Annotated[int, Query(ge=1, le=MAX_PAGE, description="The page, from 1.")]
PerPage = Annotated[int, Query(ge=1, le=MAX_PER_PAGE, description="Items a page.")]


def answers(ok, not_found=True, invalid=True):
    """The documented answers of an operation: ``ok`` (200), a 404 when an object or
    page may be missing, a 422 when it reads parameters, and the rate limit's 429."""
    return {
        200: ok,
        **({404: schemas.Error} if not_found else {}),
        **({422: schemas.ValidationErrors} if invalid else {}),
        429: schemas.Throttled,
    }


# Building blocks ------------------------------------------------------------------


def found(queryset, noun, **lookups):
    """The one object of ``queryset`` matching ``lookups``, or a 404 whose JSON body
    names what was not found (``No paper "x".``)."""
    try:
        return queryset.get(**lookups)
    except queryset.model.DoesNotExist:
        key = "/".join(str(value) for value in lookups.values())
        raise HttpError(404, f'No published {noun} "{key}".') from None


def translated(obj, field):
    """``{language code: text or None}`` for ``obj.<field>`` in every language of the
    site, read from the suffixed columns (``name_en``, ``name_zh_hans``): an empty
    column is None, never another language's text."""
    return {
        code: getattr(obj, build_localized_fieldname(field, code)) or None
        for code, _name in settings.LANGUAGES
    }


def api_url(request, name, **kwargs):
    """The absolute URL of the API endpoint ``name`` (see ``papers.metadata.absolute_url``)."""
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
    passed through ``serialize``: ``count`` and ``items``, ``page`` and ``pages``, and
    the absolute URLs of the next and previous pages (None at either end). Two queries
    on a queryset (count and page). A page past the last is a 404 naming ``page``."""
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
    """The whole downloads of ``conference``, or of the site when None (papers/opendata.py)."""
    if conference is None:
        csv = reverse("opendata-site-csv")
    else:
        csv = reverse("opendata-conference-csv", kwargs={"slug": conference.slug})
    # The compact format (what import_conference reads) will be offered here once its
    # exporter (papers/importing/compact.py) is in: until then null, never a dead link.
    return {"csv": absolute_url(csv, request), "compact": None}


# Querysets: what each endpoint shows, with the prefetches that keep its queries fixed.


def papers_for_api():
    """Published papers with everything ``paper_out`` shows (five queries a page)."""
    return (
        Paper.objects.published()
        .select_related("conference__venue")
        .prefetch_related(
            Prefetch(
                "authorships",
                queryset=Authorship.objects.select_related("author")
                .prefetch_related(affiliations_in_order())
                .order_by("position"),
            ),
            "links",
            Prefetch(
                "award_entries",
                queryset=AwardEntry.objects.published()
                .for_paper()
                .select_related("award__conference", "level"),
            ),
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
        "awards": [
            {
                "award": award_ref(request, entry.award),
                "level": level_ref(entry.level),
                "position": entry.position,
            }
            for entry in paper.award_entries.all()
        ],
        "html": html(request, paper),
    }


def award_out(request, award):
    conference = award.conference
    return {
        **award_ref(request, award),
        "conference": conference_ref(request, conference),
        "description": translated(award, "description"),
        "position": award.position,
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
    papers = Paper.objects.published()
    if venue:
        papers = papers.filter(conference__venue__slug=venue)
    if conference:
        papers = papers.filter(conference__slug=conference)
    if year is not None:
        papers = papers.filter(conference__year=year)
    if award or level:
        entries = AwardEntry.objects.published()
        if award:
            entries = entries.filter(award__slug=award)
        if level:
            entries = entries.filter(level__slug=level)
        papers = papers.filter(pk__in=entries.values("paper"))
    if people.get("author"):
        papers = papers.filter(authorships__author__slug=people["author"])
    if people.get("orcid"):
        papers = papers.filter(authorships__author__orcid=people["orcid"])
    return papers


# Endpoints --------------------------------------------------------------------------


@get(
    "/",
    response=answers(schemas.Index, not_found=False, invalid=False),
    url_name="index",
    summary="What this API offers",
)
def index(request):
    """Links to every collection, the schema and its documentation, the whole-site
    downloads and the data's licence (``settings.DATA_LICENCE``; null when none is set)."""
    return {
        "version": "1",
        "licence": settings.DATA_LICENCE or None,
        "openapi": api_url(request, "openapi-json"),
        "docs": api_url(request, "openapi-view"),
        "collections": {
            **{
                name: api_url(request, name)
                for name in ("venues", "conferences", "awards", "papers", "authors")
            },
            "award-series": api_url(request, "award-series-list"),
            "institutions": api_url(request, "institutions"),
        },
        "downloads": downloads(request),
    }


@get("/venues", response=answers(schemas.page_of(schemas.Venue)), url_name="venues")
def venues(request, page: Page = 1, per_page: PerPage = DEFAULT_PER_PAGE):
    """Venues (conference series) with published editions, by slug."""
    items = venues_for_api().order_by("slug")
    return paginated(request, items, page, per_page, partial(venue_out, request))


@get("/venues/{slug}", response=answers(schemas.Venue), url_name="venue")
def venue(request, slug: Slug):
    """One venue and its published editions, newest first."""
    return venue_out(request, found(venues_for_api(), "venue", slug=slug))


@get("/conferences", response=answers(schemas.page_of(schemas.Conference)), url_name="conferences")
def conferences(
    request,
    venue: SlugFilter = None,
    year: Year = None,
    page: Page = 1,
    per_page: PerPage = DEFAULT_PER_PAGE,
):
    """Published conferences, newest first (then by slug), filtered by ``venue`` (slug)
    and ``year``."""
    items = conferences_for_api()
    if venue:
        items = items.filter(venue__slug=venue)
    if year is not None:
        items = items.filter(year=year)
    items = items.order_by("-year", "slug")
    return paginated(request, items, page, per_page, partial(conference_out, request))


@get("/conferences/{slug}", response=answers(schemas.Conference), url_name="conference")
def conference(request, slug: Slug):
    """One published conference with its awards and downloads."""
    return conference_out(request, found(conferences_for_api(), "conference", slug=slug))


@get("/awards", response=answers(schemas.page_of(schemas.Award)), url_name="awards")
def awards(
    request,
    venue: SlugFilter = None,
    conference: SlugFilter = None,
    year: Year = None,
    award: Annotated[str | None, Query(pattern=SLUG, description="An award slug.")] = None,
    level: Annotated[
        str | None, Query(pattern=SLUG, description="Awards that give this level.")
    ] = None,
    page: Page = 1,
    per_page: PerPage = DEFAULT_PER_PAGE,
):
    """Published awards with their levels and entries, the newest conference first, then
    in the conference's order; filtered by the giving conference's ``venue``, slug
    (``conference``) and ``year``, by ``award`` slug (one series) and by ``level`` slug."""
    items = awards_for_api()
    if venue:
        items = items.filter(conference__venue__slug=venue)
    if conference:
        items = items.filter(conference__slug=conference)
    if year is not None:
        items = items.filter(conference__year=year)
    if award:
        items = items.filter(slug=award)
    if level:
        items = items.filter(levels__slug=level)
    items = items.order_by("-conference__year", "conference__slug", "position", "slug")
    return paginated(request, items, page, per_page, partial(award_out, request))


@get(
    "/awards/{conference}/{slug}",
    response=answers(schemas.Award),
    url_name="award",
)
def award(request, conference: Slug, slug: Slug):
    """One published award of a conference, with its levels and entries."""
    return award_out(
        request, found(awards_for_api(), "award", conference__slug=conference, slug=slug)
    )


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


@get(
    "/award-series",
    response=answers(schemas.page_of(schemas.AwardSeries)),
    url_name="award-series-list",
)
def award_series_list(
    request,
    venue: SlugFilter = None,
    page: Page = 1,
    per_page: PerPage = DEFAULT_PER_PAGE,
):
    """Award series: the same award slug at every edition of a venue, by venue and slug,
    with the years it was given; filtered by ``venue``. One query."""
    awards = Award.objects.published().select_related("conference__venue")
    if venue:
        awards = awards.filter(conference__venue__slug=venue)
    groups = {}
    for award in awards.order_by(
        "conference__venue__slug", "slug", "-conference__year", "-conference__start_date"
    ):
        groups.setdefault((award.conference.venue.slug, award.slug), []).append(award)
    return paginated(request, list(groups.values()), page, per_page, partial(series_out, request))


@get(
    "/award-series/{venue}/{slug}",
    response=answers(schemas.AwardSeriesDetail),
    url_name="award-series",
)
def award_series(request, venue: Slug, slug: Slug):
    """Every published edition of one award at one venue, newest first."""
    editions = list(
        awards_for_api()
        .filter(conference__venue__slug=venue, slug=slug)
        .order_by("-conference__year", "-conference__start_date")
    )
    if not editions:
        raise HttpError(404, f'No published award series "{venue}/{slug}".')
    return {
        **series_out(request, editions),
        "editions": [award_out(request, edition) for edition in editions],
    }


@get("/papers", response=answers(schemas.page_of(schemas.Paper)), url_name="papers")
def papers(
    request,
    venue: Annotated[
        str | None, Query(pattern=SLUG, description="Published at this venue.")
    ] = None,
    conference: Annotated[
        str | None, Query(pattern=SLUG, description="Published at this conference.")
    ] = None,
    year: Annotated[
        int | None, Query(ge=1, le=32767, description="Published at a conference of this year.")
    ] = None,
    award: Annotated[
        str | None, Query(pattern=SLUG, description="With an entry in this award series.")
    ] = None,
    level: Annotated[
        str | None, Query(pattern=SLUG, description="With an entry at this level.")
    ] = None,
    author: Annotated[str | None, Query(pattern=SLUG, description="An author's slug.")] = None,
    orcid: Annotated[str | None, Query(pattern=ORCID, description="An author's ORCID iD.")] = None,
    page: Page = 1,
    per_page: PerPage = DEFAULT_PER_PAGE,
):
    """Published papers, the newest conference first, then by slug, with authors in
    order (with affiliations in order), links, where published and where and how
    awarded. Filters combine (all must hold); see ``filtered_papers``."""
    matching = filtered_papers(venue, conference, year, award, level, author=author, orcid=orcid)
    items = papers_for_api().filter(pk__in=matching.values("pk"))
    items = items.order_by("-conference__year", "slug")
    return paginated(request, items, page, per_page, partial(paper_out, request))


@get("/papers/{slug}", response=answers(schemas.Paper), url_name="paper")
def paper(request, slug: Slug):
    """One published paper."""
    return paper_out(request, found(papers_for_api(), "paper", slug=slug))


@get("/authors", response=answers(schemas.page_of(schemas.Author)), url_name="authors")
def authors(
    request,
    orcid: Annotated[str | None, Query(pattern=ORCID)] = None,
    venue: Annotated[str | None, Query(pattern=SLUG, description="Published at.")] = None,
    conference: Annotated[str | None, Query(pattern=SLUG, description="Published at.")] = None,
    year: Year = None,
    award: Annotated[
        str | None, Query(pattern=SLUG, description="Of a paper in this award series.")
    ] = None,
    page: Page = 1,
    per_page: PerPage = DEFAULT_PER_PAGE,
):
    """Authors of published papers, by slug; filtered by ``orcid``, and by where their
    papers were published or awarded (as for papers)."""
    matching = filtered_papers(venue, conference, year, award)
    items = Author.objects.filter(
        pk__in=Authorship.objects.filter(paper__in=matching).values("author")
    )
    if orcid:
        items = items.filter(orcid=orcid)
    return paginated(request, items.order_by("slug"), page, per_page, partial(author_out, request))


@get("/authors/{slug}", response=answers(schemas.AuthorDetail), url_name="author")
def author(request, slug: Slug):
    """One author with their published papers and those papers' awards, newest first."""
    person = found(Author.objects.published(), "author", slug=slug)
    authorships = list(
        Authorship.objects.filter(author=person, paper__in=Paper.objects.published())
        .select_related("paper__conference")
        .prefetch_related(
            Prefetch(
                "paper__award_entries",
                queryset=AwardEntry.objects.published()
                .for_paper()
                .select_related("award__conference", "level"),
            )
        )
        .order_by("-paper__conference__year", "paper__slug")
    )
    return {
        **author_out(request, person),
        "papers": [paper_ref(request, authorship.paper) for authorship in authorships],
        "awards": [
            {
                "award": award_ref(request, entry.award),
                "level": level_ref(entry.level),
                "position": entry.position,
                "paper": authorship.paper.slug,
            }
            for authorship in authorships
            for entry in authorship.paper.award_entries.all()
        ],
        "html": html(request, person),
    }


@get(
    "/institutions", response=answers(schemas.page_of(schemas.Institution)), url_name="institutions"
)
def institutions(request, page: Page = 1, per_page: PerPage = DEFAULT_PER_PAGE):
    """Institutions named as an affiliation on a published paper, by slug."""
    items = Institution.objects.published().order_by("slug")
    return paginated(request, items, page, per_page, partial(institution_out, request))


@get(
    "/institutions/{slug}",
    response=answers(schemas.Institution),
    url_name="institution",
)
def institution(request, slug: Slug):
    """One institution."""
    return institution_out(
        request, found(Institution.objects.published(), "institution", slug=slug)
    )
