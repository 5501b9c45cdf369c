"""The paper and author pages' objects read by prepared queries (pages/paper_page.py,
pages/author_page.py) are those of the model's QuerySet vocabulary."""

import pytest
from django.http import Http404

from catalogue.models import Author, Institution, Paper, Status
from pages import author_page, paper_page
from tests import factories


def _shown(paper):
    """What the paper page reads of ``paper`` (its template, metadata and card)."""
    return {
        "paper": (paper.pk, paper.slug, paper.title_en, paper.title_zh_hans, paper.abstract_en),
        "conference": (paper.conference.slug, paper.conference.name_en, paper.conference.year),
        "venue": paper.conference.venue.name_en,
        "authors": [
            (
                authorship.position,
                authorship.author.slug,
                authorship.author.name,
                authorship.author.homepage,
                [institution.slug for institution in authorship.affiliations.all()],
            )
            for authorship in paper.ordered_authorships
        ],
        "links": sorted((link.kind, link.url) for link in paper.links.all()),
        "entries": [
            (
                entry.award.slug,
                entry.award.conference.slug,
                entry.level.slug,
                entry.is_top_level,
                entry.level_rank,
            )
            for entry in paper.award_entries.all()
        ],
    }


@pytest.mark.django_db
def test_paper_for_page_reads_what_for_detail_gives(django_assert_num_queries):
    # Institutions in the paper's order (not by slug), an author without any, awards of
    # another conference and at a lower level.
    late, early = factories.institution(slug="zz-late"), factories.institution(slug="aa-early")
    paper = factories.paper(
        authors=[factories.author(), factories.author()],
        affiliations=[late, early],
        links=[("arxiv", "https://arxiv.org/abs/1"), ("pmlr", "https://proceedings.mlr.press/x")],
        conference=factories.conference(year=2020),
    )
    alone = factories.author(homepage="https://example.org/")
    paper.authorships.create(author=alone, position=3)
    later = factories.award(conference=factories.conference(year=2035))
    factories.award_entry(factories.award(conference=paper.conference), paper)
    factories.award_entry(later, paper, level="honourable-mention")
    factories.award_entry(later, factories.paper(), level="winner")

    with django_assert_num_queries(4):
        page = _shown(paper_page.paper_for_page(paper.slug))

    expected = _shown(Paper.objects.published().for_detail().get(pk=paper.pk))
    assert page == expected
    assert page["authors"][0][4] == ["zz-late", "aa-early"]
    assert page["authors"][2][4] == []
    assert [entry[3:] for entry in page["entries"]] == [(False, 1), (True, 0)]


@pytest.mark.django_db
def test_paper_for_page_of_a_draft_is_404_unless_previewed():
    draft = factories.paper(status=Status.DRAFT, authors=[factories.author()])

    with pytest.raises(Http404):
        paper_page.paper_for_page(draft.slug)
    with pytest.raises(Http404):
        paper_page.paper_for_page("no-such-paper")
    assert paper_page.paper_for_page(draft.slug, preview=True).pk == draft.pk


@pytest.mark.django_db
def test_author_page_reads_what_the_querysets_give():
    person, other = factories.author(), factories.author()
    first, second = factories.institution(), factories.institution()
    for year, institution in ((2021, first), (2023, second), (2024, second)):
        factories.paper(
            authors=[person, other],
            affiliations=[institution],
            conference=factories.conference(year=year),
        )
    factories.paper(authors=[person, factories.author()], status=Status.DRAFT)

    author = author_page.author_for_page(person.slug)

    assert (author.pk, author.name, author.published_papers) == (person.pk, person.name, 3)
    institutions = [
        (row.slug, row.first_year, row.last_year) for row in author_page.institutions_of(author)
    ]
    expected = [
        (row.slug, row.first_year, row.last_year) for row in Institution.objects.of_author(person)
    ]
    assert institutions == expected == [(second.slug, 2023, 2024), (first.slug, 2021, 2021)]
    coauthors = [(row.slug, row.shared) for row in author_page.coauthors_of(author, limit=24)]
    assert coauthors == [(row.slug, row.shared) for row in Author.objects.coauthors_of(person)]
    assert coauthors == [(other.slug, 3)]
    with pytest.raises(Http404):
        author_page.author_for_page(factories.author().slug)  # no published paper
