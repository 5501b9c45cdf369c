"""What lists of papers show, read for a whole page at once.

Every list of papers (a conference's awards and other papers, an award, a series, an
author's papers, search results) is rendered by templates/papers/lists/paper_list.html
from Paper instances that hold only the columns a list shows (built from rows of
``values()`` with ``Model.from_db()``, the others deferred), each with ``conference``
set. :class:`PageLists` gives every paper of a page, with one query per kind however
many papers:

- ``listed_authors``: dicts of each author's ``slug``, ``name`` and
  ``has_published_paper``, in order;
- ``listed_links``: PaperLink instances, in ``PaperLink.Kind``'s order;
- ``listed_badges``: its published award entries (``award`` with its ``conference``,
  ``level``, ``level_rank``, ``is_top_level``), the newest first, the top level first;
- on author pages ``listed_affiliations``: the author's institutions on the paper;

and each award ``listed_levels``: AwardLevel instances, the top level first, each with
``rank`` (0 for the top level) and ``papers``.

Why rows of values and not querysets with ``prefetch_related()``: a conference page of
150 papers then built about 1,900 model instances (authorships, authors, an award and a
conference per badge), the most of its time (benchmarks/server_time.py).
"""

from itertools import groupby
from types import SimpleNamespace

from django.db.models import DEFERRED, F

from catalogue.images import list_thumbnail
from catalogue.languages import columns
from catalogue.models import (
    KIND_ORDER,
    Affiliation,
    Authorship,
    Award,
    AwardEntry,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    PaperLink,
)


def build(model, row, prefix=""):
    """A ``model`` instance from the columns of ``row`` (a dict of ``values()``) named
    ``prefix`` + attname, as the ORM builds one (``Model.from_db()``): others deferred."""
    values = [row.get(prefix + field.attname, DEFERRED) for field in model._meta.concrete_fields]
    return model.from_db(None, None, values)


def paper_fields(prefix=""):
    """The columns a list shows of a paper (reached through ``prefix``, as ``"paper__"``)
    and of its conference."""
    return [
        *(prefix + name for name in ("id", "slug", "image", "conference_id")),
        *columns("title", prefix),
        *columns("lead", prefix),
        prefix + "conference__slug",
        *columns("name", prefix + "conference__"),
    ]


def paper(row, prefix="", conferences=None):
    """The Paper of a row of :func:`paper_fields`, with its ``conference``, taken from
    ``conferences`` (a dict by key, which it fills) when given, and its
    ``listed_thumbnail`` (``images.list_thumbnail()``), from the image's name: the
    ``image`` attribute's FieldFile and the paper would point at each other, a reference
    cycle that kept every list of the page alive until a full garbage collection, the
    slowest twentieth of conference pages (benchmarks/server_time.py)."""
    listed = build(Paper, row, prefix)
    listed.listed_thumbnail = list_thumbnail(row[prefix + "image"])
    conference = None if conferences is None else conferences.get(listed.conference_id)
    if conference is None:
        conference = build(Conference, row, prefix + "conference__")
        conference.pk = listed.conference_id
        if conferences is not None:
            conferences[conference.pk] = conference
    listed.conference = conference
    return listed


def papers(queryset, *extra):
    """The papers of the Paper queryset (sliced or not), in its order, with ``extra``
    columns of theirs too (one query)."""
    conferences = {}
    return [paper(row, "", conferences) for row in queryset.values(*paper_fields(), *extra)]


def search_results(keys):
    """The papers whose keys are ``keys`` (unknown ones left out), with the abstract and
    summary a search result's snippet is cut from, by key (one query; none without)."""
    texts = (*columns("abstract"), *columns("summary"))
    return (
        {row.pk: row for row in papers(Paper.objects.filter(pk__in=keys), *texts)} if keys else {}
    )


ENTRY_FIELDS = (
    "award_id",
    "level_id",
    "level_rank",
    "level__slug",
    *columns("name", "level__"),
    *columns("name_plural", "level__"),
    *paper_fields("paper__"),
)
AUTHOR_FIELDS = {
    "slug": F("author__slug"),
    "name": F("author__name"),
    "has_published_paper": F("author__has_published_paper"),
}
BADGE_FIELDS = (
    "award__slug",
    "award__conference_id",
    *columns("name", "award__"),
    "award__conference__slug",
    *columns("name", "award__conference__"),
    "level__slug",
    *columns("name", "level__"),
)


def link_order(row):
    """A link's place in a paper's list: ``PaperLink.Kind``'s order, unknown kinds last."""
    return KIND_ORDER.get(row["kind"], len(KIND_ORDER)), row["kind"]


class PageLists:
    """The lists of papers on one page: :meth:`awards` and :meth:`papers` name them,
    :meth:`fetch` fills them in (see the module's docstring)."""

    def __init__(self):
        self.listed = []  # (papers, with badges, with links)

    def awards(self, awards, entries=None):
        """Give ``awards`` their ``listed_levels``: their published entries, or those of
        ``entries`` (an AwardEntry queryset: a preview's), whose papers are listed
        without badges. Returns the awards as a list. One query, none without awards."""
        awards = list(awards)
        if not awards:
            return awards
        entries = AwardEntry.objects.published() if entries is None else entries
        rows = (
            entries.filter(award__in=awards)
            .with_level_rank()
            .order_by("award_id", *AwardEntry.LEVEL_ORDER)
            .values(*ENTRY_FIELDS)
        )
        by_award = {award: list(group) for award, group in groupby(rows, lambda r: r["award_id"])}
        conferences = {}
        for award in awards:
            award.listed_levels = []
            for _level, group in groupby(by_award.get(award.pk, ()), lambda r: r["level_id"]):
                group = list(group)
                level = build(AwardLevel, group[0], "level__")
                level.rank = group[0]["level_rank"]
                listed = [paper(row, "paper__", conferences) for row in group]
                level.papers = self.papers(listed, badges=False)
                award.listed_levels.append(level)
        return awards

    def papers(self, papers, *, badges=True, links=True):
        """List ``papers`` (see :func:`paper`), with their published awards' badges if
        ``badges`` and their links if ``links``; returns them as a list. No query."""
        papers = list(papers)
        self.listed.append((papers, badges, links))
        return papers

    def fetch(self):
        """Fill in every listed paper's authors, links and badges (at most three
        queries; none for what no paper needs)."""
        by_pk, badged, linked = {}, set(), set()
        for papers, badges, links in self.listed:
            for listed in papers:
                # A paper listed twice (in two awards of a conference) shares its lists.
                first = by_pk.setdefault(listed.pk, listed)
                if first is listed:
                    listed.listed_authors, listed.listed_links, listed.listed_badges = [], [], []
                else:
                    listed.listed_authors = first.listed_authors
                    listed.listed_links, listed.listed_badges = (
                        first.listed_links,
                        first.listed_badges,
                    )
                if badges:
                    badged.add(listed.pk)
                if links:
                    linked.add(listed.pk)
        self.listed = []
        if by_pk:
            authorships = Authorship.objects.filter(paper__in=by_pk).order_by(
                "paper_id", "position"
            )
            for row in authorships.values("paper_id", **AUTHOR_FIELDS):
                by_pk[row["paper_id"]].listed_authors.append(row)
        if linked:
            links = PaperLink.objects.filter(paper__in=linked).order_by()
            # A kind unknown to PaperLink.Kind goes last, by name (one per kind).
            for row in sorted(links.values("paper_id", "kind", "url"), key=link_order):
                by_pk[row["paper_id"]].listed_links.append(build(PaperLink, row))
        if badged:
            rows = (
                AwardEntry.objects.published()
                .filter(paper__in=badged)
                .with_level_rank()
                .order_by("level_rank", *AwardEntry.PAPER_ORDER)
                .values("paper_id", "level_rank", *BADGE_FIELDS)
            )
            for row in rows:
                by_pk[row["paper_id"]].listed_badges.append(badge(row))


def badge(row):
    """A row of ``PageLists.fetch()``'s badges as a badge shows it (award_badge.html)."""
    award = build(Award, row, "award__")
    conference = build(Conference, row, "award__conference__")
    conference.pk = award.conference_id
    award.conference = conference
    rank = row["level_rank"]
    level = build(AwardLevel, row, "level__")
    return SimpleNamespace(award=award, level=level, level_rank=rank, is_top_level=rank == 0)


class AuthorPapers:
    """An author's papers, newest first (``AuthorshipQuerySet.for_author_page()``), for
    django's ``Paginator``: ``count`` is known beforehand (``published_papers``), and
    a page (a slice) is two queries, its papers with ``listed_affiliations``."""

    def __init__(self, author, count):
        self.author, self.papers = author, count

    def count(self):
        return self.papers

    def __getitem__(self, page):
        authorships = Authorship.objects.for_author_page(self.author)[page]
        rows = authorships.values("id", *paper_fields("paper__"))
        by_authorship = {}
        for row in rows:
            listed = by_authorship[row["id"]] = paper(row, "paper__")
            listed.listed_affiliations = []
        affiliations = Affiliation.objects.filter(authorship__in=by_authorship)
        for row in affiliations.order_by("authorship", "position", "pk").values(
            "authorship_id", *columns("name", "institution__")
        ):
            institution = build(Institution, row, "institution__")
            by_authorship[row["authorship_id"]].listed_affiliations.append(institution)
        return list(by_authorship.values())
