"""The rules the models keep: award levels in order, affiliations in order."""

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models import RestrictedError
from django.test.utils import CaptureQueriesContext
from django.utils import translation

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
    Status,
)
from tests import factories

pytestmark = pytest.mark.django_db


def _imaginary_award():
    """The Conference on Imaginary Learning 2031's best paper award, with three levels
    declared out of order (finalist, winner, runner-up)."""
    conference = factories.conference(
        name_en="Conference on Imaginary Learning 2031", name_zh_hans="", year=2031
    )
    award = factories.award(conference=conference, name_en="Best Imaginary Paper")
    for slug in ("finalist", "winner", "runner-up"):
        factories.award_level(award, slug)
    return award


def test_award_entries_come_in_level_order_top_level_first():
    award = _imaginary_award()
    papers = [factories.paper(conference=award.conference) for _ in range(4)]
    factories.award_entry(award, papers[0], level="finalist", position=1)
    factories.award_entry(award, papers[1], level="runner-up", position=2)
    factories.award_entry(award, papers[2], level="winner", position=9)
    factories.award_entry(award, papers[3], level="runner-up", position=1)

    entries = list(AwardEntry.objects.filter(award=award).in_level_order())

    assert [(e.level.slug, e.paper, e.is_top_level) for e in entries] == [
        ("winner", papers[2], True),
        ("runner-up", papers[3], False),
        ("runner-up", papers[1], False),
        ("finalist", papers[0], False),
    ]


def test_top_level_is_the_lowest_position_whatever_its_slug():
    award = factories.award()
    factories.award_level(award, "distinguished-paper", position=1)
    factories.award_level(award, "winner", position=2)
    paper = factories.paper()
    factories.award_entry(award, paper, level="distinguished-paper")

    entry = AwardEntry.objects.in_level_order().get(paper=paper)

    assert entry.is_top_level is True


def test_award_entry_refuses_a_level_of_another_award_and_lists_its_own():
    award, other = _imaginary_award(), factories.award()
    entry = AwardEntry(
        award=award, paper=factories.paper(), level=factories.award_level(other, "winner")
    )

    with pytest.raises(ValidationError) as raised:
        entry.full_clean()

    assert raised.value.message_dict["level"] == [
        "This level belongs to another award; this award's levels are: winner, runner-up, finalist."
    ]


def test_affiliations_keep_the_papers_order_not_the_alphabet():
    zeta = factories.institution(slug="zeta-institute", name_en="Zeta Institute")
    alpha = factories.institution(slug="alpha-university", name_en="Alpha University")
    paper = factories.paper(authors=[factories.author()], affiliations=[zeta, alpha])

    authorship = Paper.objects.for_detail().get(pk=paper.pk).ordered_authorships[0]

    assert list(authorship.affiliations.all()) == [zeta, alpha]


def test_set_affiliations_reorders_adds_and_removes():
    first, second, third = (factories.institution() for _ in range(3))
    paper = factories.paper(authors=[factories.author()], affiliations=[first, second])
    authorship = paper.authorships.get()

    authorship.set_affiliations([third, first])

    rows = authorship.affiliation_rows.all()
    assert [(row.institution, row.position) for row in rows] == [(third, 1), (first, 2)]


def test_a_level_in_use_cannot_be_deleted_on_its_own():
    award = _imaginary_award()
    factories.award_entry(award, factories.paper(conference=award.conference), level="winner")

    with pytest.raises(RestrictedError):
        award.levels.get(slug="winner").delete()


def test_deleting_an_award_deletes_its_levels_and_entries():
    award = _imaginary_award()
    factories.award_entry(award, factories.paper(conference=award.conference), level="winner")

    award.delete()

    assert (AwardLevel.objects.count(), AwardEntry.objects.count()) == (0, 0)


@pytest.mark.parametrize("kind", PaperLink.Kind.values)
def test_link_kind_display_is_the_choice_label_in_each_language(kind):
    link = PaperLink(kind=kind, url="https://example.org/")
    for language in ("en", "zh-hans"):
        with translation.override(language):
            expected = str(dict(PaperLink._meta.get_field("kind").flatchoices)[kind])
            assert link.get_kind_display() == expected


def test_link_of_an_unknown_kind_shows_its_value_and_sorts_last():
    links = [PaperLink(kind="telegram"), PaperLink(kind="code"), PaperLink(kind="pmlr")]
    assert links[0].get_kind_display() == "telegram"
    assert [link.kind for link in sorted(links, key=lambda link: link.sort_key)] == [
        "pmlr",
        "code",
        "telegram",
    ]


def test_lists_of_papers_leave_out_abstracts_summaries_and_search_text(client):
    """The conference, award and author pages read no paper's abstract, summary,
    search text or matched text (long columns their lists never show)."""
    award = factories.award()
    person = factories.author()
    awarded = factories.paper(conference=award.conference, authors=[person])
    factories.award_entry(award, awarded)
    factories.paper(conference=award.conference, authors=[person])  # among the other papers
    unlisted = {
        "search_text",
        "match_text",
        *(
            f"{field}{suffix}"
            for field in ("abstract", "summary")
            for suffix in ("", "_en", "_zh_hans")
        ),
    }
    pages = {
        "conference": award.conference.get_absolute_url(),
        "award": award.get_absolute_url(),
        "author": person.get_absolute_url(),
    }

    read = {}
    for name, url in pages.items():
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200
        sql = " ".join(query["sql"] for query in queries)
        read[name] = {column for column in unlisted if f'"papers_paper"."{column}"' in sql}

    assert read == {"conference": set(), "award": set(), "author": set()}
    assert awarded.title_en in response.content.decode()


@pytest.mark.django_db
def test_a_conference_list_of_other_papers_walks_the_listing_index():
    """The conference page's other papers come in title order from the index
    ``paper_listing_order``, not from a sort of every paper of the conference."""
    if connection.vendor != "sqlite":
        pytest.skip("EXPLAIN QUERY PLAN is SQLite's; PostgreSQL's plan depends on statistics")
    conference = factories.conference()
    for number in range(3):
        factories.paper(conference=conference, title_en=f"Paper {number}")
    papers = Paper.objects.published().published_without_award_at(conference)[:50]
    sql, params = papers.query.sql_with_params()

    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
        plan = " / ".join(row[-1] for row in cursor.fetchall())

    assert "paper_listing_order" in plan
    assert "ORDER BY" not in plan  # no temporary B-tree for the sort


@pytest.mark.django_db
def test_the_listing_index_holds_the_key_on_postgresql():
    """PostgreSQL counts a conference's other papers (those whose key is not among the
    awarded ones) from the index alone only if it holds the key: without it, it read
    every paper of make bench's 50,000 (catalogue/migrations/0024)."""
    if connection.vendor != "postgresql":
        pytest.skip("INCLUDE is PostgreSQL's; SQLite's indexes hold the key anyway")
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'paper_listing_order'")
        definitions = [row[0] for row in cursor.fetchall()]

    assert len(definitions) == 1
    assert definitions[0].endswith("(conference_id, status, title_en, slug) INCLUDE (id)")


@pytest.mark.django_db
def test_an_author_page_reads_the_authors_papers_from_the_author_side():
    """The author page's list, institutions and co-authors start from the person's
    authorships, found through the index ``authorship_author_paper``, and scan no table;
    without it SQLite started from every published paper and looked for the author on
    each."""
    if connection.vendor != "sqlite":
        pytest.skip("EXPLAIN QUERY PLAN is SQLite's; PostgreSQL's plan depends on statistics")
    person, other = factories.author(name="Ada Lovelace"), factories.author(name="Alan Turing")
    for number in range(3):
        factories.paper(authors=[person, other], title_en=f"Paper {number}")
    queries = {
        "papers": Authorship.objects.for_author_page(person),
        "institutions": Institution.objects.of_authors([person.pk]),
        "coauthors": Author.objects.coauthors_of_authors([person.pk]),
    }

    plans = {}
    with connection.cursor() as cursor:
        for name, queryset in queries.items():
            sql, params = queryset.query.sql_with_params()
            cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
            plans[name] = [row[-1] for row in cursor.fetchall()]

    assert all(
        any("INDEX authorship_author_paper (author_id=?" in step for step in plan)
        for plan in plans.values()
    ), plans
    assert not [step for plan in plans.values() for step in plan if step.startswith("SCAN")], plans


def test_award_entry_refuses_a_level_of_another_unsaved_award():
    """The rule compares objects, so it holds before anything is saved (the importer
    checks a file's new awards and levels this way)."""
    conference = factories.conference()
    award, other = Award(conference=conference, slug="a"), Award(conference=conference, slug="b")
    entry = AwardEntry(award=award, paper=factories.paper(), level=AwardLevel(award=other))

    with pytest.raises(ValidationError) as raised:
        entry.clean()

    assert raised.value.message_dict["level"] == ["This level belongs to another award."]


def test_award_entry_accepts_a_level_of_its_own_unsaved_award():
    award = Award(conference=factories.conference(), slug="a")
    entry = AwardEntry(award=award, paper=factories.paper(), level=AwardLevel(award=award))

    entry.clean()  # raises nothing

    assert entry.level.award is entry.award


def test_authorship_positions_start_at_1():
    paper = factories.paper()

    with pytest.raises(ValidationError) as raised:
        Authorship(paper=paper, author=factories.author(), position=0).full_clean()

    assert raised.value.messages == ["Author positions start at 1."]


def test_authorship_position_taken_on_the_paper_is_refused():
    paper = factories.paper(authors=[factories.author()])

    with pytest.raises(ValidationError) as raised:
        Authorship(paper=paper, author=factories.author(), position=1).full_clean()

    assert raised.value.messages == ["Another author of this paper has this position."]


def test_award_level_position_taken_in_the_award_is_refused():
    award = factories.award()
    factories.award_level(award, "runner-up")
    factories.award_level(factories.award(), "winner", position=5)  # another award's

    with pytest.raises(ValidationError) as raised:
        AwardLevel(
            award=award, slug="tie", name_en="T", name_plural_en="T", position=2
        ).full_clean()
    AwardLevel(
        award=award, slug="finalist", name_en="F", name_plural_en="F", position=5
    ).full_clean()

    assert raised.value.messages == ["Another level of this award has this position."]


def test_for_venue_counts_each_editions_published_awards_and_papers_once():
    busy, quiet = factories.conference(), factories.conference()
    awards = [factories.award(conference=busy) for _ in range(2)]
    factories.award(conference=busy, status=Status.DRAFT)
    papers = [factories.paper(conference=busy) for _ in range(3)]
    factories.paper(conference=busy, status=Status.DRAFT)
    factories.paper(conference=quiet)
    for award in awards:  # every award to every paper: a join would count 6 of each
        for paper in papers:
            factories.award_entry(award, paper)

    counts = {
        conference.pk: (conference.award_count, conference.paper_count)
        for conference in Conference.objects.for_venue()
    }

    assert counts == {busy.pk: (2, 3), quiet.pk: (0, 1)}


@pytest.mark.django_db
def test_querysets_of_many_authors_give_each_authors_own_rows():
    """The author pages' institutions, co-authors and count of papers, read for many
    authors at once: each author's own rows, in each author's order."""
    person, other, third = factories.author(), factories.author(), factories.author()
    first, second = factories.institution(), factories.institution()
    for year, institution in ((2021, first), (2023, second), (2024, second)):
        factories.paper(
            authors=[person, other],
            affiliations=[institution],
            conference=factories.conference(year=year),
        )
    factories.paper(
        authors=[third, person], affiliations=[first], conference=factories.conference(year=2022)
    )
    factories.paper(authors=[person, factories.author()], status=Status.DRAFT)
    authors = [person.pk, other.pk, third.pk]

    institutions = {pk: [] for pk in authors}
    for row in Institution.objects.of_authors(authors):
        institutions[row.of_author].append((row.slug, row.first_year, row.last_year))
    coauthors = {pk: [] for pk in authors}
    for row in Author.objects.coauthors_of_authors(authors):
        coauthors[row.of_author].append((row.slug, row.shared))
    counts = dict(
        Author.objects.with_published_papers()
        .filter(pk__in=authors)
        .values_list("pk", "published_papers")
    )

    assert institutions == {
        person.pk: [(second.slug, 2023, 2024), (first.slug, 2021, 2022)],
        other.pk: [(second.slug, 2023, 2024), (first.slug, 2021, 2021)],
        third.pk: [(first.slug, 2022, 2022)],
    }
    assert coauthors == {
        person.pk: [(other.slug, 3), (third.slug, 1)],
        other.pk: [(person.slug, 3)],
        third.pk: [(person.slug, 1)],
    }
    assert counts == {person.pk: 4, other.pk: 3, third.pk: 1}
