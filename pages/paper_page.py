"""The paper page's paper, built from rows of values read by prepared queries.

``Paper.objects.for_detail()`` gives the page everything it shows in five queries, but
on the benchmark's paper page (benchmarks/server_time.py --profile paper) more than
half of the request went to building those queries (each filter cloned and compiled,
the prefetches' querysets copied per related object) and to prefetching. Here the
same model instances, with the same related objects in Django's caches, come from
four queries that are built once per process (pages/prepared.py): the paper with its
conference and venue; its authorships with their authors and institutions in the
paper's order (one outer join, where the prefetches took two queries); its links; its
published awards' entries with their award, conference and level, annotated as
``AwardEntryQuerySet.for_paper()`` annotates them. So the template, the metadata
(pages/metadata.py) and the share card (pages/cards.py) read the same objects.

Objects are made as a queryset makes them (``Model.from_db``); their long columns
that the page never shows (search text) are deferred, and related lists are put in
the prefetch caches that ``.all()`` returns, as ``prefetch_related`` leaves them.
"""

from django.db import DEFAULT_DB_ALIAS
from django.db.models import QuerySet
from django.http import Http404
from django.utils.translation import gettext as _

from catalogue.models import (
    Author,
    Authorship,
    Award,
    AwardEntry,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    PaperLink,
    Venue,
    published_q,
)
from pages.prepared import PreparedQuery

# Columns no page shows and that are long: left deferred (reading one would query).
UNREAD = {"search_text", "match_text"}


def _attnames(model):
    return [field.attname for field in model._meta.concrete_fields if field.attname not in UNREAD]


class Columns:
    """A model's columns in rows of values, reached through ``prefix`` (such as
    ``"conference__"``): ``keys`` to ask ``values()`` for, ``names`` their attnames."""

    def __init__(self, model, prefix):
        self.model = model
        self.names = _attnames(model)
        self.keys = [prefix + name for name in self.names]


PAPER = Columns(Paper, "")
CONFERENCE = Columns(Conference, "conference__")
VENUE = Columns(Venue, "conference__venue__")
AUTHORSHIP = Columns(Authorship, "")
AUTHOR = Columns(Author, "author__")
INSTITUTION = Columns(Institution, "affiliation_rows__institution__")
LINK = Columns(PaperLink, "")
ENTRY = Columns(AwardEntry, "")
AWARD = Columns(Award, "award__")
AWARD_CONFERENCE = Columns(Conference, "award__conference__")
LEVEL = Columns(AwardLevel, "level__")


def _keys(*parts):
    return [key for part in parts for key in part.keys]


def instance(part, values):
    """The model instance of ``part`` (:class:`Columns`) in the row ``values``, made as a
    queryset makes it (``Model.from_db``)."""
    return part.model.from_db(DEFAULT_DB_ALIAS, part.names, [values[key] for key in part.keys])


def _paper(published):
    def build(slug=None, slugs=None):
        papers = (
            Paper.objects.filter(slug=slug)
            if slugs is None
            else Paper.objects.filter(slug__in=slugs)
        )
        if published:
            papers = papers.filter(published_q())
        return papers.rewrite(False).order_by().values(*_keys(PAPER, CONFERENCE, VENUE))

    return build


# The paper of a public page (published, at a published conference) and of a preview.
PUBLISHED_PAPER = PreparedQuery(_paper(published=True), texts=["slug"])
ANY_PAPER = PreparedQuery(_paper(published=False), texts=["slug"])
# The rest is read for many papers at once (publish_site renders many paper pages
# together: publishing/site.py), a page's one paper as a list of one: rows grouped by
# paper, each paper's in the order below.
# A row per authorship and institution (one with null institution columns for an
# authorship without any), in author order, then in the order the paper gives them.
AUTHORSHIPS = PreparedQuery(
    lambda papers: (
        Authorship.objects.filter(paper__in=papers)
        .order_by("paper", "position", "affiliation_rows__position", "affiliation_rows__pk")
        .values(*_keys(AUTHORSHIP, AUTHOR, INSTITUTION))
    ),
    lists=["papers"],
)
# At most one link per kind (a unique constraint): PaperLink's order by kind.
LINKS = PreparedQuery(
    lambda papers: (
        PaperLink.objects.filter(paper__in=papers).order_by("paper", "kind").values(*_keys(LINK))
    ),
    lists=["papers"],
)
ENTRIES = PreparedQuery(
    lambda papers: (
        AwardEntry.objects.filter(published_q("award__"), paper__in=papers)
        .for_paper()
        .values(*_keys(ENTRY, AWARD, AWARD_CONFERENCE, LEVEL), "is_top_level", "level_rank")
    ),
    lists=["papers"],
)


def _prefetched(instance, name, model, objects):
    """Put ``objects`` where ``instance.<name>.all()`` finds them, as prefetching does."""
    queryset = QuerySet(model)
    queryset._result_cache = objects
    queryset._prefetch_done = True
    cache = instance.__dict__.setdefault("_prefetched_objects_cache", {})
    cache[name] = queryset


def paper_for_page(slug, preview=False):
    """The paper ``slug`` as ``Paper.objects.for_detail()`` gives it (its conference and
    venue, authorships with authors and institutions, links, and published awards'
    entries), published at a published conference unless ``preview``. Four queries.

    Raises Http404 when there is no such paper.
    """
    rows = (ANY_PAPER if preview else PUBLISHED_PAPER)(slug=slug)
    if not rows:
        raise Http404(
            _("No %(verbose_name)s found matching the query")
            % {"verbose_name": Paper._meta.verbose_name}
        )
    return _papers(rows)[0]


def papers_for_pages(slugs):
    """``{slug: paper}`` of each of ``slugs`` that ``paper_for_page()`` finds (published),
    as it gives it, in four queries for them all (publish_site)."""
    rows = _paper(published=True)(slugs=list(slugs))
    return {paper.slug: paper for paper in _papers(rows)}


def _papers(rows):
    """The papers of ``rows`` (of ``PUBLISHED_PAPER``'s values), each with its
    conference and venue, authorships, links and entries (three queries for them all)."""
    papers = {}
    for values in rows:
        paper = instance(PAPER, values)
        conference = instance(CONFERENCE, values)
        conference.venue = instance(VENUE, values)
        paper.conference = conference
        papers[paper.pk] = paper
    if not papers:
        return []

    authorships = {pk: [] for pk in papers}
    institutions = {}
    last = None
    for values in AUTHORSHIPS(papers=list(papers)):
        if last is None or last.pk != values["id"]:
            last = instance(AUTHORSHIP, values)
            last.author = instance(AUTHOR, values)
            last.paper = papers[last.paper_id]
            authorships[last.paper_id].append(last)
            institutions[last.pk] = []
        if values["affiliation_rows__institution__id"] is not None:
            institutions[last.pk].append(instance(INSTITUTION, values))

    links = {pk: [] for pk in papers}
    for values in LINKS(papers=list(papers)):
        link = instance(LINK, values)
        links[link.paper_id].append(link)

    entries = {pk: [] for pk in papers}
    for values in ENTRIES(papers=list(papers)):
        entry = instance(ENTRY, values)
        entry.award = instance(AWARD, values)
        entry.award.conference = instance(AWARD_CONFERENCE, values)
        entry.level = instance(LEVEL, values)
        entry.is_top_level, entry.level_rank = values["is_top_level"], values["level_rank"]
        entries[entry.paper_id].append(entry)

    for pk, paper in papers.items():
        for authorship in authorships[pk]:
            _prefetched(authorship, "affiliations", Institution, institutions[authorship.pk])
        _prefetched(paper, "authorships", Authorship, authorships[pk])
        _prefetched(paper, "links", PaperLink, links[pk])
        _prefetched(paper, "award_entries", AwardEntry, entries[pk])
    return list(papers.values())
