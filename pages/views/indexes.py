"""The indexes: conferences, venues, awards, authors A-Z."""

import functools
import types
from operator import itemgetter

from django.db.models import Count, Exists, Max, Min, Q
from django.http import Http404, HttpResponsePermanentRedirect
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views import generic

from catalogue import languages
from catalogue.models import (
    NEWEST_FIRST,
    Author,
    Award,
    AwardEntry,
    Conference,
    PublishedQuerySet,
    Status,
    Venue,
    count_of,
)
from pages import paging
from pages.paging import PagePathMixin
from pages.templatetags.awards import paper_count, translated_html


class ConferenceListView(generic.ListView):
    """Every published conference by venue, the newest first, with its counts of awards
    and papers (one query)."""

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
    """Every venue with a published edition, its number of editions and their first
    and last years (one query)."""

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
    by venue: each series by its newest edition's name, in the newest edition's
    position on its conference page, with every edition, newest first, and its number
    of papers (one query).

    Built from rows of values here, for the 50 ms target: rendered by award_list.html
    from Award instances, benchmarks/server_time.py's data (5,000 papers, 200 awards)
    gave a p95 of 78 ms (213 ms in Chinese) and a CPU p50 of 27 ms, against 23 ms and
    7.3 ms this way, in one session.
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
        editions = {}
        for row in context["awards"]:
            editions.setdefault((row["conference__venue_id"], row["slug"]), []).append(row)
        order = itemgetter("conference__venue__acronym", "conference__venue_id", "position", "slug")
        series = sorted(editions.values(), key=lambda rows: order(rows[0]))
        # A fallback to English in an award's name turns the page's notice on, as
        # {% translated %} would: the template asks for it when ``untranslated`` is set.
        tracker = {"untranslated_tracker": types.SimpleNamespace(found=False)}
        count_text = functools.cache(paper_count)  # once per number on the page
        venues = {}
        for rows in series:
            latest = rows[0]
            venue = venues.get(latest["conference__venue_id"])
            if venue is None:
                slug = latest["conference__venue__slug"]
                venue = venues[latest["conference__venue_id"]] = {
                    "slug": slug,
                    "url": reverse("papers:venue-detail", kwargs={"slug": slug}),
                    "name": translated_html(
                        _names(latest, "conference__venue__"), "name", model=Venue, context=tracker
                    ),
                    "series_html": SafeString(),
                }
            name = translated_html(_names(latest), "name", model=Award, context=tracker)
            venue["series_html"] += _series_html(rows, name, count_text)
        context["venues"] = list(venues.values())
        context["untranslated"] = tracker["untranslated_tracker"].found
        return context


def _series_html(rows, name, count_text):
    """A series' item in a venue's list on the award index, as HTML (what two template
    loops made, which were half of the page's CPU): ``rows`` its editions, the newest
    first, ``name`` its name (safe HTML), ``count_text`` a number's "N papers"."""
    url = reverse(
        "papers:award-series",
        kwargs={"venue_slug": rows[0]["conference__venue__slug"], "slug": rows[0]["slug"]},
    )
    parts = [
        f'\n    <li><a class="index-name" href="{escape(url)}">{name}</a>\n'
        '      <ul class="editions">\n        '
    ]
    for row in rows:
        url = reverse(
            "papers:award-detail",
            kwargs={"conference_slug": row["conference__slug"], "slug": row["slug"]},
        )
        parts.append(
            f'\n        <li><a href="{escape(url)}">{row["conference__year"]:d}</a> '
            f'<span class="count">{escape(count_text(row["entry_count"]))}</span></li>\n        '
        )
    parts.append("\n      </ul></li>\n    ")
    return mark_safe("".join(parts))  # noqa: S308 - every text in it escaped or safe


# A translated name's columns (name_en, name_zh_hans), and the award index's columns.
NAME_COLUMNS = tuple(languages.columns("name"))
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
    """The name columns of ``row`` under ``prefix``, as attributes for translated_html()."""
    return types.SimpleNamespace(**{column: row[prefix + column] for column in NAME_COLUMNS})


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


def _letters_in_use_query():
    """The query of :func:`letters_in_use`: one row (none without published authors)
    with an EXISTS per letter and ``digits`` on the sort name's index: 0.04 ms at 15,000
    authors, against 2.4 ms for SELECT DISTINCT of every first letter."""
    published = Author.objects.published().order_by()
    probes = {
        ("digits" if code == DIGITS else code): Exists(
            published.filter(sort_name__gte=first, sort_name__lt=stop)
        )
        for code in AUTHOR_INITIALS + DIGITS
        for first, stop in [initial_range(code)]
    }
    return published.annotate(**probes).values(*probes)[:1]


# Built once per process, run afresh by each request (``.all()``): building its 27
# subqueries per request made the A-Z index's p95 64 ms, not 31 (server_time.py).
LETTERS_IN_USE = _letters_in_use_query()


def letters_in_use():
    """``{letter: bool, ..., "digits": bool}``: which groups of the A-Z index have a
    published author (``{}`` when none has). One query."""
    return next(iter(LETTERS_IN_USE.all()), {})


class AuthorListView(PagePathMixin, generic.ListView):
    """Every author of a published paper, A to Z by family name, then given name
    (``Author.sort_name``: romanised, so that names in any script fall into one order),
    ``AUTHOR_PAGE_SIZE`` a page (pages/paging.py).
    ``letter/a/`` shows one letter (``letter/0/``: digits); an unknown letter or page is
    a 404. Three queries: the letters in use, the count, the page."""

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
        authors = Author.objects.published().for_index()
        if not self.letter:
            return authors
        first, stop = initial_range(self.letter)
        return authors.filter(sort_name__gte=first, sort_name__lt=stop)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        used = letters_in_use()
        context["letters"] = [
            {"code": code, "label": code.upper(), "used": bool(used.get(code))}
            for code in AUTHOR_INITIALS
        ] + [{"code": DIGITS, "label": "0–9", "used": bool(used.get("digits"))}]
        context["letter"] = self.letter
        return context
