"""Which authors have a published paper: the kept column ``Author.has_published_paper``
(joining every authorship to its paper and conference took 15 to 30 ms a query at 5,000
papers). It follows the saves and deletions that change a status, a paper's conference
or an authorship's paper or author, every save of an author, and ``content_changed``.
After a ``QuerySet.update()`` of a source call :func:`refresh_published_authors`.
"""

from catalogue.models import Author, Authorship, Conference, ContentGeneration, Paper
from catalogue.models.people import has_published_paper_rule

BATCH = 500  # authors refreshed by one pair of UPDATEs (below SQLite's parameter limit)
# The attributes of each model (by model name) whose change can change the column.
SOURCES = {
    "paper": ("status", "conference_id"),
    "conference": ("status",),
    "authorship": ("paper_id", "author_id"),
}


def refresh_published_authors(authors=None):
    """Store ``has_published_paper`` for the authors whose keys are ``authors`` (keys, a
    QuerySet of keys, or ``None`` for every author), two UPDATEs per ``BATCH``, after
    waiting for other writers (on PostgreSQL's READ COMMITTED two transactions would each
    read the other's old rows). Returns the number of rows changed."""
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
    gained = authors.filter(rule, has_published_paper=False).update(has_published_paper=True)
    lost = authors.filter(~rule, has_published_paper=True).update(has_published_paper=False)
    return gained + lost


def _concerned(sender, update_fields):
    """Whether a save of a ``sender`` limited to ``update_fields`` can change the column."""
    if update_fields is None:
        return True
    sources = SOURCES[sender._meta.model_name]
    names = {name.removesuffix("_id") for name in update_fields}
    return bool(names.intersection(source.removesuffix("_id") for source in sources))


def remember_sources(sender, instance, raw=False, update_fields=None, **kwargs):
    """``pre_save`` receiver: note the stored values of the instance's sources."""
    if not _concerned(sender, update_fields):
        return
    before = None
    if instance.pk is not None:
        names = SOURCES[sender._meta.model_name]
        before = sender._base_manager.filter(pk=instance.pk).values(*names).first()
    instance._published_sources = before


def published_authors_follow(sender, instance, update_fields=None, **kwargs):
    """``post_save`` and ``post_delete`` receiver: when the sources changed, refresh the
    authors reached (of a paper, of a conference's papers, an authorship's old and new)."""
    if not _concerned(sender, update_fields):
        return
    now = {name: getattr(instance, name) for name in SOURCES[sender._meta.model_name]}
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
    """``content_changed`` receiver: refresh the column of ``authors``."""
    authors = list(authors)
    if authors:
        refresh_published_authors(authors)
