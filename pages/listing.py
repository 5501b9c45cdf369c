"""Lists of papers as HTML, built in Python from lean data.

Every list of papers (a conference's awards and its other papers, an award, an award
series, an author's papers, search results) and the paper page's award badges and
links come from here, through the tags of ``pages/templatetags/paper_lists.py``.

Why not templates: on the benchmark's conference page (150 papers,
benchmarks/server_time.py) each request ran about 510 ``{% include %}``\\ s, 5,800
variable lookups and built 1,860 model instances (authorships, authors, an award and a
conference per badge), about 95% of its 225 ms. Here each item is a few string joins
over rows of values, and a badge is built once per award and level on the page.

Data: papers are :class:`PaperRow` objects read with ``values_list()`` (:func:`paper_rows`,
:class:`AuthorPapers`, award entries, :func:`search_result_rows`). A page
lists them through :class:`PageLists`, which fetches what its lists show, one query
per kind for the whole page however many papers, as rows of values:

- ``listed_authors``: ``(name, slug)`` of each author, in author order;
- ``listed_links``: ``(kind, url)`` in ``PaperLink.Kind``'s order;
- ``listed_badges``: :class:`Badge` rows of the paper's published awards, the top
  level first (``AwardEntry.PAPER_ORDER``, then by level rank);
- ``listed_affiliations`` (author pages): the author's institutions on the paper;
- and awards' ``listed_levels``: their entries, level by level.

Each item shows the paper's lead (catalogue/leads.py), a one-line summary worked out
when the paper is saved, under its authors.

The HTML is the one the templates made: the same elements, classes, headings, ``lang``
attributes and translated strings. Translated text goes through
``translated_html`` (the code of ``{% translated %}``), so fallbacks to English are
shown and marked exactly as elsewhere, and maths in titles is rendered the same
(catalogue/mathtext.py, cached by content).
"""

import html
from itertools import groupby

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS
from django.db.models import Func, IntegerField, Subquery
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext, pgettext
from modeltranslation.utils import build_localized_fieldname

from catalogue import languages
from catalogue.mathtext import has_math, math_inline
from catalogue.models import (
    KIND_ORDER,
    Affiliation,
    Author,
    Authorship,
    Award,
    AwardEntry,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    PaperLink,
    Status,
    published_q,
)
from catalogue.reversing import reverse_slugs, slug_url, slugs_url
from pages.prepared import PreparedQuery
from pages.templatetags.awards import (
    PREVIEW_QUERY,
    is_name,
    level_tier,
    list_thumbnail_html,
    localized_value,
    note_untranslated,
    search_snippet,
    translated_html,
)


def escape(text):
    """``html.escape(text)``, the same string, but a text with nothing to escape (most
    titles, names and addresses) costs five ``in`` tests (each a ``memchr``-like scan
    in C) instead of five replacements; a conference page escapes about 1,200 texts.
    The search by a regular expression (``[&<>"']``) this replaces tested the
    characters one by one: 5.6 against 1.3 us for a lead of 200 characters, and 2.3%
    of the benchmark's conference page's instructions (callgrind)."""
    if type(text) is str and not (
        "&" in text or "<" in text or ">" in text or '"' in text or "'" in text
    ):
        return text
    return html.escape(text)


class Row:
    """Some columns of a row of ``values_list()`` (a tuple) as attributes: ``attributes``
    names the columns from ``start`` on, one after another (see :func:`columns`), such
    as ``("slug", "name_en", "name_zh_hans")``."""

    def __init__(self, row, attributes, start=0):
        self.__dict__.update(zip(attributes, row[start : start + len(attributes)], strict=True))


def columns(fields, prefix):
    """``(start, attributes)`` of the ``fields`` that begin with ``prefix`` and reach no
    further relation: where the first is among ``fields``, and their names without
    ``prefix``, what :class:`Row` takes. ValueError unless they follow one another."""
    found = [
        (position, field[len(prefix) :])
        for position, field in enumerate(fields)
        if field.startswith(prefix) and "__" not in field[len(prefix) :]
    ]
    start = found[0][0]
    if [position for position, _name in found] != list(range(start, start + len(found))):
        raise ValueError(f"The columns of {prefix!r} do not follow one another: {fields}")
    return start, tuple(name for _position, name in found)


def paper_fields(prefix="", conference=False):
    """The columns a list shows of a paper (``prefix`` reaches it through a relation,
    as ``"paper__"``), with its conference's name in every language if ``conference``."""
    fields = [
        prefix + "id",
        prefix + "slug",
        *languages.columns("title", prefix),
        *languages.columns("lead", prefix),
        prefix + "image",
        prefix + "conference_id",
    ]
    if conference:
        fields += languages.columns("name", prefix + "conference__")
    return fields


class PaperRow:
    """A paper as a list shows it, from a row of ``values_list()`` (a tuple) whose
    columns from ``start`` are :func:`paper_fields` (with the conference's name if
    ``conference``): ``pk``, ``slug``, the title's and the lead's columns
    (catalogue/leads.py), ``image`` (the stored name, "" for none), ``conference_id`` and
    ``conference`` (a :class:`Row` of its name's columns, or None).

    Built from tuples, not dicts of ``values()``: a conference page builds 150 of them,
    and the dicts and the look-ups by name were about a tenth of its time."""

    def __init__(self, row, start=0, conference=False):
        stop = start + len(PAPER_ATTRIBUTES)
        self.__dict__.update(zip(PAPER_ATTRIBUTES, row[start:stop], strict=True))
        self.conference = Row(row, CONFERENCE_NAME_ATTRIBUTES, stop) if conference else None

    def __repr__(self):
        return f"<PaperRow {self.slug}>"


# PaperRow's attributes: the columns of paper_fields(), the ``id`` as ``pk``, then (with
# ``conference``) the conference's name's columns.
PAPER_ATTRIBUTES = tuple("pk" if field == "id" else field for field in paper_fields())
CONFERENCE_NAME_ATTRIBUTES = tuple(languages.columns("name"))


def paper_rows(papers, conference=False):
    """The papers of the Paper queryset ``papers`` (sliced or not) as :class:`PaperRow`
    objects, in its order (one query). Add what a list shows with :func:`prepare`."""
    rows = papers.values_list(*paper_fields(conference=conference))
    return [PaperRow(row, conference=conference) for row in rows]


# A page of search results: what a list shows of each paper, its conference's name and
# the texts a result's snippet is cut from (pages/templatetags/awards.py search_snippet).
SEARCH_RESULT_FIELDS = (
    *paper_fields(conference=True),
    *languages.columns("abstract"),
    *languages.columns("summary"),
)
SEARCH_RESULT_TEXTS = (*languages.columns("abstract"), *languages.columns("summary"))
SEARCH_RESULTS = PreparedQuery(
    lambda papers: (
        Paper.objects.filter(pk__in=papers)
        .order_by()
        .rewrite(False)
        .values_list(*SEARCH_RESULT_FIELDS)
    ),
    lists=["papers"],
)


def search_result_rows(keys):
    """The papers whose primary keys are ``keys`` (any order; unknown keys are left out)
    as :class:`PaperRow` objects, each with its abstract's and summary's columns
    (``abstract_en``...): a search page's results, for :func:`prepare`. One query (none
    without keys), built once per process: as model instances through a queryset,
    building the query and the instances took about as long as the database took."""
    papers = []
    texts = len(SEARCH_RESULT_FIELDS) - len(SEARCH_RESULT_TEXTS)
    for row in SEARCH_RESULTS(papers=keys):
        paper = PaperRow(row, conference=True)
        paper.__dict__.update(zip(SEARCH_RESULT_TEXTS, row[texts:], strict=True))
        papers.append(paper)
    return papers


class Badge:
    """One award of a paper, as its badge shows it: the award (``award``: slug and
    name columns), the conference that gave it (``conference``), the level
    (``level``), whether it is the award's top level and its rank (0 for the top)."""

    __slots__ = ("award_id", "award", "conference", "level_id", "level", "is_top_level", "rank")

    def __init__(self, row):
        """From a row of ``BADGES`` (a tuple)."""
        self.award_id, self.level_id = row[1], row[2]
        self.award = Row(row, BADGE_AWARD[1], BADGE_AWARD[0])
        self.conference = Row(row, BADGE_CONFERENCE[1], BADGE_CONFERENCE[0])
        self.level = Row(row, BADGE_LEVEL[1], BADGE_LEVEL[0])
        self.rank = row[-1]
        self.is_top_level = self.rank == 0


BADGE_FIELDS = (
    "paper_id",
    "award_id",
    "level_id",
    "award__slug",
    *languages.columns("name", "award__"),
    "award__conference__slug",
    *languages.columns("name", "award__conference__"),
    "level__slug",
    *languages.columns("name", "level__"),
)
BADGE_AWARD = columns(BADGE_FIELDS, "award__")
BADGE_CONFERENCE = columns(BADGE_FIELDS, "award__conference__")
BADGE_LEVEL = columns(BADGE_FIELDS, "level__")

ENTRY_FIELDS = (
    "award_id",
    "level_id",
    "level__slug",
    *languages.columns("name", "level__"),
    *languages.columns("name_plural", "level__"),
    *paper_fields("paper__", conference=True),
)
ENTRY_LEVEL = columns(ENTRY_FIELDS, "level__")
ENTRY_PAPER = ENTRY_FIELDS.index("paper__id")


class EntryRow:
    """An award entry as a list shows it: ``award_id``, ``level_id``, ``level`` (a
    :class:`Row` of its slug and names), ``level_rank`` (0 for the award's top level),
    ``is_top_level`` and ``paper`` (a :class:`PaperRow`)."""

    __slots__ = ("award_id", "level_id", "level", "is_top_level", "level_rank", "paper")

    def __init__(self, row):
        """From a row (a tuple) of ``ENTRY_FIELDS`` and then the level's rank."""
        self.award_id, self.level_id = row[0], row[1]
        self.level = Row(row, ENTRY_LEVEL[1], ENTRY_LEVEL[0])
        self.level_rank = row[-1]
        self.is_top_level = self.level_rank == 0
        self.paper = PaperRow(row, ENTRY_PAPER, conference=True)


class PageLists:
    """The lists of papers on one page, fetched together: after :meth:`awards` (one
    query for the awards' entries) and :meth:`papers`, :meth:`fetch` gets the badges
    of the papers that show them (one query) and the authors and links of every
    listed paper (one query each), however many lists and papers the page has.

    Each award gets ``listed_levels``, a list of ``(level, entries)`` pairs (the level
    as a :class:`Row`, its entries as :class:`EntryRow` objects), the top level first;
    each paper (a Paper instance or a :class:`PaperRow`) gets ``listed_authors``,
    ``listed_links`` and ``listed_badges`` (see the module docstring).
    """

    def __init__(self):
        self.listed = []  # (papers, with badges, with links)

    def awards(self, awards, entries=None):
        """Give ``awards`` (an Award queryset or list) their entries, in level order
        (``AwardEntry.LEVEL_ORDER``): their published entries, or those of ``entries``
        (an AwardEntry queryset: a preview's); the entries' papers are listed without
        badges. Returns the awards as a list. One query, none without awards."""
        awards = list(awards)
        by_pk = {award.pk: award for award in awards}
        for award in awards:
            award.listed_levels = []
        if not awards:
            return awards
        if entries is None:
            rows = PUBLISHED_ENTRIES(awards=by_pk)
        else:
            rows = _entries_of(entries, by_pk)
        rows = [EntryRow(row) for row in rows]
        self.papers([entry.paper for entry in rows], badges=False)
        rows.sort(key=lambda entry: entry.award_id)  # stable: each award's in level order
        for award_id, award_entries in groupby(rows, key=lambda entry: entry.award_id):
            levels = by_pk[award_id].listed_levels
            for _level, level_entries in groupby(award_entries, key=lambda row: row.level_id):
                level_entries = list(level_entries)
                levels.append((level_entries[0].level, level_entries))
        return awards

    def papers(self, papers, *, badges=True, links=True):
        """List ``papers`` (Paper instances or :class:`PaperRow` objects), with their
        published awards' badges if ``badges`` and their links if ``links``; returns
        them as a list. No query: :meth:`fetch` fills them in."""
        papers = list(papers)
        self.listed.append((papers, badges, links))
        return papers

    def fetch(self):
        """Fill in every listed paper's authors, links and badges (at most three
        queries; none for what no paper needs)."""
        by_pk, badged, linked = {}, set(), set()
        for papers, badges, links in self.listed:
            for paper in papers:
                # A paper listed twice (in two awards of a conference) shares its lists.
                first = by_pk.setdefault(paper.pk, paper)
                if first is paper:
                    paper.listed_authors, paper.listed_links = [], []
                    paper.listed_badges = []
                else:
                    paper.listed_authors, paper.listed_links = (
                        first.listed_authors,
                        first.listed_links,
                    )
                    paper.listed_badges = first.listed_badges
                if badges:
                    badged.add(paper.pk)
                if links:
                    linked.add(paper.pk)
        self.listed = []
        if by_pk:
            for paper_id, name, slug in AUTHOR_NAMES(papers=by_pk):
                by_pk[paper_id].listed_authors.append((name, slug))
        if linked:
            for paper_id, kind, url in LINKS(papers=linked):
                by_pk[paper_id].listed_links.append((kind, url))
            for pk in linked:
                paper_links = by_pk[pk].listed_links
                if len(paper_links) > 1:
                    # A kind unknown to PaperLink.Kind goes last, by name (one per kind).
                    paper_links.sort(
                        key=lambda link: (KIND_ORDER.get(link[0], len(KIND_ORDER)), link[0])
                    )
        if badged:
            for row in BADGES(papers=badged):
                if is_published_badge(row):
                    by_pk[row[0]].listed_badges.append(Badge(row))
            for pk in badged:
                # By rank, the top level first; stable, so otherwise in PAPER_ORDER.
                by_pk[pk].listed_badges.sort(key=lambda badge: badge.rank)


def _entries_of(entries, awards):
    """The rows of the AwardEntry queryset ``entries`` that ``PageLists.awards()`` reads,
    for the awards whose keys are ``awards``."""
    return (
        entries.filter(award__in=awards)
        .with_level_rank()
        .order_by(*AwardEntry.LEVEL_ORDER)
        .values_list(*ENTRY_FIELDS, "level_rank")
    )


# The queries of PageLists, built once per process (pages/prepared.py): building them
# took several times what the database took to answer.
PUBLISHED_ENTRIES = PreparedQuery(
    lambda awards: _entries_of(AwardEntry.objects.published(), awards), lists=["awards"]
)
AUTHOR_NAMES = PreparedQuery(
    lambda papers: Authorship.objects.filter(paper__in=papers).names_in_order(), lists=["papers"]
)
# Unordered: PageLists sorts them (PaperLink's own ordering joins the papers for it).
LINKS = PreparedQuery(
    lambda papers: (
        PaperLink.objects.filter(paper__in=papers).order_by().values_list("paper_id", "kind", "url")
    ),
    lists=["papers"],
)
# Badges: every entry of the listed papers, with the columns that say whether it is
# published (``AwardEntryQuerySet.published()``, read from published_q() itself), kept
# in Python by PageLists.fetch(). With those conditions in SQL, SQLite (which has no
# statistics) took ``award.status = 'published'`` for a rare value and started from
# every published award, probing each for each listed paper: 3 to 8 ms for a conference
# page's 50 other papers at make bench's 200 awards, growing with the awards on the site;
# from the papers' own entries it is a twentieth of that.
BADGE_CONDITIONS = tuple(published_q("award__").children + published_q("paper__").children)
BADGES = PreparedQuery(
    lambda papers: (
        AwardEntry.objects.filter(paper__in=papers)
        .with_level_rank()
        .order_by(*AwardEntry.PAPER_ORDER)
        .values_list(*BADGE_FIELDS, *(column for column, _value in BADGE_CONDITIONS), "level_rank")
    ),
    lists=["papers"],
)
# Where each of BADGE_CONDITIONS' columns is in a row of BADGES, with its value.
BADGE_CONDITION_COLUMNS = tuple(
    (len(BADGE_FIELDS) + position, value)
    for position, (_column, value) in enumerate(BADGE_CONDITIONS)
)


def is_published_badge(row):
    """Whether a row of ``BADGES`` (a tuple) is an entry that
    ``AwardEntry.objects.published()`` holds."""
    return all(row[position] == value for position, value in BADGE_CONDITION_COLUMNS)


# A page of ``PaperQuerySet.published_without_award_at()`` of a conference page, as the
# values of a list (modeltranslation's fallbacks left out: every column is named),
# each row ending with how many papers the conference has published (a subquery that
# the database runs once), so that the page and its count are one query. The page is
# a published conference's (OtherPapers), so the subquery asks only the papers' own
# status: joined to the conference, PostgreSQL's generic plan for it read every paper
# of the site (an index without the conference first) instead of the conference's.
# COUNT(*) as a plain function, not Django's aggregate, which would add a GROUP BY.
OTHER_PAPERS = PreparedQuery(
    lambda conference, start, stop: (
        Paper.objects.published()
        .published_without_award_at(conference)
        .rewrite(False)
        .annotate(
            published_papers=Subquery(
                Paper.objects.filter(conference=conference, status=Status.PUBLISHED)
                .order_by()
                .rewrite(False)
                .annotate(count=Func(template="COUNT(*)", output_field=IntegerField()))
                .values("count")
            )
        )[start:stop]
        .values_list(*paper_fields(), "published_papers")
    ),
    keys=["start", "stop"],
)

# The largest offset sent to the database: SQL's LIMIT and OFFSET are 64-bit integers on
# SQLite and PostgreSQL, and a larger one is an error, not an empty page.
MAX_OFFSET = 2**62

# How many papers a conference has published, when no page of OTHER_PAPERS says it.
# (The papers' own status and the conference's: the count an index answers.)
PUBLISHED_PAPERS_COUNT = PreparedQuery(
    lambda conference: (
        Paper.objects.published().filter(conference=conference).order_by().rewrite(False)
    ).values("pk")
)


class OtherPapers:
    """A published conference's papers without one of its awards, by title (see
    ``PaperQuerySet.published_without_award_at``), for django's ``Paginator``, which
    will ask for page ``number`` (an int from 1) of ``per_page``: ``count()`` and that
    page (a slice, as :class:`PaperRow` objects) come from one prepared query, whose
    rows carry the conference's number of published papers (saving a query and a
    round trip to the database on each conference page). A page past the end has no
    row to carry it: then the count is a query of its own (as is any other slice), and
    the paginator answers as usual (a 404 for a page out of range); an empty first
    page means no other papers.

    ``awards`` are the conference's published awards with their published entries, from
    :meth:`PageLists.awards`: the count is the conference's published papers less the
    papers of those entries published there, which the page has read already. Counted
    with the papers' anti-join instead (``NOT IN``), PostgreSQL read every paper of the
    site through an index to keep the conference's (1.4 ms at make bench's 500 papers a
    conference, about ten times that for a conference of 5,000); this count comes from
    the index ``paper_listing_order`` alone, on both databases.
    """

    def __init__(self, conference, awards, number, per_page):
        self.conference_id = conference.pk
        start = (number - 1) * per_page
        # A page whose offset no database integer holds is past the end: counted alone.
        self.start, self.stop = (start, start + per_page) if start <= MAX_OFFSET else (None, None)
        self.page = self.published = None
        self.awarded = {
            entry.paper.pk
            for award in awards
            for _level, entries in award.listed_levels
            for entry in entries
            if entry.paper.conference_id == conference.pk
        }

    def _fetch_page(self):
        if self.page is None and self.start is not None:
            rows = OTHER_PAPERS(conference=self.conference_id, start=self.start, stop=self.stop)
            self.page = [PaperRow(row) for row in rows]
            if rows:
                self.published = rows[0][-1]
            elif self.start == 0:
                self.published = len(self.awarded)  # no other papers

    def count(self):
        self._fetch_page()
        if self.published is None:
            self.published = PUBLISHED_PAPERS_COUNT.count(conference=self.conference_id)
        return self.published - len(self.awarded)

    def __getitem__(self, page):
        if page.stop <= page.start:  # an empty page: Django asks nothing either
            return []
        if self.start is not None and page.start == self.start and page.stop <= self.stop:
            self._fetch_page()
            return self.page[: page.stop - page.start]
        rows = OTHER_PAPERS(conference=self.conference_id, start=page.start, stop=page.stop)
        return [PaperRow(row) for row in rows]


# A conference page's awards (``published_awards_at``): the columns its list of awards
# reads, in the model's order (Model.from_db() defers the others by their place).
_AWARD_SHOWN = {"id", "conference_id", "slug", *languages.columns("name"), "position"}
AWARD_COLUMNS = tuple(
    field.attname for field in Award._meta.concrete_fields if field.attname in _AWARD_SHOWN
)
PUBLISHED_AWARDS_AT = PreparedQuery(
    lambda conference: (
        Award.objects.filter(conference=conference, status=Status.PUBLISHED)
        .order_by("position", "slug")
        .rewrite(False)
        .values_list(*AWARD_COLUMNS)
    )
)


def published_awards_at(conference):
    """``conference``'s published awards in their order on its page, as Award instances
    with the columns a list of awards shows (the others deferred, as ``only()`` does:
    reading one is a query), each given ``conference`` instead of joining it again. One
    query, built once per process: building it took twice as long as running it."""
    awards = []
    for row in PUBLISHED_AWARDS_AT(conference=conference.pk):
        award = Award.from_db(DEFAULT_DB_ALIAS, AWARD_COLUMNS, row)
        award.conference = conference
        awards.append(award)
    return awards


def prepare(papers, *, badges=True, links=True):
    """``papers`` (Paper instances or :class:`PaperRow` objects) as a list, each with
    what a list shows of it (see :class:`PageLists`): at most three queries."""
    lists = PageLists()
    papers = lists.papers(papers, badges=badges, links=links)
    lists.fetch()
    return papers


AUTHOR_PAPERS = PreparedQuery(
    lambda author, start, stop: Authorship.objects.for_author_page(author)[start:stop].values_list(
        "id", *paper_fields("paper__", conference=True)
    ),
    keys=["start", "stop"],
)
AUTHOR_AFFILIATIONS = PreparedQuery(
    lambda authorships: (
        Affiliation.objects.filter(authorship__in=authorships)
        .order_by("authorship", "position", "pk")
        .values_list("authorship_id", *languages.columns("name", "institution__"))
    ),
    lists=["authorships"],
)


# The same for many authors at once (publish_site renders many author pages together:
# publishing/site.py's ``prepare_author_pages``): every published paper of each, the
# author's id last, each author's rows in ``AUTHOR_PAPERS``'s order.
AUTHORS_PAPERS = PreparedQuery(
    lambda authors: Authorship.objects.for_authors_pages(authors).values_list(
        "id", *paper_fields("paper__", conference=True), "author_id"
    ),
    lists=["authors"],
)


class AuthorPapers:
    """An author's papers, newest first (``AuthorshipQuerySet.for_author_page()``), for
    django's ``Paginator``: ``count`` is how many there are, known beforehand (see
    the author page's view), and each page (a slice) is two queries:
    its papers as :class:`PaperRow` objects, each with ``listed_affiliations``, the
    author's institutions on the paper in the paper's order (Row objects with the
    name's columns; none without papers). List them with :meth:`PageLists.papers`.

    With ``many`` (an :class:`AuthorsPapers`), the page comes from the rows it read for
    many authors, and the affiliations are filled in by its ``fetch()``: no query."""

    def __init__(self, author, count, many=None):
        self.author_id, self.papers = author.pk, count
        self.many = many

    def count(self):
        return self.papers

    def __getitem__(self, page):
        if page.stop <= page.start:  # an empty page: Django asks nothing either
            return []
        if self.many is None:
            rows = AUTHOR_PAPERS(author=self.author_id, start=page.start, stop=page.stop)
        else:
            rows = self.many.rows[self.author_id][page.start : page.stop]
        papers = [PaperRow(row, 1, conference=True) for row in rows]
        by_authorship = {row[0]: paper for row, paper in zip(rows, papers, strict=True)}
        for paper in papers:
            paper.listed_affiliations = []
        if self.many is None:
            _add_affiliations(by_authorship)
        else:
            self.many.pending.update(by_authorship)
        return papers


class AuthorsPapers:
    """The papers of many authors' pages read at once (two queries for them all): give
    each page's :class:`AuthorPapers` this as ``many``, paginate, then ``fetch()``."""

    def __init__(self, authors):
        self.rows = {author.pk: [] for author in authors}
        for row in AUTHORS_PAPERS(authors=list(self.rows)):
            self.rows[row[-1]].append(row)
        self.pending = {}  # authorship's id -> its PaperRow, on a page asked for

    def fetch(self):
        """Fill in the ``listed_affiliations`` of the papers of the pages asked for."""
        _add_affiliations(self.pending)
        self.pending = {}


def _add_affiliations(by_authorship):
    """Append to each paper of ``by_authorship`` (authorship's id -> PaperRow) the
    institutions of that authorship, in the paper's order (one query)."""
    institution = CONFERENCE_NAME_ATTRIBUTES  # an institution's name: the same columns
    for row in AUTHOR_AFFILIATIONS(authorships=by_authorship):
        by_authorship[row[0]].listed_affiliations.append(Row(row, institution, 1))


# A paper's image field, for the thumbnails of papers listed as rows of values.
IMAGE_FIELD = Paper._meta.get_field("image")


class Renderer:
    """Builds list HTML in the active language, for one template ``context`` (whose
    notice about untranslated text a fallback turns on). Strings that every item
    repeats are translated once, and each badge is built once per award and level.

    Values are escaped with the standard library's ``html.escape`` (through
    :func:`escape`), which is what Django's ``escape()`` calls (without its lazy-string
    wrapper, a tenth of a long list's time): the same characters, the same entities.
    """

    def __init__(self, context=None):
        self.context = context
        self.language = get_language() or settings.LANGUAGE_CODE
        self.separator = escape(gettext(", "))
        self.authors_label = escape(gettext("Authors:"))
        self.opening = escape(pgettext("opening parenthesis", " ("))
        self.closing = escape(pgettext("closing parenthesis", ")"))
        self.author_url = slug_url("papers:author-detail", "slug")
        self.paper_url = slug_url("papers:paper-detail", "slug")
        self.award_url = None  # slugs_url() of an award's page, when first needed
        # In a preview, links to papers and awards go to their previews, and authors
        # without a published paper (no public page) are named without a link.
        self.preview = bool(context is not None and context.get("preview"))
        self.query = ""
        self.unpublished_authors = None  # their slugs, read at the first list of authors
        if self.preview:
            self.query = f"?{PREVIEW_QUERY}"
            paper_url = self.paper_url
            self.paper_url = lambda slug: paper_url(slug) + self.query
        self.link_labels = {}
        self.badges = {}
        self.conference_names = {}
        self.columns = {}  # a translated field's columns: the active language's, the fallback's
        self.names = {}  # (model, field): whether the field is a name (is_name)

    @classmethod
    def of(cls, context):
        """The renderer of the template that ``context`` renders: one per page (and
        language), so that the page's lists share their strings and badges."""
        renderer = context.render_context.get(cls)
        if renderer is None or renderer.language != (get_language() or settings.LANGUAGE_CODE):
            renderer = context.render_context[cls] = cls(context)
        return renderer

    def translated(self, obj, field, model=None, math=False):
        """``translated_html()`` of ``obj``'s ``field``. Text in the active language (most
        of a list) is escaped here, as translated_html() would, without its look-ups."""
        columns = self.columns.get(field)
        if columns is None:
            default = settings.MODELTRANSLATION_DEFAULT_LANGUAGE
            columns = self.columns[field] = (
                build_localized_fieldname(field, self.language),
                None if self.language == default else build_localized_fieldname(field, default),
            )
        column, fallback = columns
        text = getattr(obj, column)
        if text:
            return math_inline(text) if math and has_math(text) else escape(text)
        # As localized_value(): the default language's text, when there is one.
        text = getattr(obj, fallback) if fallback is not None else ""
        if not text:
            return translated_html(
                obj, field, math=math, model=model, context=self.context, language=self.language
            )
        language = settings.MODELTRANSLATION_DEFAULT_LANGUAGE
        # A fallback (on a Chinese page of untranslated papers, most titles and leads):
        # translated_html()'s markup, with whether the field is a name asked once.
        text = math_inline(text) if math and has_math(text) else escape(text)
        kind = obj if model is None else model
        key = (kind if isinstance(kind, type) else type(kind), field)
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = is_name(kind, field)
        if name:
            return f'<span lang="{escape(language)}">{text}</span>'
        note_untranslated(self.context)
        return f'<span lang="{escape(language)}" class="untranslated">{text}</span>'

    def authors(self, authors):
        """``<p class="authors">`` with each author linked, or "" without authors. In a
        preview, an author without a published paper (only drafts, or papers of a draft
        conference) is named without a link: their slugs are read once for the page
        (one query, in previews only)."""
        if not authors:
            return ""
        author_url = self.author_url
        if self.preview:
            if self.unpublished_authors is None:
                self.unpublished_authors = set(
                    Author.objects.filter(has_published_paper=False).values_list("slug", flat=True)
                )
            unlinked = self.unpublished_authors
            names = self.separator.join(
                escape(name)
                if slug in unlinked
                else f'<a href="{author_url(slug)}">{escape(name)}</a>'
                for name, slug in authors
            )
        else:
            names = self.separator.join(
                f'<a href="{author_url(slug)}">{escape(name)}</a>' for name, slug in authors
            )
        return (
            f'<p class="authors"><span class="visually-hidden">{self.authors_label} </span>'
            f"{names}</p>"
        )

    def links(self, links):
        """``<ul class="links">`` of a paper's ``(kind, url)`` links, or "" without any."""
        if not links:
            return ""
        items = "".join(
            f'<li><a href="{escape(url)}" rel="external">{self.link_label(kind)}</a></li>'
            for kind, url in links
        )
        return f'<ul class="links">{items}</ul>'

    def link_label(self, kind):
        label = self.link_labels.get(kind)
        if label is None:
            label = self.link_labels[kind] = escape(PaperLink.kind_label(kind))
        return label

    def badge(self, badge):
        """A ``<span class="badge">`` for a :class:`Badge` (or an AwardEntry with its
        award, conference and level loaded, as ``Paper.objects.for_detail()`` gives)."""
        key = (badge.award_id, badge.level_id)
        html = self.badges.get(key)
        if html is None:
            html = self.badges[key] = self._badge(badge)
        return html

    def _badge(self, badge):
        if isinstance(badge, AwardEntry):
            award, conference, level = badge.award, badge.award.conference, badge.level
            rank = badge.level_rank
        else:
            award, conference, level = badge.award, badge.conference, badge.level
            rank = badge.rank
        url = reverse_slugs("papers:award-detail", conference_slug=conference.slug, slug=award.slug)
        url += self.query
        tier = level_tier(rank)
        html = (
            f'<span class="badge tier-{tier}">{award_icon(tier)}<a href="{url}">'
            f"{self.translated(conference, 'name', Conference)} "
            f"{self.translated(award, 'name', Award)}</a>"
        )
        if not badge.is_top_level:
            html += (
                f'<span class="award-badge-level level-{escape(level.slug)}">{self.opening}'
                f"{self.translated(level, 'name', AwardLevel)}{self.closing}</span>"
            )
        return html + "</span>"

    def conference_name(self, paper):
        """The name of ``paper``'s conference, as the templates' ``paper.conference.name``
        gave it (modeltranslation's fallback): escaped, never marked."""
        name = self.conference_names.get(paper.conference_id)
        if name is None:
            name = escape(localized_value(paper.conference, "name", self.language)[0])
            self.conference_names[paper.conference_id] = name
        return name

    def thumbnail(self, paper):
        image = paper.image
        if isinstance(image, str):  # a row of values: the stored name
            if not image:
                return ""
            image = IMAGE_FIELD.attr_class(None, IMAGE_FIELD, image)
        return list_thumbnail_html(image)

    def paper(
        self,
        paper,
        heading=4,
        award=None,
        show_awards=False,
        show_conference=False,
        snippet_query=None,
        show_links=True,
    ):
        """One ``<article class="paper-item">``: thumbnail, title (a heading of level
        ``heading``), authors, its lead (catalogue/leads.py) or, in search results, a
        snippet around the match when the text holds one, where it was published (when
        ``show_conference``, when it has ``listed_affiliations``, or when ``award`` is
        from another conference), the search snippet for ``snippet_query``, badges
        (``show_awards``) and links."""
        parts = [
            f'<article class="paper-item">{self.thumbnail(paper)}\n'
            f'  <h{heading} class="paper-title"><a href="{self.paper_url(paper.slug)}">'
            f"{self.translated(paper, 'title', math=True)}</a></h{heading}>\n"
            f"  {self.authors(paper.listed_authors)}\n"
        ]
        # A search result's snippet shows the match in its context, often in the very
        # sentence the lead is made of; a result found by an author or an institution
        # shows its lead instead of the start of its abstract.
        snippet = (
            ""
            if snippet_query is None
            else search_snippet(self.context, paper, snippet_query, matches_only=True)
        )
        lead = "" if snippet else self.translated(paper, "lead", math=True)
        if lead:
            parts.append(f'  <p class="paper-lead">{lead}</p>\n')
        affiliations = getattr(paper, "listed_affiliations", None)
        if (
            show_conference
            or affiliations is not None
            or (award is not None and paper.conference_id != award.conference_id)
        ):
            # As {% blocktranslate %} gives it: the translation is markup, the value escaped.
            published = gettext("Published at %(conference)s") % {
                "conference": self.conference_name(paper)
            }
            if affiliations:
                names = escape(gettext("; ")).join(
                    self.translated(row, "name", Institution) for row in affiliations
                )
                # Outside the f-string: xgettext (makemessages) does not read inside one.
                label = escape(gettext("Affiliation:"))
                published += f" · {label} {names}"
            parts.append(f'  <p class="paper-meta">{published}</p>\n')
        if snippet:
            parts.append(f"  {snippet}\n")
        if show_awards and paper.listed_badges:
            badges = "".join(
                f'<p class="award-badge">{self.badge(badge)}</p>' for badge in paper.listed_badges
            )
            parts.append(f"  {badges}\n")
        if show_links:
            parts.append(f"  {self.links(paper.listed_links)}\n")
        parts.append("</article>\n")
        return "".join(parts)

    def papers(self, papers, **options):
        """The items of ``papers`` (prepared, see :func:`prepare`), one after another."""
        return mark_safe("".join(self.paper(paper, **options) for paper in papers))  # noqa: S308

    def levels(self, award, level_heading=3, paper_heading=4):
        """``award``'s entries (see :func:`with_entries`), a ``<section>`` per level with
        its heading (the level's name, plural for several papers) and its papers."""
        parts = []
        for level, entries in award.listed_levels:
            first = entries[0]
            tier = level_tier(first.level_rank)
            top = " level-top" if first.is_top_level else ""
            field = "name" if len(entries) == 1 else "name_plural"
            items = "".join(
                self.paper(entry.paper, heading=paper_heading, award=award) for entry in entries
            )
            parts.append(
                f'\n<section class="award-level tier-{tier}{top}">\n'
                f'  <h{level_heading} class="level-{escape(level.slug)}">'
                f"{award_icon(tier)}{self.translated(level, field, AwardLevel)}"
                f"</h{level_heading}>\n"
                f"  {items}\n</section>\n"
            )
        return mark_safe("".join(parts))  # noqa: S308 - every value escaped above

    def award_sections(self, awards):
        """The conference page's awards (each with its entries, see :meth:`levels`), one
        ``<section class="award">`` each: the award's name, linked to its page, as an
        ``<h2>`` (``id="award-<slug>"``), then its levels (``<h3>``) and papers (``<h4>``).
        The markup ``{% for award in awards %}`` made in templates/papers/
        conference_detail.html, without a template lookup per award."""
        if self.award_url is None:
            self.award_url = slugs_url("papers:award-detail", "conference_slug", "slug")
        award_url = self.award_url
        parts = []
        for award in awards:
            slug = escape(award.slug)
            url = escape(award_url(award.conference.slug, award.slug) + self.query)
            parts.append(
                f'\n<section class="award" aria-labelledby="award-{slug}">\n'
                f'  <h2 id="award-{slug}"><a href="{url}">'
                f"{self.translated(award, 'name', Award)}</a></h2>\n"
                f"  {self.levels(award)}\n</section>\n"
            )
        return mark_safe("".join(parts))  # noqa: S308 - every value escaped above


# The award icons, one per badge tier (see templatetags/awards.py level_tier).
ICONS = {
    1: '<svg class="icon" aria-hidden="true" viewBox="0 0 16 16" width="16" height="16">'
    '<path d="M8 .6l2.3 4.7 5.1.7-3.7 3.6.9 5.1L8 12.3l-4.6 2.4.9-5.1L.6 6l5.1-.7z"/></svg>',
    2: '<svg class="icon" aria-hidden="true" viewBox="0 0 16 16" width="16" height="16">'
    '<path d="M3.5 0h3.2L8 3.2 9.3 0h3.2l-2.1 5.2a5.4 5.4 0 1 1-4.8 0zM8 7.4a3.1 3.1 0 1 0 '
    '0 6.2 3.1 3.1 0 0 0 0-6.2z"/></svg>',
    3: '<svg class="icon" aria-hidden="true" viewBox="0 0 16 16" width="16" height="16">'
    '<path d="M8 0a5 5 0 0 1 3.2 8.8L12.6 16 8 13.6 3.4 16l1.4-7.2A5 5 0 0 1 8 0zm0 2.6a2.4 '
    '2.4 0 1 0 0 4.8 2.4 2.4 0 0 0 0-4.8z"/></svg>',
}


def award_icon(tier):
    """The SVG icon (decorative, ``aria-hidden``) of badge tier ``tier`` (1, 2 or 3)."""
    return ICONS.get(tier, ICONS[3])
