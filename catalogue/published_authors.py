"""Which authors have a published paper: a kept column, ``Author.has_published_paper``.

``Author.objects.published()`` (the A-Z index of authors, its letters, the author
sitemap, publish_site's lists of authors, the API) reads this column instead of
joining every authorship to its paper and conference and keeping DISTINCT authors: at
the benchmark's 5,000 papers (20,000 authorships) that join took 15 to 30 ms per
query, three times per index page. The rule is :func:`has_published_paper_rule`: a
paper of the author's that is published at a published conference (``published_q``).

It depends on other rows, like a paper's matched text (catalogue/search.py), so it is kept
the same way:

- :func:`published_authors_follow` and :func:`remember_sources`, ``post_save`` /
  ``post_delete`` and ``pre_save`` receivers of Paper, Conference and Authorship
  (connected in ``CatalogueConfig.ready()``): a save that changes a paper's status or
  conference, a conference's status, an authorship's paper or author, or a deletion of
  an authorship (a paper's deletion deletes its authorships one by one) refreshes the
  authors it reaches; raw saves (``loaddata``, django-reversion's restore) included;
- ``catalogue.models.HAS_PUBLISHED_PAPER``, a derived column of Author (catalogue/derived.py): every
  save of an author works it out again, so a restored version of an author (versions do
  not hold the column: editorial/history.py ``NOT_RECORDED``) does not bring back an old
  value;
- the importer calls :func:`refresh_published_authors` after its bulk queries
  (importing/applying.py), which send no signal.

A ``QuerySet.update()`` of a source refreshes nothing: call
:func:`refresh_published_authors` for the authors reached (no argument: every author).

Concurrent edits: the rule reads rows that another transaction may be changing at
the same time (editor A unpublishes one of an author's papers while editor B publishes
another). On PostgreSQL's READ COMMITTED, each would work out the column from the
other's old rows, and the author would end with the value of whichever committed last
(here False, with a published paper). So :func:`refresh_published_authors` first
waits for every other writer of content
(``ContentGeneration.objects.wait_for_other_writers()``, a lock on
the one row of the content generation, which every content change takes anyway):
the later transaction's statements then see the earlier one's rows. SQLite starts
every transaction with ``BEGIN IMMEDIATE`` (awardsite/settings.py), one writer at a time.
"""

from catalogue.models import (
    HAS_PUBLISHED_PAPER_COLUMN as COLUMN,
)
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
    """Work out and store ``Author.has_published_paper`` for the authors whose primary
    keys are ``authors`` (an iterable, unknown keys and None skipped; or a QuerySet of
    primary keys, used as a subquery), by :func:`has_published_paper_rule`; ``None``:
    every author. Two UPDATEs per ``BATCH`` authors (one pair for a QuerySet or None),
    each writing only the rows whose value changes. Returns the number of rows changed.
    Inside a transaction on PostgreSQL, first waits for other writers of content to end
    (see the module's docstring: "Concurrent edits")."""
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
    """``pre_save`` receiver of Paper, Conference and Authorship: note the stored values
    of the instance's sources (one query for a row already saved), so that
    :func:`published_authors_follow` refreshes only when they change, and an
    authorship's former author too."""
    if not _concerned(sender, update_fields):
        return
    before = None
    if instance.pk is not None:
        names = SOURCES[sender._meta.model_name]
        before = sender._base_manager.filter(pk=instance.pk).values(*names).first()
    instance._published_sources = before


def published_authors_follow(sender, instance, update_fields=None, **kwargs):
    """``post_save`` receiver of Paper, Conference and Authorship, and ``post_delete``
    receiver of Authorship: refresh the column of the authors the change reaches (a
    paper's authors, the authors of a conference's papers, an authorship's author and
    its former author), when the sources changed (see :func:`remember_sources`)."""
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
