"""Public pages. Each view's queryset comes from the model's QuerySet vocabulary,
so every page runs a fixed number of queries however many papers it lists, and
shows only published items (an unpublished or unknown slug is a 404).

Editors preview a draft by adding ``?preview=1`` to its address (the admin's "View on
site" does): see ``PreviewMixin``."""

import contextlib
import types

from django.conf import settings
from django.core.paginator import InvalidPage, Paginator
from django.db import connection
from django.db.models import Count, Exists, Max, Min, Q, Window
from django.http import (
    Http404,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseForbidden,
    HttpResponseNotFound,
    HttpResponsePermanentRedirect,
    HttpResponseServerError,
    JsonResponse,
    StreamingHttpResponse,
)
from django.shortcuts import get_object_or_404
from django.template import loader
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.safestring import mark_safe
from django.utils.translation import ngettext
from django.views import generic
from modeltranslation.utils import build_localized_fieldname

from awardsite.addresses import absolute_url
from catalogue import search
from catalogue.models import (
    NEWEST_FIRST,
    SEARCH_MAX_WORDS,
    Author,
    Award,
    AwardEntry,
    Conference,
    Institution,
    Paper,
    Status,
    Venue,
    count_of,
    published_q,
)
from catalogue.reversing import slug_url, slugs_url
from editorial.forms import SearchForm
from pages import citations, listing, paging
from pages.paging import PagePathMixin

# Items per page of the lists that grow with the data: a conference's papers without
# an award and an author's papers. Chosen so that the largest conference page stays
# far below 200 KB of HTML (see benchmarks/page_sizes.py for the figures).
LIST_PAGE_SIZE = 50


def paginate(number, items, per_page=LIST_PAGE_SIZE):
    """Page ``number`` (an int from 1: the view's ``page_number``, see
    pages/paging.py) of ``items`` as a django.core.paginator Page. A page out of range
    is a 404, as in Django's ListView; an empty list has one, empty, first page."""
    paginator = Paginator(items, per_page)
    try:
        return paginator.page(number)
    except InvalidPage as error:
        raise Http404(str(error)) from error


def previewing(request, model):
    """Whether ``request`` asks for a preview (``?preview`` in its query string) of an
    object of ``model`` and may have one: an active staff user with the model's view
    permission. False for anyone else, who gets the public page (see PreviewMixin)."""
    user = request.user
    return (
        PreviewMixin.preview_parameter in request.GET
        and user.is_active
        and user.is_staff
        and user.has_perm(f"{model._meta.app_label}.view_{model._meta.model_name}")
    )


def mark_preview(response):
    """Keep ``response`` (a preview's) out of shared caches and search engines; returns it."""
    patch_cache_control(response, private=True, no_store=True, max_age=0)
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response


class PreviewMixin:
    """``?preview=1`` shows a draft conference, award or paper to staff who may view it.

    Only an active staff user with the model's view permission gets a preview; anyone
    else gets the public page (a 404 for a draft). In preview the object is shown
    whatever its status (and its conference's), with the lists in it as visitors will
    see them once it is published; the page is bannered (``preview`` in the context),
    marked ``noindex``, and never stored by a shared cache.
    """

    preview_parameter = settings.PREVIEW_PARAMETER

    def dispatch(self, request, *args, **kwargs):
        self.preview = previewing(request, self.model)
        response = super().dispatch(request, *args, **kwargs)
        if self.preview:
            mark_preview(response)
        return response

    def get_context_data(self, **kwargs):
        return super().get_context_data(preview=self.preview, **kwargs)


def previewed_entries():
    """Award entries as visitors will see them once their award is published."""
    return AwardEntry.objects.filter(paper__status=Status.PUBLISHED)


def shown_entries(preview):
    """The award entries a page lists, for ``PageLists.awards()``: a preview's (see
    above), or ``None`` for the published ones (its prepared query)."""
    return previewed_entries() if preview else None


# Conferences the home page shows with their awards, the most recent first; the
# conference index (ConferenceListView) lists every one. Five is about a season of the
# field's main venues (ICLR, ICML, NeurIPS, CVPR, ACL, ...), so a visitor finds the
# latest awards on the front page, while the page stays the same size however many
# conferences the site holds (issue 13: no page grows without bound with the data).
HOME_CONFERENCES = 5


class HomeView(generic.ListView):
    """The ``HOME_CONFERENCES`` most recent conferences that give awards, newest first,
    each with its awards (``ConferenceQuerySet.with_listed_awards()``);
    ``more_conferences`` is true when there are others (the page then links to the
    conference index, which lists them all). Two queries (one when there is no
    conference).

    Editions without awards of their own (kept for the papers a later edition honoured)
    are left out here; their papers and their venue's page link to them.
    """

    template_name = "papers/home.html"
    context_object_name = "conferences"

    def get_queryset(self):
        # One more than shown: whether there are others, without counting them all.
        conferences = Conference.objects.published().with_awards().newest_first()
        return conferences.with_listed_awards()[: HOME_CONFERENCES + 1]

    def get_context_data(self, **kwargs):
        conferences = list(self.object_list)
        return super().get_context_data(
            object_list=conferences[:HOME_CONFERENCES],
            more_conferences=len(conferences) > HOME_CONFERENCES,
            **kwargs,
        )


class VenueDetailView(generic.DetailView):
    """A venue (a conference series) and its published editions, newest first, with
    how many awards and papers each has here. 404 when it has none."""

    model = Venue

    def get_queryset(self):
        return Venue.objects.published()

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["conferences"] = self.object.conferences.published().for_venue().newest_first()
        return context


class ConferenceDetailView(PagePathMixin, PreviewMixin, generic.DetailView):
    """A conference's awards in full, each level under its own heading, the top level
    first, then its other papers by title, ``LIST_PAGE_SIZE`` a page (page N at
    ``page/<N>/``, see pages/paging.py and ``paginate``). 404 for an unknown slug."""

    model = Conference

    def get_queryset(self):
        conferences = Conference.objects.select_related("venue")
        return conferences if self.preview else conferences.published()

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        conference = self.object
        # The conference's published awards (outside a preview the conference itself is
        # published: get_queryset() says so), each given the page's conference and venue
        # instead of joining them again for every award (a third of the query's time).
        awards = listing.published_awards_at(conference)
        lists = listing.PageLists()
        context["awards"] = lists.awards(awards, shown_entries(self.preview))
        if self.preview:
            # published_without_award_at() sets aside the papers of the awards shown
            # above (the conference's published awards, whatever its own status).
            papers = Paper.objects.filter(status=Status.PUBLISHED)
            page = paginate(self.page_number, papers.published_without_award_at(conference))
            rows = listing.paper_rows(page.object_list)
        else:
            others = listing.OtherPapers(
                conference, context["awards"], self.page_number, LIST_PAGE_SIZE
            )
            page = paginate(self.page_number, others)
            rows = page.object_list
        context["page_obj"] = page
        context["other_papers"] = lists.papers(rows)
        lists.fetch()
        if self.preview:
            # The conference's data downloads and API have no preview: not linked for a draft.
            context["conference_public"] = (
                Conference.objects.published().filter(pk=conference.pk).exists()
            )
        return context


class AwardDetailView(PreviewMixin, generic.DetailView):
    """One award at one conference: its description and its papers. 404 when unknown."""

    model = Award

    def get_queryset(self):
        awards = Award.objects.filter(conference__slug=self.kwargs["conference_slug"])
        return (awards if self.preview else awards.published()).with_conference()

    def get_object(self, queryset=None):
        award = super().get_object(queryset)
        lists = listing.PageLists()
        lists.awards([award], shown_entries(self.preview))
        lists.fetch()
        return award

    def get_context_data(self, **kwargs):
        """The page's context; in a preview also ``series_public``: whether the award
        series page (published editions only, no preview) exists, else it is not linked
        (one query, in previews only)."""
        context = super().get_context_data(**kwargs)
        if self.preview:
            award = self.object
            context["series_public"] = (
                Award.objects.published().series(award.conference.venue.slug, award.slug).exists()
            )
        return context


class AwardSeriesView(generic.ListView):
    """Every edition of one award at one venue (the same award slug), newest first,
    each with its winners and honourable mentions. 404 when no edition is published."""

    template_name = "papers/award_series.html"
    context_object_name = "awards"
    allow_empty = False

    def get_queryset(self):
        awards = (
            Award.objects.published()
            .series(self.kwargs["venue_slug"], self.kwargs["slug"])
            .with_conference()
        )
        lists = listing.PageLists()
        awards = lists.awards(awards)
        lists.fetch()
        return awards

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["latest"] = context["awards"][0]
        context["venue"] = context["latest"].conference.venue
        return context


class PaperDetailView(PreviewMixin, generic.DetailView):
    """A paper: authors with affiliations, abstract, summary, links and awards. 404 when unknown.

    ``prepared`` (given to ``as_view()``; None for visitors): ``{slug: paper}`` of papers
    already read for their pages with ``Paper.objects.published().for_detail()``, as
    publish_site reads many at once (publishing/site.py); a slug missing there is a 404."""

    model = Paper
    prepared = None

    def get_queryset(self):
        """Published papers (any paper in a preview) with everything the page shows:
        ``Paper.objects.for_detail()``, five queries."""
        papers = Paper.objects.all() if self.preview else Paper.objects.published()
        return papers.for_detail()

    def get_object(self, queryset=None):
        """The paper of the URL's slug, from ``prepared`` when given; Http404 when unknown."""
        if self.prepared is not None and not self.preview:
            paper = self.prepared.get(self.kwargs["slug"])
            if paper is None:
                raise Http404("No such published paper.")
            return paper
        return super().get_object(queryset)


# Co-authors an author page names, the most frequent first.
COAUTHORS_SHOWN = 24


class AuthorDetailView(PagePathMixin, generic.DetailView):
    """A person's papers, newest first, with the awards each received, ``LIST_PAGE_SIZE``
    a page (page N at ``page/<N>/``, see pages/paging.py and ``paginate``); the
    institutions the person gave over the years and up to ``COAUTHORS_SHOWN``
    co-authors. 404 when unknown or without a published paper.

    ``prepared`` (given to ``as_view()``; None for visitors): ``{(slug, page number):
    (author, the page's own context)}`` of pages already built, as
    ``author_page_contexts()`` builds many at once for publish_site
    (publishing/site.py); a page missing there is a 404."""

    model = Author
    prepared = None

    def get_queryset(self):
        """Authors of a published paper, with ``published_papers``, how many (the
        page's paginator needs it)."""
        return Author.objects.published().with_published_papers()

    def get_object(self, queryset=None):
        """The published author of the URL's slug (one query), or from ``prepared``;
        Http404 when unknown."""
        if self.prepared is not None:
            return self._prepared()[0]
        return super().get_object(queryset)

    def _prepared(self):
        page = self.prepared.get((self.kwargs["slug"], self.page_number))
        if page is None:
            raise Http404("No such author page.")
        return page

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        if self.prepared is not None:
            context.update(self._prepared()[1])
        else:
            context.update(author_page_contexts([(self.object, self.page_number)])[0])
        return context


def author_page_contexts(pages):
    """The author page's own context (``page_obj``, ``papers``, ``institutions``,
    ``coauthors``) of each (author, page number) of ``pages``, in their order; each
    author as ``AuthorDetailView.get_queryset()`` gives it (with ``published_papers``).
    ``AuthorDetailView`` builds its one page with it, and publish_site (papers/
    publishing.py) many at once: the papers of all the pages are listed together
    (``listing.PageLists``: three queries for them all, not three a page), and the
    papers (``listing.AuthorsPapers``: two queries), institutions and co-authors of all
    the authors in one query each.
    Raises Http404 for a page number past an author's last page."""
    lists = listing.PageLists()
    authors = [author for author, _number in pages]
    pks = [author.pk for author in authors]
    institutions = _by_author(Institution.objects.of_authors(pks), pks)
    coauthors = Author.objects.coauthors_of_authors(pks)
    if len(set(pks)) == 1:
        coauthors = coauthors[:COAUTHORS_SHOWN]  # one author: the limit in the query
    coauthors = _by_author(coauthors, pks, limit=COAUTHORS_SHOWN)
    # One page: its papers only (an author may have hundreds); many: every paper of them
    # all, in two queries.
    many = listing.AuthorsPapers(authors) if len(pages) > 1 else None
    contexts = []
    for author, number in pages:
        page = paginate(number, listing.AuthorPapers(author, author.published_papers, many))
        contexts.append(
            {
                "page_obj": page,
                "papers": lists.papers(page.object_list, links=False),
                "institutions": institutions[author.pk],
                "coauthors": coauthors[author.pk],
            }
        )
    if many is not None:
        many.fetch()
    lists.fetch()
    return contexts


def _by_author(rows, authors, limit=None):
    """``{author's pk: [row, ...]}`` of ``rows`` (objects with ``of_author``), at most
    ``limit`` each, in their order; an empty list for each of ``authors`` (pks) without any."""
    grouped = {pk: [] for pk in authors}
    for row in rows:
        group = grouped[row.of_author]
        if limit is None or len(group) < limit:
            group.append(row)
    return grouped


# Index pages (issue 10): every conference, venue, award and author, each a bounded list.


class ConferenceListView(generic.ListView):
    """Every published conference, grouped by venue (by acronym), the newest edition
    first, each with its counts of awards and papers (one query)."""

    template_name = "papers/conference_list.html"
    context_object_name = "conferences"

    def get_queryset(self):
        return (
            Conference.objects.published()
            .select_related("venue")
            .for_venue()
            .order_by("venue__acronym", "venue__slug", *NEWEST_FIRST)
        )


class VenueListView(generic.ListView):
    """Every venue with a published edition: how many editions, from which year to
    which (one query)."""

    template_name = "papers/venue_list.html"
    context_object_name = "venues"

    def get_queryset(self):
        published = Q(conferences__status=Status.PUBLISHED)
        return (
            Venue.objects.published()
            .annotate(
                edition_count=Count("conferences", filter=published, distinct=True),
                first_year=Min("conferences__year", filter=published),
                last_year=Max("conferences__year", filter=published),
            )
            .order_by("acronym", "slug")
        )


class AwardListView(generic.ListView):
    """Every published award, as award series (the same award slug at a venue), grouped
    by venue: each series by its newest edition's name, with every edition, newest
    first, and its number of papers (one query). Series follow the newest edition's
    position on its conference page.

    Built from rows of values, its names, addresses and counts put together here rather
    than by template tags on model instances: make bench's 200 awards (200 series of
    one edition) took 33 ms of CPU that way, three times the conference page. Kept for
    the 50 ms target: rendered by award_list.html from Award instances (with
    get_absolute_url() and {% translated %}), benchmarks/server_time.py's data at 5,000
    papers, 10 conferences and 200 awards gave a p95 of 78 ms (213 ms in Chinese) and a
    CPU p50 of 27 ms, against 23 ms and 7.3 ms this way, in one session.
    """

    template_name = "papers/award_list.html"
    context_object_name = "awards"

    def get_queryset(self):
        return (
            Award.objects.published()
            # A subquery per award, not a count over a join grouped by every column of
            # the award, its conference and venue.
            .annotate(
                entry_count=count_of(AwardEntry.objects.filter(published_q("paper__")), "award")
            )
            .order_by("conference__venue__acronym", "slug", "-conference__year", "-pk")
            .values(*AWARD_INDEX_COLUMNS)
        )

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        editions = {}
        for row in context["awards"]:
            editions.setdefault((row["conference__venue_id"], row["slug"]), []).append(row)
        series = sorted(
            editions.values(),
            key=lambda rows: (
                rows[0]["conference__venue__acronym"],
                rows[0]["conference__venue_id"],
                rows[0]["position"],
                rows[0]["slug"],
            ),
        )
        # A fallback to English in an award's name turns the page's notice on, as
        # {% translated %} would: the template asks for it when ``untranslated`` is set.
        shown = types.SimpleNamespace(found=False)
        renderer = listing.Renderer({"untranslated_tracker": shown})
        venue_url = slug_url("papers:venue-detail", "slug")
        series_url = slugs_url("papers:award-series", "venue_slug", "slug")
        award_url = slugs_url("papers:award-detail", "conference_slug", "slug")
        counts = {}  # "3 papers" once per number on the page, not once per award

        def papers_count(number):
            if number not in counts:
                counts[number] = ngettext("%(counter)s paper", "%(counter)s papers", number) % {
                    "counter": number
                }
            return counts[number]

        venues = []
        for rows in series:
            latest = rows[0]
            if not venues or venues[-1]["id"] != latest["conference__venue_id"]:
                slug = latest["conference__venue__slug"]
                venues.append(
                    {
                        "id": latest["conference__venue_id"],
                        "slug": slug,
                        "url": venue_url(slug),
                        "name": mark_safe(  # noqa: S308 - escaped by Renderer.translated()
                            renderer.translated(
                                _names(latest, "conference__venue__"), "name", model=Venue
                            )
                        ),
                        "series": [],
                    }
                )
            venues[-1]["series"].append(
                {
                    "slug": latest["slug"],
                    "url": series_url(latest["conference__venue__slug"], latest["slug"]),
                    "name": mark_safe(  # noqa: S308 - escaped by Renderer.translated()
                        renderer.translated(_names(latest), "name", model=Award)
                    ),
                    "editions": [
                        {
                            "url": award_url(row["conference__slug"], row["slug"]),
                            "year": row["conference__year"],
                            "count": papers_count(row["entry_count"]),
                        }
                        for row in rows
                    ],
                }
            )
        for venue in venues:
            venue["series_html"] = _series_html(venue["series"])
        context["venues"] = venues
        context["untranslated"] = shown.found
        return context


def _series_html(series):
    """The items of a venue's list of award series on the award index, as the HTML its
    template made with two ``{% for %}`` loops (the same text, whitespace included), from
    the ``series`` of ``AwardListView``: each name is safe HTML already, addresses and
    counts are escaped, years are whole numbers. Made here: the loops and their
    variable look-ups were about half of the page's CPU (cProfile, make bench's 200
    awards)."""
    parts = []
    for item in series:
        parts.append(
            f'\n    <li><a class="index-name" href="{listing.escape(item["url"])}">'
            f'{item["name"]}</a>\n      <ul class="editions">\n        '
        )
        for award in item["editions"]:
            parts.append(
                f'\n        <li><a href="{listing.escape(award["url"])}">{award["year"]:d}</a> '
                f'<span class="count">{listing.escape(award["count"])}</span></li>\n        '
            )
        parts.append("\n      </ul></li>\n    ")
    return mark_safe("".join(parts))  # noqa: S308 - every text in it escaped or safe


# A translated name's columns (name_en, name_zh_hans), for the award index's rows.
NAME_COLUMNS = tuple(
    build_localized_fieldname("name", code) for code in settings.MODELTRANSLATION_LANGUAGES
)
# The award index's columns (AwardListView).
AWARD_INDEX_COLUMNS = (
    "slug",
    *NAME_COLUMNS,
    "position",
    "conference__slug",
    "conference__year",
    "conference__venue_id",
    "conference__venue__slug",
    "conference__venue__acronym",
    *(f"conference__venue__{column}" for column in NAME_COLUMNS),
    "entry_count",
)


def _names(row, prefix=""):
    """The name columns of ``row`` (a dict of AWARD_INDEX_COLUMNS) under ``prefix``, as
    attributes, for listing.Renderer.translated()."""
    return types.SimpleNamespace(**{column: row[prefix + column] for column in NAME_COLUMNS})


# Authors per page of the author index: 15,000 authors make 150 pages, or fewer than
# 20 under each letter on average.
AUTHOR_PAGE_SIZE = 100
# The author index's groups: the first character of the slug (a letter, or a digit).
AUTHOR_INITIALS = "abcdefghijklmnopqrstuvwxyz"
DIGITS = "0"


def initial_range(code):
    """``(first, stop)``: the slugs of the A-Z index's letter ``code`` (a letter of
    ``AUTHOR_INITIALS``, or ``DIGITS`` for every digit) are those from ``first`` up to,
    not including, ``stop``."""
    if code == DIGITS:
        return "0", ":"  # ":" follows "9"
    return code, chr(ord(code) + 1)


def _letters_in_use_query():
    """The query of :func:`letters_in_use`: one row (none when no author has a published
    paper) saying for each letter (and ``digits``) whether a published author's slug
    starts with it, each an EXISTS that seeks one entry of the index of published
    authors by slug (catalogue/migrations/0021_author_has_published_paper.py). Reading
    every published author's first letter (SELECT DISTINCT) took 2.4 ms of SQLite's
    CPU at 15,000 authors; these 27 seeks take 0.04 ms."""
    published = Author.objects.published().order_by()
    probes = {
        ("digits" if code == DIGITS else code): Exists(
            published.filter(slug__gte=first, slug__lt=stop)
        )
        for code in AUTHOR_INITIALS + DIGITS
        for first, stop in [initial_range(code)]
    }
    return published.annotate(**probes).values(*probes)[:1]


# Built once per process and evaluated afresh by each request (``.all()``): building its
# 27 subqueries took twice as long as compiling and running it together (at 5,000
# papers on a busy machine: 9.0 ms to build, 3.3 to compile, 0.25 to run), and the A-Z
# index's p95 was over 50 ms with it built per request (benchmarks/server_time.py:
# "authors A-Z p.75" 64 ms, CPU p50 14 ms, against 31 ms and 6 ms before).
LETTERS_IN_USE = _letters_in_use_query()


def letters_in_use():
    """``{letter: bool, ..., "digits": bool}``: which groups of the A-Z index have a
    published author (``{}`` when none has). One query."""
    return next(iter(LETTERS_IN_USE.all()), {})


class AuthorListView(PagePathMixin, generic.ListView):
    """Every author of a published paper, A to Z, ``AUTHOR_PAGE_SIZE`` a page (page N
    at ``page/<N>/``, see pages/paging.py).

    Authors are ordered by slug: their name as the importer and the admin romanise it
    (accents dropped, Chinese written in pinyin: catalogue/slugs.py), so names in any
    script fall into one A-Z order, the way a reader of an English index expects, and
    the order uses the slug's unique index. ``letter/a/`` shows the authors under one
    letter (``letter/0/`` for names beginning with a digit), paginated the same way;
    an unknown letter or page is a 404. An old link's ``?letter=a`` answers 301 with
    that address (see ``dispatch``). Three queries: the letters in use, the count, the
    page.
    """

    template_name = "papers/author_list.html"
    context_object_name = "authors"
    paginate_by = AUTHOR_PAGE_SIZE
    letter_kwarg = "letter"

    def dispatch(self, request, *args, **kwargs):
        """An old link's ``?letter=x`` (and ``page``) to the path of that letter's page
        (a 301, the other query parameters kept; an empty letter is the whole index);
        a letter that is not in the index is a 404. Otherwise as PagePathMixin."""
        if self.letter_kwarg not in request.GET:
            return super().dispatch(request, *args, **kwargs)
        letter = request.GET[self.letter_kwarg]
        if letter and (len(letter) != 1 or letter not in AUTHOR_INITIALS + DIGITS):
            raise Http404("No such letter in the author index.")
        number = paging.page_number(request.GET.get(self.page_kwarg, ""))
        name, kwargs = "papers:author-list", {}
        if letter:
            name, kwargs = "papers:author-list-letter", {self.letter_kwarg: letter}
        moved = (self.letter_kwarg, self.page_kwarg)
        location = paging.page_url(request, number, name, kwargs, moved)
        return HttpResponsePermanentRedirect(location)

    def get_queryset(self):
        self.letter = self.kwargs.get(self.letter_kwarg, "")
        authors = Author.objects.published().only("slug", "name").order_by("slug")
        if not self.letter:
            return authors
        first, stop = initial_range(self.letter)
        return authors.filter(slug__gte=first, slug__lt=stop)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        used = letters_in_use()
        context["letters"] = [
            {"code": code, "label": code.upper(), "used": bool(used.get(code))}
            for code in AUTHOR_INITIALS
        ] + [{"code": DIGITS, "label": "0–9", "used": bool(used.get("digits"))}]
        context["letter"] = self.letter
        return context


class SearchMatches:
    """What a search asks for: folded ``words`` (at most ``SEARCH_MAX_WORDS``) and the
    filters ``conference`` (slug), ``year`` and ``award`` (series slug), each ``None``
    when not asked; ``criteria=False`` (``nothing()``) matches nothing (no search was made).

    ``queryset`` is the published papers matching, in the search page's order;
    ``rows(start, stop)`` the same matches' ``(key, number of matches)`` pairs from
    ``start`` to ``stop`` (see :class:`MatchKeys`).
    """

    def __init__(self, words=(), conference=None, year=None, award=None, *, criteria=True):
        self.words = list(words)
        self.conference, self.year, self.award = conference, year, award
        self.criteria = criteria

    @classmethod
    def nothing(cls):
        """Matches of no search: no paper, and no query."""
        return cls(criteria=False)

    @property
    def queryset(self):
        """The matching published papers in the search page's order (a QuerySet)."""
        if not self.criteria:
            return Paper.objects.none()
        return _search_matches(self.words, self.conference, self.year, self.award)

    def rows(self, start, stop):
        """``(key, number of matches)`` of the matches ``start`` to ``stop`` (a list; one
        query, planned for its words: see ``planned_for_its_values``)."""
        if not self.criteria:
            return []
        keys = self.queryset.annotate(match_count=Window(Count("pk")))
        with planned_for_its_values(connection):
            return list(keys.values_list("pk", "match_count")[start:stop])


def _search_matches(words, conference, year, award):
    """``SearchMatches.queryset`` (``None``: a filter not asked)."""
    papers = Paper.objects.published().search_words(words)
    if conference is not None or year is not None:
        papers = papers.listed_at(conference=conference, year=year)
    if award is not None:
        papers = papers.with_award(award)
    return papers.in_search_order()


@contextlib.contextmanager
def planned_for_its_values(connection):
    """A block whose queries on ``connection`` (a Django connection) are planned for
    their values on every run: on a psycopg 3 connection that prepares statements
    (server-side binding, awardsite/settings.py), preparing is turned off for the block
    (psycopg's public ``prepare_threshold``: None), then restored; elsewhere no change.

    Kept for a search's key query (``SearchMatches.rows``). Psycopg prepares a query
    after 5 runs on a connection and PostgreSQL switches to a generic plan 5 runs later,
    which guesses a handful of matches for any ``LIKE`` pattern, far off for a common
    word. EXPLAIN ANALYZE of the key query on make bench's data (5,000 papers; planning
    and execution, the plan made for the words against the generic plan): "prediction"
    (1,063 matches) 2.6 against 2.3 ms, "synthetic" (all of them) 16 against 36 ms,
    "prediction learning" 0.8 against 1.3 ms, "synthetic abstract" 19 against 61 ms."""
    connection.ensure_connection()
    database = connection.connection
    threshold = getattr(database, "prepare_threshold", None)
    if threshold is None:
        yield
        return
    database.prepare_threshold = None
    try:
        yield
    finally:
        database.prepare_threshold = threshold


class MatchKeys:
    """The keys of the papers a search matches (a :class:`SearchMatches`), in its order,
    for Django's Paginator: the ``per_page`` keys of page ``number`` and the number of
    matches come from one query (``COUNT(*) OVER ()`` beside each key of the page), so
    the matches are found and sorted once, and only the page's keys reach Python.

    ``count()`` and the page's slice share that query. A page past the end has no
    row to carry the count: then (and for a ``number`` that is not a whole number,
    such as "last", or whose offset no database integer holds) the count is a query
    of its own, and Paginator decides as usual (a 404 for a page out of range). Any
    other slice is a query of its own.
    """

    MAX_OFFSET = listing.MAX_OFFSET  # the largest offset sent to the database

    def __init__(self, matches, number, per_page):
        self.matches = matches
        try:
            self.start = (int(number) - 1) * per_page
        except (TypeError, ValueError):
            self.start = None
        if self.start is not None and not 0 <= self.start <= self.MAX_OFFSET:
            self.start = None
        self.stop = None if self.start is None else self.start + per_page
        self._keys = self._count = None

    def _fetch_page(self):
        if self._keys is None:
            rows = self.matches.rows(self.start, self.stop)
            self._keys = [key for key, _count in rows]
            if rows:
                self._count = rows[0][1]
            elif self.start == 0:
                self._count = 0

    def count(self):
        """The number of matches."""
        if self._count is None and self.start is not None and self.start >= 0:
            self._fetch_page()
        if self._count is None:
            self._count = self.matches.queryset.count()
        return self._count

    def __getitem__(self, index):
        if (
            isinstance(index, slice)
            and index.start == self.start
            and index.stop is not None
            and self.start is not None
            and index.stop <= self.stop
        ):
            self._fetch_page()
            return self._keys[: index.stop - index.start]
        return list(self.matches.queryset.values_list("pk", flat=True)[index])


class SearchView(generic.ListView):
    """Search published papers: ``?q=`` text (see ``PaperQuerySet.search``), filtered by
    ``conference`` (slug), ``year`` and ``award`` (series slug); ``page`` of 20 results.

    Invalid parameters are shown as form errors on a normal page; a ``page``
    that is not a number, or is out of range, is a 404 (Django's paginator).
    """

    template_name = "papers/search.html"
    context_object_name = "papers"
    paginate_by = 20

    def get_queryset(self):
        """The search's :class:`SearchMatches` (not a QuerySet: ``paginate_queryset``
        reads its page of keys and the papers of that page)."""
        self.form = SearchForm(self.request.GET or None)
        self.searched = self.form.is_bound and self.form.is_valid() and self.form.has_criteria()
        if not self.searched:
            return SearchMatches.nothing()
        data = self.form.cleaned_data
        return SearchMatches(
            search.words(data["q"])[:SEARCH_MAX_WORDS],
            conference=data["conference"] or None,
            year=data["year"],
            award=data["award"] or None,
        )

    def paginate_queryset(self, queryset, page_size):
        """ListView's pagination, from one scan of the matches instead of two.

        Django's paginator counts the matches (one query) and then fetches the page
        (a second query that matches every word again); on PostgreSQL a common word
        then read the folded text of every paper twice. Here one query gives the
        page's keys in order and the number of matches (see ``MatchKeys``); the
        page's papers come by key as rows of values, with what the list shows and
        the abstract and summary its snippets are cut from
        (``listing.search_result_rows``).
        """
        number = self.kwargs.get(self.page_kwarg) or self.request.GET.get(self.page_kwarg) or 1
        keys = MatchKeys(queryset, number, page_size)
        paginator, page, keys, is_paginated = super().paginate_queryset(keys, page_size)
        # A result shows a snippet of its abstract or summary (either language), which
        # lists of papers otherwise leave out: load them here, not once per result.
        papers = {row.pk: row for row in listing.search_result_rows(keys)}
        page.object_list = listing.prepare([papers[pk] for pk in keys if pk in papers])
        return paginator, page, page.object_list, is_paginated

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["form"] = self.form
        context["searched"] = self.searched
        return context


def citation_text(papers, fmt, request=None):
    """The text of ``papers`` (fetched with ``Paper.objects.for_citation()``) in citation
    format ``fmt`` (a key of citations.FORMATS), each naming its page in the active
    language by its absolute URL (``absolute_url``: SITE_URL, else ``request``'s host).
    What a citation download holds; publish_site writes papers' citation files with it
    too (publishing/site.py's ``paper_citations``)."""
    formatter, _content_type = citations.FORMATS[fmt]
    papers = list(papers)
    urls = {paper.pk: absolute_url(paper.get_absolute_url(), request) for paper in papers}
    return formatter(papers, urls)


def _citation_response(request, papers, fmt, filename):
    """``papers`` in citation format ``fmt`` (a key of citations.FORMATS) as a download."""
    _formatter, content_type = citations.FORMATS[fmt]  # the URL allows only these keys
    response = HttpResponse(citation_text(papers, fmt, request), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}.{fmt}"'
    return response


# Papers fetched and formatted at a time by a streamed citation download.
CITATION_BATCH = 200


def _streamed_citations(request, pks, fmt, filename):
    """The published papers with primary keys ``pks``, in that order and once each, in
    citation format ``fmt`` as a streamed download (``citation_batches``)."""
    _formatter, content_type = citations.FORMATS[fmt]
    batches = citation_batches(pks, request)
    response = StreamingHttpResponse(citations.stream(fmt, batches), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}.{fmt}"'
    return response


def citation_batches(pks, request=None, papers=None):
    """The published papers with primary keys ``pks``, in that order and once each, as
    the ``(papers, urls)`` batches ``citations.stream()`` reads: ``CITATION_BATCH``
    papers at a time, each named by its page's absolute URL in the active language.
    Without ``papers``, each batch is fetched when it is read (one query plus the
    prefetches of ``Paper.objects.for_citation()``), so a conference of any size takes
    bounded memory; ``papers``: {pk: paper} fetched already with
    ``Paper.objects.published().for_citation()`` for all of ``pks`` (publish_site
    fetches them once for many files; publishing/site.py's ``collection_citations``).
    ``pks`` is read at once (a queryset: one query)."""
    order = list(dict.fromkeys(pks))

    def batches():
        for start in range(0, len(order), CITATION_BATCH):
            keys = order[start : start + CITATION_BATCH]
            if papers is None:
                batch = _in_order(keys)
            else:
                batch = [papers[pk] for pk in keys if pk in papers]
            yield batch, {p.pk: absolute_url(p.get_absolute_url(), request) for p in batch}

    return batches()


def paper_citation(request, slug, fmt):
    """One published paper's citation as BibTeX (``bib``), RIS (``ris``) or CSL-JSON
    (``json``). 404 for an unknown or unpublished paper or format.

    With ``?preview=1``, staff who may view papers get a draft's citation too (the
    download a paper's preview links to; see ``previewing``), never stored by a cache.
    """
    preview = previewing(request, Paper)
    papers = Paper.objects.all() if preview else Paper.objects.published()
    paper = get_object_or_404(papers.for_citation(), slug=slug)
    response = _citation_response(request, [paper], fmt, slug)
    return mark_preview(response) if preview else response


def award_citation(request, conference_slug, slug, fmt):
    """Citations of an award's papers, the top level first, in ``fmt`` (see paper_citation)."""
    award = get_object_or_404(
        Award.objects.published().filter(conference__slug=conference_slug), slug=slug
    )
    return _streamed_citations(
        request, award_citation_order(award), fmt, f"{conference_slug}-{slug}"
    )


def award_citation_order(award):
    """The primary keys of the papers an award's citation download holds, in its order
    (the top level first; a paper may come more than once: the first counts)."""
    return (
        AwardEntry.objects.published()
        .filter(award=award)
        .in_level_order()
        .values_list("paper_id", flat=True)
    )


def conference_citation(request, slug, fmt):
    """Citations of every paper a conference page lists (its awards' papers, then the
    others), in ``fmt`` (see paper_citation)."""
    conference = get_object_or_404(Conference.objects.published(), slug=slug)
    return _streamed_citations(request, conference_citation_order(conference), fmt, slug)


def conference_citation_order(conference):
    """The primary keys of the papers a conference's citation download holds, in its
    order: its awards' papers, then the others (a paper may come more than once: the
    first counts). Two queries."""
    awarded = (
        AwardEntry.objects.published()
        .filter(award__conference=conference)
        .in_level_order()
        .order_by("award__position", "award__slug", *AwardEntry.LEVEL_ORDER)
        .values_list("paper_id", flat=True)
    )
    others = (
        Paper.objects.published()
        .published_without_award_at(conference)
        .values_list("pk", flat=True)
    )
    return [*awarded, *others]


def _in_order(pks):
    """The published papers with primary keys ``pks`` (distinct), in that order (one
    query plus the prefetches of ``Paper.objects.for_citation()``)."""
    papers = Paper.objects.published().filter(pk__in=pks).for_citation().in_bulk()
    return [papers[pk] for pk in pks if pk in papers]


def robots_txt(request):
    """robots.txt: everything may be crawled except the admin and the search results
    (endless combinations of parameters); names the sitemap by its absolute URL."""
    lines = [
        "User-agent: *",
        "Disallow: /admin/",
        *(f"Disallow: /{code}/search/" for code, _name in settings.LANGUAGES),
        f"Sitemap: {absolute_url(reverse('sitemap'), request)}",
    ]
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")


# Error pages (handler400, handler403, handler404 and handler500 in awardsite/urls.py).
# Django's default handlers first run a CSRF check, so that an error template may use
# {% csrf_token %}; for a POST carrying a CSRF cookie that check reads the body, and a
# body that cannot be parsed (multipart without a boundary, too many fields, too large)
# then raised again while the error page was built: a 404 or 400 became a 500. These
# pages hold no form, so the handlers below never look at the body.


def bad_request(request, exception):
    """400, for a request Django refuses (a bad Host header, a body it cannot parse):
    templates/400.html, plain and bilingual, built without the request (whose host may
    be what was wrong) or the database."""
    return HttpResponseBadRequest(loader.render_to_string("400.html"))


def permission_denied(request, exception):
    """403 (e.g. an editor without the permission a page of the admin needs):
    templates/403.html, plain and bilingual like the 400 page."""
    return HttpResponseForbidden(loader.render_to_string("403.html"))


def csrf_failure(request, reason=""):
    """403 for a form whose CSRF check failed (settings.CSRF_FAILURE_VIEW), typically an
    expired session or a page left open too long: templates/403.html, bilingual, saying
    so in both languages. Replaces Django's page, whose inline style the
    Content-Security-Policy blocks and which points to DEBUG=True. ``reason`` (Django's
    technical explanation) is not shown to the visitor."""
    return HttpResponseForbidden(loader.render_to_string("403.html", {"csrf_failure": True}))


# Addresses under the JSON API (opendata/api/), whose clients read JSON, errors included.
API_PREFIX = "/api/"


def page_not_found(request, exception):
    """404: templates/404.html in the language of the address, with the site's header;
    under ``API_PREFIX``, a JSON ``{"detail": ...}`` as every other API error."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": "No such API endpoint."}, status=404)
    return HttpResponseNotFound(loader.render_to_string("404.html", request=request))


def server_error(request):
    """500: templates/500.html, built without the request, context processors or the
    database, so it still works when they are what failed."""
    return HttpResponseServerError(loader.render_to_string("500.html"))
