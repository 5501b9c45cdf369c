"""A paper's matched text (``Paper.match_text``), what a search matches: its own search
text, its authors' and their institutions', one per line, kept by the receivers below."""

from collections import defaultdict

from catalogue.models import Affiliation, Author, Authorship, Institution, Paper
from catalogue.search import SEPARATOR

MATCH_TEXT_BATCH = 500  # papers worked out by one query of each kind


def refresh_match_texts(papers):
    """Save the matched text of the papers whose keys are ``papers`` (any iterable) from
    the search texts stored now, three queries and an update per ``MATCH_TEXT_BATCH``
    papers. Call it after a ``QuerySet.update()`` of a source."""
    keys = sorted({key for key in papers if key is not None})
    for start in range(0, len(keys), MATCH_TEXT_BATCH):
        batch = keys[start : start + MATCH_TEXT_BATCH]
        own = dict(Paper.objects.filter(pk__in=batch).values_list("pk", "search_text"))
        authors, institutions = defaultdict(list), defaultdict(list)
        for paper, text in (
            Authorship.objects.filter(paper__in=own)
            .order_by("paper_id", "position", "pk")
            .values_list("paper_id", "author__search_text")
        ):
            authors[paper].append(text)
        for paper, text in (
            Affiliation.objects.filter(authorship__paper__in=own)
            .order_by("authorship__paper_id", "authorship__position", "position", "pk")
            .values_list("authorship__paper_id", "institution__search_text")
        ):
            institutions[paper].append(text)
        rows = []
        for pk, text in own.items():
            parts = [text, *authors[pk], *institutions[pk]]  # one per line, empty ones left out
            rows.append(Paper(pk=pk, match_text=SEPARATOR.join(filter(None, parts))))
        Paper.objects.bulk_update(rows, ["match_text"])


# The fields, by model name, that a paper's matched text is made of.
MATCH_SOURCES = {
    "paper": frozenset({"search_text"}),
    "author": frozenset({"search_text"}),
    "institution": frozenset({"search_text"}),
    "authorship": frozenset({"paper", "paper_id", "author", "author_id", "position"}),
    "affiliation": frozenset(
        {"authorship", "authorship_id", "institution", "institution_id", "position"}
    ),
}


def _papers_of(instance):
    """The primary keys of the papers whose matched text ``instance`` is a source of."""
    if isinstance(instance, Paper):
        return [instance.pk]
    if isinstance(instance, Authorship):
        return [instance.paper_id]
    if isinstance(instance, Affiliation):
        return Authorship.objects.filter(pk=instance.authorship_id).values_list(
            "paper_id", flat=True
        )
    if isinstance(instance, Author):
        return instance.authorships.values_list("paper_id", flat=True)
    if isinstance(instance, Institution):
        return Authorship.objects.filter(affiliation_rows__institution=instance).values_list(
            "paper_id", flat=True
        )
    return []


def match_texts_follow(sender, instance, update_fields=None, **kwargs):
    """``post_save`` and ``post_delete`` receiver of the ``MATCH_SOURCES`` models: refresh
    the papers ``instance`` is a source of, unless a save's ``update_fields`` name none."""
    sources = MATCH_SOURCES[sender._meta.model_name]
    if update_fields is not None and not sources.intersection(update_fields):
        return
    refresh_match_texts(_papers_of(instance))


def match_texts_follow_affiliations(sender, instance, action, reverse, pk_set, **kwargs):
    """``m2m_changed`` receiver of ``Authorship.affiliations`` (``add()``, ``set()``,
    ``remove()`` and ``clear()`` write the through rows unsignalled)."""
    if reverse and action == "pre_clear":  # the institution's papers, before they go
        instance._match_text_papers = list(
            Authorship.objects.filter(affiliation_rows__institution=instance).values_list(
                "paper_id", flat=True
            )
        )
    if action not in ("post_add", "post_remove", "post_clear"):
        return
    if not reverse:  # an authorship's institutions changed
        refresh_match_texts([instance.paper_id])
    elif action == "post_clear":
        refresh_match_texts(getattr(instance, "_match_text_papers", ()))
    else:  # some of an institution's authorships changed
        papers = Authorship.objects.filter(pk__in=pk_set).values_list("paper_id", flat=True)
        refresh_match_texts(papers)


def match_texts_follow_content(sender, papers=(), **kwargs):
    """``content_changed`` receiver: refresh the matched text of ``papers``."""
    refresh_match_texts(papers)
