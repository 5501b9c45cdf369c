"""The indexes: conferences, venues, awards, authors A-Z."""

import types
from operator import attrgetter

from django.db.models import Count, F, IntegerField, Subquery, Window
from django.db.models.functions import RowNumber
from django.http import Http404, HttpResponsePermanentRedirect
from django.utils.translation import ngettext
from django.views import generic

from catalogue import languages, listing
from catalogue.models import (
    NEWEST_FIRST,
    Author,
    Award,
    AwardEntry,
    Conference,
    PublishedQuerySet,
    Venue,
    count_of,
)
from pages import paging
from pages.paging import PagePathMixin
from pages.views.common import paginate


class ConferenceListView(generic.ListView):
    """Every published conference by venue, the newest first, with its place and dates
    and its counts of awards, awarded papers and papers published there (one query)."""

    template_name = "papers/conference_list.html"
    context_object_name = "conferences"

    def get_queryset(self):
        return (
            Conference.objects.published()
            .select_related("venue")
            .for_index()
            .order_by("venue__acronym", "venue__slug", *NEWEST_FIRST)
        )


class VenueListView(generic.ListView):
    """Every venue with a published edition, with its counts of awards and awarded
    papers (``VenueQuerySet.for_index()``), ``editions``: its published conferences, the
    newest first, and ``edition_count``, ``first_year`` and ``last_year`` of them. Two
    queries."""

    template_name = "papers/venue_list.html"
    context_object_name = "venues"

    def get_queryset(self):
        return Venue.objects.published().for_index()

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        venues = {venue.pk: venue for venue in context["venues"]}
        for venue in venues.values():
            venue.editions = []
        conferences = Conference.objects.published().filter(venue__in=venues)
        for conference in conferences.only(*EDITION_COLUMNS).newest_first():
            venues[conference.venue_id].editions.append(conference)
        for venue in venues.values():
            venue.edition_count = len(venue.editions)
            venue.first_year, venue.last_year = venue.editions[-1].year, venue.editions[0].year
        return context


# What the venue index shows of an edition: its year and name, linked.
EDITION_COLUMNS = ("slug", "year", "venue_id", *languages.columns("name"))


# Award series a page of the award index shows: with each one's latest winner and its
# authors, 200 series on one page took 50 ms of CPU (benchmarks/page_load.py's 5,000
# papers in 200 awards, over the 50 ms p95 target), 50 took 15 ms.
AWARD_SERIES_PAGE_SIZE = 50


class AwardListView(PagePathMixin, generic.ListView):
    """Every published award, as award series (the same award slug at a venue), grouped
    by venue: each series by its newest edition's name, in the newest edition's
    position on its conference page, with every edition, newest first, and its number
    of papers, and the newest edition's winners (the papers of its top level: the
    level of the lowest position), ``LATEST_WINNERS_SHOWN`` at most, with their
    authors; ``AWARD_SERIES_PAGE_SIZE`` series a page (``awards/page/2/``, pages/paging.py;
    a page past the last is a 404). Three queries: the awards, the newest editions'
    entries on the page, their authors; a fourth on the first page, which lists the
    kinds of award (pages/templatetags/award_kinds.py).

    The awards are read as rows of values and their series rendered by the Jinja2
    template papers/lists/award_index.html, for the 50 ms target: rendered by Django's
    templates from Award instances, benchmarks/server_time.py's data (5,000 papers, 200
    awards) gave a p95 of 78 ms (213 ms in Chinese) and a CPU p50 of 27 ms, against 23
    ms and 7.3 ms from rows, in one session.
    """

    template_name = "papers/award_list.html"
    context_object_name = "awards"

    def get_queryset(self):
        return (
            Award.objects.published()
            # A subquery per award, not a count over a join grouped by every column of
            # the award, its conference and venue.
            .annotate(
                entry_count=count_of(
                    AwardEntry.objects.filter(PublishedQuerySet.published_condition("paper__")),
                    "award",
                )
            )
            .order_by("conference__venue__acronym", "slug", "-conference__year", "-pk")
            .values(*AWARD_INDEX_COLUMNS)
        )

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        editions, venues = {}, {}
        for row in context["awards"]:
            venue = venues.get(row["conference__venue_id"])
            if venue is None:
                venue = venues[row["conference__venue_id"]] = listing.build(
                    Venue, row, "conference__venue__"
                )
                venue.pk = row["conference__venue_id"]
            conference = listing.build(Conference, row, "conference__")
            conference.pk = row["conference_id"]
            conference.venue = venue
            award = listing.build(Award, row)
            award.conference, award.entry_count = conference, row["entry_count"]
            editions.setdefault((venue.pk, award.slug), []).append(award)
        order = attrgetter("conference.venue.acronym", "conference.venue_id", "position", "slug")
        page = paginate(
            self.page_number,
            sorted(editions.values(), key=lambda awards: order(awards[0])),
            AWARD_SERIES_PAGE_SIZE,
        )
        context.update(paginator=page.paginator, page_obj=page, is_paginated=page.has_other_pages())
        series = page.object_list
        winners = latest_winners([awards[0].pk for awards in series])
        groups = {}
        for awards in series:
            venue = awards[0].conference.venue
            group = groups.setdefault(venue.pk, {"venue": venue, "series": []})
            group["series"].append(award_series_item(awards, *winners.get(awards[0].pk, (0, []))))
        context["venues"] = list(groups.values())
        return context


# The winners of an award series' newest edition the award index shows (the others are
# on the award's page: ICML's Outstanding Paper Award has six).
LATEST_WINNERS_SHOWN = 1


def latest_winners(awards):
    """``{award id: (number of winners, papers)}`` of ``awards`` (ids): the published
    papers at each award's top level, the first ``LATEST_WINNERS_SHOWN`` of them by
    position, with ``listed_authors`` (listing.PageLists). Two queries, none without
    awards. Only the papers shown are read (a window function ranks them): all the
    entries and their authors, at the benchmark's 5,000 papers in 200 awards, made the
    page take 260 ms and 290 KB."""
    if not awards:
        return {}
    by_award = {}
    rows = (
        AwardEntry.objects.published()
        .filter(award__in=awards)
        .at_top_level()
        .annotate(
            rank=Window(RowNumber(), partition_by=F("award_id"), order_by=WINNER_ORDER),
            winner_count=Window(Count("*"), partition_by=F("award_id")),
        )
        .filter(rank__lte=LATEST_WINNERS_SHOWN)
        .order_by("award_id", *WINNER_ORDER)
        .values("award_id", "winner_count", *listing.paper_fields("paper__"))
    )
    conferences = {}
    for row in rows:
        count, papers = by_award.setdefault(row["award_id"], (row["winner_count"], []))
        papers.append(listing.paper(row, "paper__", conferences))
    lists = listing.PageLists()
    for _count, papers in by_award.values():
        lists.papers(papers, badges=False, links=False)
    lists.fetch()
    return by_award


# The order of an award level's papers (AwardEntry.LEVEL_ORDER, within one level).
WINNER_ORDER = ("position", "paper__slug")


def award_series_item(awards, winner_count, winners):
    """What the award index shows of one series: ``awards`` its editions, the newest
    first; ``winners`` the papers :func:`latest_winners` gives the newest, of
    ``winner_count``. Returns a namespace of ``latest`` (the newest award),
    ``editions``, ``winners``, ``winners_label`` and ``more`` (text naming how many
    others the award's page lists, "" for none)."""
    latest = awards[0]
    year = latest.conference.year
    label = ngettext("Latest winner, %(year)s", "Latest winners, %(year)s", winner_count)
    others = winner_count - len(winners)
    more = ngettext("and %(count)s more", "and %(count)s more", others) if others > 0 else ""
    return types.SimpleNamespace(
        latest=latest,
        editions=awards,
        winners=winners,
        winners_label=label % {"year": year},
        more=more % {"count": others} if more else "",
    )


# The award index's columns: the award's, its conference's and its venue's.
AWARD_INDEX_COLUMNS = (
    "id",
    "slug",
    *languages.columns("name"),
    "position",
    "conference_id",
    "conference__slug",
    "conference__year",
    "conference__venue_id",
    "conference__venue__slug",
    "conference__venue__acronym",
    *languages.columns("name", "conference__venue__"),
    "entry_count",
)


# Authors per page of the author index: 15,000 authors make 150 pages.
AUTHOR_PAGE_SIZE = 100
# The author index's groups: the first character of the sort name (the romanised family
# name: a letter, or a digit).
AUTHOR_INITIALS = "abcdefghijklmnopqrstuvwxyz"
DIGITS = "0"


def initial_range(code):
    """``(first, stop)``: the sort names under the A-Z index's ``code`` (a letter, or
    ``DIGITS``) are those from ``first`` up to ``stop``."""
    if code == DIGITS:
        return "0", ":"  # ":" follows "9"
    return code, chr(ord(code) + 1)


class SubqueryCount(Subquery):
    """How many rows a queryset has, as a subquery for ``annotate()`` (Subquery's
    documented ``template``): ``SELECT COUNT(*) FROM (...)``, with no GROUP BY, so that
    a filter on an index is counted from the index alone."""

    template = "(SELECT COUNT(*) FROM (%(subquery)s) counted)"
    output_field = IntegerField()


def _letter_counts_query():
    """The query of :func:`letter_counts`: one row (none without published authors)
    with a count per group of the A-Z index, each over its range of the sort name's
    partial index: 15,000 authors are 15,000 index entries read once. (One aggregate
    with a filtered count per group took 25 ms there, a count grouped by a column 30.)"""
    published = Author.objects.published().order_by()
    counts = {
        ("digits" if code == DIGITS else code): SubqueryCount(
            published.filter(sort_name__gte=first, sort_name__lt=stop).values("pk")
        )
        for code in AUTHOR_INITIALS + DIGITS
        for first, stop in [initial_range(code)]
    }
    return published.annotate(**counts).values(*counts)[:1]


# Built once per process, run afresh by each request (``.all()``): building its 27
# subqueries per request made the A-Z index's p95 64 ms, not 31 (server_time.py).
LETTER_COUNTS = _letter_counts_query()


def letter_counts():
    """``{letter: int, ..., "digits": int}``: how many published authors each group of
    the A-Z index has (``{}`` when none has). One query."""
    return next(iter(LETTER_COUNTS.all()), {})


class AuthorListView(PagePathMixin, generic.ListView):
    """Every author of a published paper, A to Z by family name, then given name
    (``Author.sort_name``: romanised, so that names in any script fall into one order),
    ``AUTHOR_PAGE_SIZE`` a page (pages/paging.py).
    ``letter/a/`` shows one letter (``letter/0/``: digits); an unknown letter or page is
    a 404. Each author with ``awarded_papers`` (``with_awarded_papers()``); the letter
    bar with each group's number of authors. Three queries: the letters' counts, the
    count, the page."""

    template_name = "papers/author_list.html"
    context_object_name = "authors"
    paginate_by = AUTHOR_PAGE_SIZE
    letter_kwarg = "letter"

    def dispatch(self, request, *args, **kwargs):
        """An old link's ``?letter=x`` (and ``page``): a 301 to that letter's path (the
        whole index for an empty letter), a 404 for a letter not in the index."""
        if self.letter_kwarg not in request.GET:
            return super().dispatch(request, *args, **kwargs)
        letter = request.GET[self.letter_kwarg]
        if letter and (len(letter) != 1 or letter not in AUTHOR_INITIALS + DIGITS):
            raise Http404("No such letter in the author index.")
        number = paging.page_number(request.GET.get(self.page_kwarg, ""))
        name = "papers:author-list-letter" if letter else "papers:author-list"
        kwargs = {self.letter_kwarg: letter} if letter else {}
        moved = (self.letter_kwarg, self.page_kwarg)
        return HttpResponsePermanentRedirect(paging.page_url(request, number, name, kwargs, moved))

    def get_queryset(self):
        self.letter = self.kwargs.get(self.letter_kwarg, "")
        authors = Author.objects.published().for_index().with_awarded_papers()
        if not self.letter:
            return authors
        first, stop = initial_range(self.letter)
        return authors.filter(sort_name__gte=first, sort_name__lt=stop)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        counts = letter_counts()
        context["letters"] = [
            {"code": code, "label": code.upper(), "count": counts.get(code, 0)}
            for code in AUTHOR_INITIALS
        ] + [{"code": DIGITS, "label": "0–9", "count": counts.get("digits", 0)}]
        for item in context["letters"]:
            item["used"] = item["count"] > 0
        context["author_count"] = sum(item["count"] for item in context["letters"])
        context["letter"] = self.letter
        return context
