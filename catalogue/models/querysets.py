"""The catalogue's query vocabulary: a QuerySet per model and the prefetches pages share.
The models import this module, never the reverse: queries find them with :func:`model`.
"""

import functools

from django.apps import apps
from django.db.models import Count, Exists, F, Max, Min, OuterRef, Prefetch, Q, Subquery
from django.db.models.functions import Coalesce

from catalogue import search
from catalogue.models.base import (
    NaturalKeyQuerySet,
    PublishedQuerySet,
    ScheduledQuerySet,
    count_of,
    unlisted_paper_fields,
)

# At most this many words of a search are used.
SEARCH_MAX_WORDS = 10


def conference_order(prefix=""):
    """The one order of conferences, reached through ``prefix`` (``"paper__conference__"``):
    the newest year first, then the later start (none last), then by slug."""
    return (f"-{prefix}year", F(f"{prefix}start_date").desc(nulls_last=True), f"{prefix}slug")


# conference_order() of conferences themselves (Conference.Meta.ordering too).
NEWEST_FIRST = conference_order()

# Where ``authorships_in_order`` puts a paper's authorships (``Paper.ordered_authorships``).
AUTHORSHIPS_IN_ORDER = "prefetched_authorships"


def model(name):
    """The catalogue's model ``name`` (``"Paper"``), from Django's app registry."""
    return apps.get_model("papers", name)


def awarded_papers_count(path):
    """A subquery for ``annotate()``: how many published papers have a published award
    entry whose ``path`` (``"award__conference"``) is the outer row, each paper once
    however many awards it won there (0 for none)."""
    entries = model("AwardEntry").objects.published().filter(**{path: OuterRef("pk")})
    counted = entries.order_by().values(path).annotate(n=Count("paper", distinct=True))
    return Coalesce(Subquery(counted.values("n")), 0)


class VenueQuerySet(NaturalKeyQuerySet):
    def published(self):
        """Venues with at least one published conference."""
        conferences = model("Conference").objects.published()
        return self.filter(Exists(conferences.filter(venue=OuterRef("pk"))))

    def for_index(self):
        """Venues with ``award_count`` (their published awards) and ``awarded_count``
        (the published papers those went to), by acronym: a subquery each, no join to
        group (grouped by venue, with the years of their editions, the synthetic
        benchmark's one venue took 200 ms on SQLite)."""
        awards = model("Award").objects.published()
        return self.annotate(
            award_count=count_of(awards, "conference__venue"),
            awarded_count=awarded_papers_count("award__conference__venue"),
        ).order_by("acronym", "slug")


class ConferenceQuerySet(ScheduledQuerySet):
    published_paths = ("",)

    def newest_first(self):  # NEWEST_FIRST, as Meta.ordering, after another order_by()
        return self.order_by(*NEWEST_FIRST)

    def with_awards(self):
        """Conferences that give at least one published award of their own."""
        awards = model("Award").objects.published()
        return self.filter(Exists(awards.filter(conference=OuterRef("pk"))))

    def with_listed_awards(self):
        """Conferences with their venue and ``listed_awards``: their published awards in
        page order, each with ``entry_count`` (of published papers)."""
        counted = Count("entries", filter=PaperQuerySet.published_condition("entries__paper__"))
        awards = model("Award").objects.published().annotate(entry_count=counted)
        awards = awards.order_by("position", "slug")
        return self.select_related("venue").prefetch_related(
            Prefetch("awards", queryset=awards, to_attr="listed_awards")
        )

    def for_venue(self):
        """Conferences with ``award_count`` and ``paper_count`` of their published awards
        and papers; a subquery each (joins took 97 ms at the benchmark's size)."""
        awards = model("Award").objects.published(ignore_conference=True)
        papers = model("Paper").objects.published(ignore_conference=True)
        return self.annotate(
            award_count=count_of(awards, "conference"), paper_count=count_of(papers, "conference")
        )

    def for_index(self):
        """``for_venue()`` with ``awarded_count``: the published papers its published
        awards went to, each once (a Test of Time award's papers are from earlier years)."""
        return self.for_venue().annotate(awarded_count=awarded_papers_count("award__conference"))


class InstitutionQuerySet(NaturalKeyQuerySet):
    def published(self):
        """Institutions an author of a published paper is affiliated with on that paper."""
        published = AuthorshipQuerySet.published_condition("authorship__")
        rows = model("Affiliation").objects.filter(published, institution=OuterRef("pk"))
        return self.filter(Exists(rows))

    def of_authors(self, authors):
        """The institutions each of ``authors`` (ids) gave on published papers, with
        ``of_author``, ``first_year`` and ``last_year``, by author, the latest first (a
        subquery of authorships: SQLite took 0.5 to 1.6 s for 200 authors without)."""
        years = "affiliation_rows__authorship__paper__conference__year"
        authorships = model("Authorship").objects.published().filter(author__in=authors)
        return (
            self.filter(affiliation_rows__authorship__in=authorships.values("pk"))
            .annotate(
                of_author=F("affiliation_rows__authorship__author"),
                first_year=Min(years),
                last_year=Max(years),
            )
            .order_by("of_author", "-last_year", "-first_year", "slug")
        )


class AuthorQuerySet(NaturalKeyQuerySet):
    def published(self):
        """Authors of a published paper, by the kept column ``has_published_paper``
        (published_authors.py; a join for DISTINCT authors took 15 to 30 ms)."""
        return self.filter(has_published_paper=True)

    def for_index(self):
        """In the author index's order (family name, then given name: ``sort_name``),
        with the columns it shows (its partial index holds them all)."""
        shown = ("slug", "name", "given_name", "family_name", "name_suffix", "sort_name")
        return self.only(*shown).order_by("sort_name", "slug")

    def coauthors_of_authors(self, authors):
        """The co-authors on published papers of each of ``authors`` (ids), each with
        ``of_author`` and ``shared`` (papers together), by author, the most frequent first."""
        papers = model("Paper").objects.published().filter(authorships__author__in=authors)
        return (
            self.filter(
                authorships__paper__in=papers.values("pk"),
                authorships__paper__authorships__author__in=authors,
            )
            .annotate(of_author=F("authorships__paper__authorships__author"))
            .exclude(pk=F("of_author"))
            .annotate(shared=Count("authorships__paper", distinct=True))
            .order_by("of_author", "-shared", "slug")
        )

    def with_awarded_papers(self):
        """Authors with ``awarded_papers``: how many of their published papers have a
        published award entry (a subquery per author: on a page of the index, 100)."""
        entries = model("AwardEntry").objects.published().filter(paper=OuterRef("paper"))
        authorships = model("Authorship").objects.published().filter(Exists(entries))
        return self.annotate(awarded_papers=count_of(authorships, "author"))

    def with_published_papers(self):
        """Authors with ``published_papers``: how many published papers they wrote."""
        authorships = model("Authorship").objects.published()
        return self.annotate(published_papers=count_of(authorships, "author"))


@functools.cache
def paper_detail_prefetches():
    """``PaperQuerySet.for_detail()``'s prefetches, built once per process (Django copies
    a Prefetch it changes): building them was a tenth of the paper page's time."""
    entries = model("AwardEntry").objects.filter(AwardQuerySet.published_condition("award__"))
    return (
        authorships_with_affiliations(),
        "links",
        Prefetch("award_entries", queryset=entries.for_paper()),
    )


class PaperQuerySet(PublishedQuerySet):
    def for_detail(self):
        """Everything the paper page shows, in a fixed number of queries."""
        return self.select_related("conference__venue").prefetch_related(*paper_detail_prefetches())

    def published_without_award_at(self, conference, any_status=False):
        """Papers at ``conference`` none of its published awards (any of its awards with
        ``any_status``: a preview) went to, in title order, without long columns (a join
        on awards read every paper: 0.2 s at 5,000 papers)."""
        awarded = model("AwardEntry").objects.filter(award__conference=conference)
        if not any_status:
            awarded = awarded.filter(
                AwardQuerySet.published_condition("award__", ignore_conference=True)
            )
        return (
            self.filter(conference=conference)
            .exclude(pk__in=awarded.values("paper_id"))
            .defer(*unlisted_paper_fields())
            .order_by("title_en", "slug")
        )

    def search(self, text):
        """Papers whose folded ``match_text`` holds every word of ``text`` (at most
        ``SEARCH_MAX_WORDS``), ignoring case and accents; "" matches every paper."""
        return self.search_words(search.words(text)[:SEARCH_MAX_WORDS])

    def search_words(self, words):
        """Papers matching every one of ``words``, already folded (``search.words()``)."""
        # Always true: lets SQLite read the papers from the partial index of migration
        # 0019, even with no word (a search by conference or year). Without it SQLite read
        # every published paper's row: 0.4-0.9 s at make bench's 50,000 papers, 20 ms with.
        matches = self.filter(match_text__isnull=False)
        for word in words:
            matches = matches.filter(match_text__contains=word)
        return matches

    def in_search_order(self):
        """The newest conference year first, then by English title."""
        return self.order_by("-conference__year", "title_en", "pk")

    def listed_at(self, conference=None, year=None):
        """Papers a conference page lists, published at it or awarded by it (a published
        award): ``conference`` a slug, ``year`` a conference year, ``None`` leaving either
        open. Whether the papers are published is left to the caller's ``published()``.

        The conferences' keys and the awarded papers' are read first (two queries under
        a millisecond) and filtered on as lists. A search by conference at make bench's
        50,000 papers, the key query: with joins, 0.97 s on SQLite (the awarded papers
        found from every published paper) and 26 ms on PostgreSQL; with subqueries, 160
        ms on PostgreSQL (a scan of every paper); with lists, 20 and 16-31 ms."""
        conferences = model("Conference").objects.published()
        if conference is not None:
            conferences = conferences.filter(slug=conference)
        if year is not None:
            conferences = conferences.filter(year=year)
        conference_keys = list(conferences.values_list("pk", flat=True))
        awards = model("Award").objects.published().filter(conference__in=conference_keys)
        awarded = model("AwardEntry").objects.filter(award__in=awards).order_by()
        awarded_keys = list(awarded.values_list("paper", flat=True))
        return self.filter(Q(conference__in=conference_keys) | Q(pk__in=awarded_keys))

    def with_award(self, slug):
        """Papers with a published entry in an award series (an award ``slug``, any year)."""
        entries = model("AwardEntry").objects.published().filter(award__slug=slug)
        return self.filter(pk__in=entries.values("paper"))

    def for_citation(self):
        """Papers with what a citation needs: conference, venue, authors in order, links."""
        return self.select_related("conference__venue").prefetch_related(
            authorships_in_order(), "links"
        )


class AuthorshipQuerySet(PublishedQuerySet):
    published_paths = ("paper__", "paper__conference__")
    POSITION_OFFSET = 10_000  # far above any position, below 32767

    def move_aside(self):
        """Add POSITION_OFFSET to these positions in one UPDATE (returns the rows moved), so
        that they can take new positions without breaking the unique constraint."""
        return self.update(position=F("position") + self.POSITION_OFFSET)

    def moved_aside(self):
        """Those of these authorships that are still moved aside (see ``move_aside``)."""
        return self.filter(position__gte=self.POSITION_OFFSET)

    def for_author_page(self, author):
        """``author``'s published authorships, newest first: the author page's list."""
        return (
            self.published()
            .filter(author=author)
            .order_by(*conference_order("paper__conference__"), "paper__slug")
        )


def authorships_in_order(lookup="authorships"):
    """A Prefetch of papers' authorships (through ``lookup``) with their authors without
    their long columns, by position, into the list ``Paper.ordered_authorships`` reads
    (a ``to_attr`` list: the related manager's cache builds a queryset per paper)."""
    return Prefetch(
        lookup,
        queryset=model("Authorship")
        .objects.select_related("author")
        .defer("author__search_text", "author__other_names")
        .order_by("position"),
        to_attr=AUTHORSHIPS_IN_ORDER,
    )


def authorships_with_affiliations():
    """A Prefetch of a paper's authorships in order, with their authors and institutions
    in the paper's order."""
    institutions = model("Institution").objects.order_by(
        "affiliation_rows__position", "affiliation_rows__pk"
    )
    return Prefetch(
        "authorships",
        queryset=model("Authorship")
        .objects.select_related("author")
        .prefetch_related(Prefetch("affiliations", queryset=institutions))
        .order_by("position"),
    )


class AwardKindQuerySet(NaturalKeyQuerySet):
    def published(self):
        """Kinds with at least one published award (of a published conference)."""
        awards = model("Award").objects.published()
        return self.filter(Exists(awards.filter(kind=OuterRef("pk"))))

    def with_award_count(self):
        """Kinds with ``award_count``: how many published awards are of the kind."""
        return self.annotate(award_count=count_of(model("Award").objects.published(), "kind"))


class AwardQuerySet(ScheduledQuerySet):
    def series(self, venue_slug, slug):
        """Every edition of one award at one venue (the same ``slug``), newest first."""
        return self.filter(conference__venue__slug=venue_slug, slug=slug).order_by(
            *conference_order("conference__")
        )

    def of_kind(self, kind):
        """Every award of ``kind`` (an AwardKind) at every venue: the newest conference
        first (``conference_order``), then by venue and the award's place there."""
        return self.filter(kind=kind).order_by(
            *conference_order("conference__"), "conference__venue__acronym", "position", "slug"
        )

    def with_conference(self):
        """Awards with their conference and venue (their addresses and titles name them)."""
        return self.select_related("conference__venue")


def _levels_above():
    """The levels of an entry's award above the entry's level, for a subquery."""
    return model("AwardLevel").objects.filter(
        award=OuterRef("award_id"), position__lt=OuterRef("level__position")
    )


class AwardEntryQuerySet(PublishedQuerySet):
    published_paths = ("award__", "award__conference__", "paper__", "paper__conference__")

    def in_level_order(self):
        """Entries by level (the top level first), then position, with ``is_top_level``
        (badges omit the top level's name) and ``level_rank`` (``with_level_rank()``)."""
        return (
            self.select_related("level")
            .annotate(is_top_level=~Exists(_levels_above()))
            .with_level_rank()
            .order_by(*self.model.LEVEL_ORDER)
        )

    def at_top_level(self):
        """Entries at their award's top level (no level of the award above theirs): its
        winners, whatever the level is called."""
        return self.filter(~Exists(_levels_above()))

    def with_level_rank(self):
        """Entries with ``level_rank``: how many of the award's levels come before the
        entry's, by a subquery (a grouped join took twice as long)."""
        rank = _levels_above().order_by().values("award").annotate(n=Count("pk")).values("n")
        return self.annotate(level_rank=Coalesce(Subquery(rank), 0))

    def for_paper(self):
        """Entries with their award, level and the conference that gave it."""
        return (
            self.in_level_order()
            .select_related("award__conference")
            .order_by(*self.model.PAPER_ORDER)
        )
