"""The paper page's paper, built from rows of values read by prepared queries.

``Paper.objects.for_detail()`` gives the page everything it shows in five queries, but
on the benchmark's paper page (benchmarks/server_time.py --profile paper) more than
half of the request went to building those queries (each filter cloned and compiled,
the prefetches' querysets copied per related object) and to prefetching. Here the
same model instances, with the same related objects in Django's caches, come from
four queries that are built once per process (papers/prepared.py): the paper with its
conference and venue; its authorships with their authors and institutions in the
paper's order (one outer join, where the prefetches took two queries); its links; its
published awards' entries with their award, conference and level, annotated as
``AwardEntryQuerySet.for_paper()`` annotates them. So the template, the metadata
(papers/metadata.py) and the share card (papers/cards.py) read the same objects.

Objects are made as a queryset makes them (``Model.from_db``); their long columns
that the page never shows (search text) are deferred, and related lists are put in
the prefetch caches that ``.all()`` returns, as ``prefetch_related`` leaves them.
"""

from django.db import DEFAULT_DB_ALIAS
from django.db.models import QuerySet
from django.http import Http404
from django.utils.translation import gettext as _

from .models import (
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
from .prepared import PreparedQuery

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
    def build(slug):
        papers = Paper.objects.filter(slug=slug)
        if published:
            papers = papers.filter(published_q())
        return papers.rewrite(False).order_by().values(*_keys(PAPER, CONFERENCE, VENUE))

    return build


# The paper of a public page (published, at a published conference) and of a preview.
PUBLISHED_PAPER = PreparedQuery(_paper(published=True), texts=["slug"])
ANY_PAPER = PreparedQuery(_paper(published=False), texts=["slug"])
# A row per authorship and institution (one with null institution columns for an
# authorship without any), in author order, then in the order the paper gives them.
AUTHORSHIPS = PreparedQuery(
    lambda paper: (
        Authorship.objects.filter(paper=paper)
        .order_by("position", "affiliation_rows__position", "affiliation_rows__pk")
        .values(*_keys(AUTHORSHIP, AUTHOR, INSTITUTION))
    )
)
# At most one link per kind (a unique constraint): PaperLink's order by kind.
LINKS = PreparedQuery(
    lambda paper: PaperLink.objects.filter(paper=paper).order_by("kind").values(*_keys(LINK))
)
ENTRIES = PreparedQuery(
    lambda paper: (
        AwardEntry.objects.filter(published_q("award__"), paper=paper)
        .for_paper()
        .values(*_keys(ENTRY, AWARD, AWARD_CONFERENCE, LEVEL), "is_top_level", "level_rank")
    )
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
    values = rows[0]
    paper = instance(PAPER, values)
    conference = instance(CONFERENCE, values)
    conference.venue = instance(VENUE, values)
    paper.conference = conference

    authorships, institutions = [], {}
    for values in AUTHORSHIPS(paper=paper.pk):
        if not authorships or authorships[-1].pk != values["id"]:
            authorship = instance(AUTHORSHIP, values)
            authorship.author = instance(AUTHOR, values)
            authorship.paper = paper
            authorships.append(authorship)
            institutions[authorship.pk] = []
        if values["affiliation_rows__institution__id"] is not None:
            institutions[authorship.pk].append(instance(INSTITUTION, values))
    for authorship in authorships:
        _prefetched(authorship, "affiliations", Institution, institutions[authorship.pk])
    _prefetched(paper, "authorships", Authorship, authorships)

    links = [instance(LINK, values) for values in LINKS(paper=paper.pk)]
    _prefetched(paper, "links", PaperLink, links)

    entries = []
    for values in ENTRIES(paper=paper.pk):
        entry = instance(ENTRY, values)
        entry.award = instance(AWARD, values)
        entry.award.conference = instance(AWARD_CONFERENCE, values)
        entry.level = instance(LEVEL, values)
        entry.is_top_level, entry.level_rank = values["is_top_level"], values["level_rank"]
        entries.append(entry)
    _prefetched(paper, "award_entries", AwardEntry, entries)
    return paper
