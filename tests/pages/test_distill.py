"""Which URLs the static site publishes (pages/distill.py): the distill functions of
the URLconf's routes, and the routes the URLconf marks."""

import math

from django_distill.utils import iter_url_patterns

from catalogue.models import Author, Conference, Paper
from pages import distill


def test_the_urlconf_marks_the_public_routes_and_not_the_others():
    marked = {
        (namespace, pattern.name)
        for pattern, namespace, _depth in iter_url_patterns()
        if getattr(pattern, "distill_func", None)
    }

    assert ("papers", "paper-detail") in marked
    assert ("papers", "author-list-letter-page") in marked
    assert ("api-v1", "conference") in marked
    assert (None, "sitemap-section-page") in marked
    assert ("papers", "search") not in marked  # a query string, not a file
    assert ("api-v1", "paper") not in marked
    assert not [name for namespace, name in marked if namespace == "admin"]


def papers_of(author):
    return Paper.objects.published().filter(authorships__author=author).count()


def test_pages_of_long_lists_are_listed_from_the_second(icml, monkeypatch):
    monkeypatch.setattr(distill, "AUTHOR_PAGE_SIZE", 10)
    monkeypatch.setattr(distill, "LIST_PAGE_SIZE", 1)
    authors = Author.objects.published().count()
    conference = Conference.objects.published().get(slug="icml-2025")
    others = Paper.objects.published().published_without_award_at(conference).count()
    busiest = max(Author.objects.published(), key=lambda author: papers_of(author))

    assert list(distill.author_list_pages()) == [
        {"page": n} for n in range(2, math.ceil(authors / 10) + 1)
    ]
    assert {"slug": "icml-2025", "page": others} in distill.conference_pages()
    assert sum(distill._author_initials().values()) == authors
    assert list(distill.author_letters()) == [
        {"letter": letter}
        for letter in sorted({a.sort_name[0] for a in Author.objects.published()})
    ]
    assert list(distill.author_pages()) == [
        {"slug": author.slug, "page": page}
        for author in Author.objects.published().order_by("slug")
        for page in range(2, papers_of(author) + 1)
    ]
    assert papers_of(busiest) > 1  # so some author has a page 2
