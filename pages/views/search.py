"""The search page: what a search asks for and the papers it matches."""

import contextlib

from django.db import connection
from django.db.models import Count, Window
from django.views import generic

from catalogue import listing, search
from catalogue.models import (
    SEARCH_MAX_WORDS,
    Paper,
)
from editorial.forms import SearchForm


class SearchMatches:
    """What a search asks for: folded ``words`` (at most ``SEARCH_MAX_WORDS``) and the
    filters ``conference`` (slug), ``year`` and ``award`` (series slug), ``None`` when not
    asked; ``nothing()`` matches nothing. ``queryset``: the matching published papers in
    order; ``rows(start, stop)``: their ``(key, number of matches)`` (:class:`MatchKeys`)."""

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
    their values: on a psycopg 3 connection that prepares statements, psycopg's
    ``prepare_threshold`` is None for the block; elsewhere no change.

    For a search's key query: a prepared query's generic plan guesses a handful of
    matches for any ``LIKE``, far off for a common word. EXPLAIN ANALYZE on make bench's
    data, own plan against generic: "synthetic" (every paper) 16 against 36 ms,
    "synthetic abstract" 19 against 61 ms, "prediction" 2.6 against 2.3 ms."""
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
    """The keys of the papers a search matches (a :class:`SearchMatches`), in order, for
    Django's Paginator: page ``number``'s keys and the count come from one query
    (``COUNT(*) OVER ()`` beside each key), so the matches are found once. Past the
    end, or for a ``number`` that is no whole number or too large, the count is a query
    of its own and Paginator decides (a 404); so is any other slice."""

    # The largest offset sent to the database: SQL's LIMIT and OFFSET are 64-bit integers
    # on SQLite and PostgreSQL, and a larger one is an error, not an empty page.
    MAX_OFFSET = 2**62

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
        (``listing.search_results``).
        """
        number = self.kwargs.get(self.page_kwarg) or self.request.GET.get(self.page_kwarg) or 1
        keys = MatchKeys(queryset, number, page_size)
        paginator, page, keys, is_paginated = super().paginate_queryset(keys, page_size)
        # A result shows a snippet of its abstract or summary (either language), which
        # lists of papers otherwise leave out: load them here, not once per result.
        papers = listing.search_results(keys)
        lists = listing.PageLists()
        page.object_list = lists.papers([papers[pk] for pk in keys if pk in papers])
        lists.fetch()
        return paginator, page, page.object_list, is_paginated

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["form"] = self.form
        context["searched"] = self.searched
        return context
