"""Which authors have a published paper: a kept column, ``Author.has_published_paper``.

``Author.objects.published()`` reads it instead of joining every authorship to its
paper and conference for DISTINCT authors (15 to 30 ms a query at the benchmark's
5,000 papers, three times per index page). The rule is :func:`has_published_paper_rule`
(a published authorship). It is kept like a paper's matched text (catalogue/matching.py):

- :func:`remember_sources` and :func:`published_authors_follow`, receivers of Paper,
  Conference and Authorship saves (raw ones included) and Authorship deletions, refresh
  the authors a change of a paper's status or conference, a conference's status, or an
  authorship's paper or author reaches;
- ``HAS_PUBLISHED_PAPER``, a derived column of Author (catalogue/derived.py), is worked
  out at every save of an author, so a restored version brings back no old value;
- ``content_changed`` (the importer's bulk writes) refreshes the authors it names.

A ``QuerySet.update()`` of a source refreshes nothing: call :func:`refresh_published_authors`.

Concurrent edits: on PostgreSQL's READ COMMITTED, two transactions (one unpublishing an
author's paper, one publishing another) would each work from the other's old rows, and
the last to commit would win (False, with a published paper). So the refresh first
waits for every other writer of content (``ContentGeneration.objects
.wait_for_other_writers()``); SQLite has one writer at a time (``BEGIN IMMEDIATE``).
"""

from catalogue.models import HAS_PUBLISHED_PAPER_COLUMN as COLUMN
from catalogue.models import (
    Author,
    Authorship,
    Conference,
    ContentGeneration,
    Paper,
    has_published_paper_rule,
)

# Authors refreshed by one pair of UPDATEs (below SQLite's limit of parameters).
BATCH = 500

# The attribute names of each model (by model name) whose change can change an
# author's column.
SOURCES = {
    "paper": ("status", "conference_id"),
    "conference": ("status",),
    "authorship": ("paper_id", "author_id"),
}


def refresh_published_authors(authors=None):
    """Store ``Author.has_published_paper`` for the authors whose keys are ``authors``
    (an iterable, None and unknown keys skipped; a QuerySet of keys, as a subquery;
    ``None``: every author): two UPDATEs per ``BATCH`` authors, writing only the rows
    that change. Returns the number of rows changed. Waits for other writers first
    (see "Concurrent edits" above)."""
    ContentGeneration.objects.wait_for_other_writers()

    if authors is None:
        return _refresh(Author.objects.all())
    if hasattr(authors, "query"):
        return _refresh(Author.objects.filter(pk__in=authors))
    keys = sorted({key for key in authors if key is not None})
    return sum(
        _refresh(Author.objects.filter(pk__in=keys[start : start + BATCH]))
        for start in range(0, len(keys), BATCH)
    )


def _refresh(authors):
    rule = has_published_paper_rule()
    gained = authors.filter(rule, **{COLUMN: False}).update(**{COLUMN: True})
    lost = authors.filter(~rule, **{COLUMN: True}).update(**{COLUMN: False})
    return gained + lost


def _concerned(sender, update_fields):
    """Whether a save of a ``sender`` limited to ``update_fields`` can change the column."""
    if update_fields is None:
        return True
    sources = SOURCES[sender._meta.model_name]
    names = {name.removesuffix("_id") for name in update_fields}
    return bool(names.intersection(source.removesuffix("_id") for source in sources))


def _sources_of(instance):
    return {name: getattr(instance, name) for name in SOURCES[type(instance)._meta.model_name]}


def remember_sources(sender, instance, raw=False, update_fields=None, **kwargs):
    """``pre_save`` receiver: note the stored values of the instance's sources (one
    query), so that :func:`published_authors_follow` refreshes only when they change,
    and reaches an authorship's former author."""
    if not _concerned(sender, update_fields):
        return
    before = None
    if instance.pk is not None:
        names = SOURCES[sender._meta.model_name]
        before = sender._base_manager.filter(pk=instance.pk).values(*names).first()
    instance._published_sources = before


def published_authors_follow(sender, instance, update_fields=None, **kwargs):
    """``post_save`` and ``post_delete`` receiver: when the sources changed, refresh the
    authors reached (a paper's, a conference's papers', an authorship's old and new)."""
    if not _concerned(sender, update_fields):
        return
    now = _sources_of(instance)
    before = instance.__dict__.pop("_published_sources", None)
    deleted = "created" not in kwargs
    if before == now and not deleted:
        return
    if isinstance(instance, Authorship):
        refresh_published_authors([instance.author_id, (before or {}).get("author_id")])
    elif isinstance(instance, Paper):
        refresh_published_authors(
            Authorship.objects.filter(paper=instance.pk).values_list("author_id", flat=True)
        )
    elif isinstance(instance, Conference):
        refresh_published_authors(
            Authorship.objects.filter(paper__conference=instance.pk).values("author_id")
        )


def published_authors_follow_content(sender, authors=(), **kwargs):
    """``content_changed`` receiver: refresh the column of ``authors`` (when any)."""
    authors = list(authors)
    if authors:
        refresh_published_authors(authors)
