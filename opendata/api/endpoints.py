"""The API's endpoints: published content only, in a fixed number of queries each.

Lists are ordered by a unique key (pages never overlap), paginated (``?page=`` from 1,
``?per_page=`` up to ``MAX_PER_PAGE``) and link their neighbours. A filter value of the
wrong form is a 422, an unknown slug matches nothing, an unknown object is a 404.
"""

from functools import partial
from typing import Annotated

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import Prefetch
from ninja import Path, Query, Router
from ninja.errors import HttpError

from awardsite.addresses import absolute_url
from catalogue.models import (
    Author,
    Authorship,
    Award,
    AwardEntry,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    Venue,
)
from catalogue.models.querysets import authorships_in_order, conference_order
from opendata.api import schemas
from opendata.api.schemas import api_url, downloads

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


def slug_filter(description):
    """The type of an optional query parameter holding a slug, with its description."""
    return Annotated[str | None, Query(pattern=SLUG, description=description)]


Page = Annotated[int, Query(ge=1, le=MAX_PAGE, description="The page, from 1.")]
PerPage = Annotated[int, Query(ge=1, le=MAX_PER_PAGE, description="Items a page.")]


def answers(ok, not_found=True, invalid=True):
    """An operation's documented answers: 200 ``ok``, 404, 422 and the rate limit's 429."""
    return {
        200: ok,
        **({404: schemas.Error} if not_found else {}),
        **({422: schemas.ValidationErrors} if invalid else {}),
        429: schemas.Throttled,
    }


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


def paginated(request, items, page, per_page):
    """Page ``page`` of ``items`` (an ordered queryset or a list), ``per_page`` a page,
    with the count, the number of pages and the URLs of the neighbours (None at either
    end). A page past the last is a 404."""
    paginator = Paginator(items, per_page)
    if page > paginator.num_pages:
        raise HttpError(404, f"page: there is no page {page}; the last is {paginator.num_pages}.")
    current = paginator.page(page)

    def link(number):
        query = request.GET.copy()
        query["page"] = str(number)
        return absolute_url(f"{request.path}?{query.urlencode()}", request)

    return {
        "count": paginator.count,
        "page": page,
        "pages": paginator.num_pages,
        "next": link(page + 1) if current.has_next() else None,
        "previous": link(page - 1) if current.has_previous() else None,
        "items": list(current),
    }


# Querysets: what each endpoint shows, with the prefetches that keep its queries fixed.


def awards_for_api():
    """Published awards with their levels and published entries (four queries a page)."""
    entries = (
        AwardEntry.objects.published()
        .in_level_order()
        .select_related("paper__conference")
        .prefetch_related(authorships_in_order("paper__authorships"))
    )
    return (
        Award.objects.published()
        .with_conference()
        .select_related("kind")
        .prefetch_related(
            Prefetch("levels", queryset=AwardLevel.objects.order_by("position", "slug")),
            Prefetch("entries", queryset=entries),
        )
    )


def venues_for_api():
    """Venues with published conferences, with those (newest first; two queries)."""
    published = Conference.objects.published().select_related("venue").newest_first()
    return Venue.objects.published().prefetch_related(Prefetch("conferences", queryset=published))


def filtered_papers(venue, conference, year, award, level=None, author=None, orcid=None):
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
    # Two filters: the author and the ORCID iD may be two authors of the paper.
    papers = narrowed(papers, authorships__author__slug=author)
    return narrowed(papers, authorships__author__orcid=orcid)


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
        # Each collection's field is named by its endpoint's URL name (award_series_list).
        "collections": {
            field: api_url(request, field.replace("_", "-"))
            for field in schemas.Collections.model_fields
        },
        "downloads": downloads(request),
    }


@get("/venues", response=answers(schemas.page_of(schemas.Venue)), url_name="venues")
def venues(request, page: Page = 1, per_page: PerPage = DEFAULT_PER_PAGE):
    """Venues (conference series) with published editions, by slug."""
    return paginated(request, venues_for_api().order_by("slug"), page, per_page)


@get("/venues/{slug}", response=answers(schemas.Venue), url_name="venue")
def venue(request, slug: Slug):
    """One venue and its published editions, newest first."""
    return found(venues_for_api(), "venue", slug=slug)


@get("/conferences", response=answers(schemas.page_of(schemas.Conference)), url_name="conferences")
def conferences(
    request,
    venue: SlugFilter = None,
    year: Year = None,
    page: Page = 1,
    per_page: PerPage = DEFAULT_PER_PAGE,
):
    """Published conferences, newest first as on the site (``newest_first()``: by year,
    then start date, then slug), filtered by ``venue`` (slug) and ``year``."""
    items = narrowed(
        Conference.objects.published().with_listed_awards(), venue__slug=venue, year=year
    ).newest_first()
    return paginated(request, items, page, per_page)


@get("/conferences/{slug}", response=answers(schemas.Conference), url_name="conference")
def conference(request, slug: Slug):
    """One published conference with its awards and downloads."""
    return found(Conference.objects.published().with_listed_awards(), "conference", slug=slug)


@get("/awards", response=answers(schemas.page_of(schemas.Award)), url_name="awards")
def awards(
    request,
    venue: SlugFilter = None,
    conference: SlugFilter = None,
    year: Year = None,
    award: slug_filter("An award slug.") = None,
    level: slug_filter("Awards that give this level.") = None,
    kind: slug_filter("Awards of this kind, at every venue (test-of-time, ...).") = None,
    page: Page = 1,
    per_page: PerPage = DEFAULT_PER_PAGE,
):
    """Published awards with their levels and entries, the newest conference first, then
    in the conference's order; filtered by the giving conference's ``venue``, slug
    (``conference``) and ``year``, by ``award`` slug (one series), by ``level`` slug and
    by ``kind`` slug."""
    items = narrowed(
        awards_for_api(),
        conference__venue__slug=venue,
        conference__slug=conference,
        conference__year=year,
        slug=award,
        levels__slug=level,
        kind__slug=kind,
    )
    items = items.order_by(*conference_order("conference__"), "position", "slug")
    return paginated(request, items, page, per_page)


@get("/awards/{conference}/{slug}", response=answers(schemas.Award), url_name="award")
def award(request, conference: Slug, slug: Slug):
    """One published award of a conference, with its levels and entries."""
    return found(awards_for_api(), "award", conference__slug=conference, slug=slug)


@get(
    "/award-series",
    response=answers(schemas.page_of(schemas.AwardSeries)),
    url_name="award-series-list",
)
def award_series_list(
    request, venue: SlugFilter = None, page: Page = 1, per_page: PerPage = DEFAULT_PER_PAGE
):
    """Award series: the same award slug at every edition of a venue, by venue and slug,
    with the years it was given; filtered by ``venue``. One query."""
    awards = narrowed(Award.objects.published(), conference__venue__slug=venue)
    groups = {}
    for award in awards.select_related("conference__venue").order_by(
        "conference__venue__slug", "slug", *conference_order("conference__")
    ):
        groups.setdefault((award.conference.venue.slug, award.slug), []).append(award)
    for editions in groups.values():
        editions[0].editions = editions
    return paginated(request, [editions[0] for editions in groups.values()], page, per_page)


@get(
    "/award-series/{venue}/{slug}",
    response=answers(schemas.AwardSeriesDetail),
    url_name="award-series",
)
def award_series(request, venue: Slug, slug: Slug):
    """Every published edition of one award at one venue, newest first."""
    editions = list(awards_for_api().series(venue, slug))
    if not editions:
        raise HttpError(404, f'No published award series "{venue}/{slug}".')
    editions[0].editions = editions
    return editions[0]


@get("/papers", response=answers(schemas.page_of(schemas.Paper)), url_name="papers")
def papers(
    request,
    venue: slug_filter("Published at this venue.") = None,
    conference: slug_filter("Published at this conference.") = None,
    year: Annotated[
        int | None, Query(ge=1, le=32767, description="Published at a conference of this year.")
    ] = None,
    award: slug_filter("With an entry in this award series.") = None,
    level: slug_filter("With an entry at this level.") = None,
    author: slug_filter("An author's slug.") = None,
    orcid: Annotated[str | None, Query(pattern=ORCID, description="An author's ORCID iD.")] = None,
    page: Page = 1,
    per_page: PerPage = DEFAULT_PER_PAGE,
):
    """Published papers, the newest conference first, then by slug, with authors in
    order (with affiliations in order), links, where published and where and how
    awarded. Filters combine (all must hold); see ``filtered_papers``."""
    matching = filtered_papers(venue, conference, year, award, level, author=author, orcid=orcid)
    items = Paper.objects.published().for_detail().filter(pk__in=matching.values("pk"))
    items = items.order_by(*conference_order("conference__"), "slug")
    return paginated(request, items, page, per_page)


@get("/papers/{slug}", response=answers(schemas.Paper), url_name="paper")
def paper(request, slug: Slug):
    """One published paper."""
    return found(Paper.objects.published().for_detail(), "paper", slug=slug)


@get("/authors", response=answers(schemas.page_of(schemas.Author)), url_name="authors")
def authors(
    request,
    orcid: Annotated[str | None, Query(pattern=ORCID)] = None,
    venue: slug_filter("Published at.") = None,
    conference: slug_filter("Published at.") = None,
    year: Year = None,
    award: slug_filter("Of a paper in this award series.") = None,
    page: Page = 1,
    per_page: PerPage = DEFAULT_PER_PAGE,
):
    """Authors of published papers, by slug; filtered by ``orcid``, and by where their
    papers were published or awarded (as for papers)."""
    matching = filtered_papers(venue, conference, year, award)
    authorships = Authorship.objects.filter(paper__in=matching)
    items = narrowed(Author.objects.filter(pk__in=authorships.values("author")), orcid=orcid)
    return paginated(request, items.order_by("slug"), page, per_page)


@get("/authors/{slug}", response=answers(schemas.AuthorDetail), url_name="author")
def author(request, slug: Slug):
    """One author with their published papers and those papers' awards, newest first."""
    person = found(Author.objects.published(), "author", slug=slug)
    person.published_authorships = list(
        Authorship.objects.for_author_page(person)
        .select_related("paper__conference")
        .prefetch_related(
            Prefetch("paper__award_entries", queryset=AwardEntry.objects.published().for_paper())
        )
    )
    return person


@get(
    "/institutions", response=answers(schemas.page_of(schemas.Institution)), url_name="institutions"
)
def institutions(request, page: Page = 1, per_page: PerPage = DEFAULT_PER_PAGE):
    """Institutions named as an affiliation on a published paper, by slug."""
    return paginated(request, Institution.objects.published().order_by("slug"), page, per_page)


@get("/institutions/{slug}", response=answers(schemas.Institution), url_name="institution")
def institution(request, slug: Slug):
    """One institution."""
    return found(Institution.objects.published(), "institution", slug=slug)
