"""Data migrations carry existing content over."""

import pytest

from catalogue.models import Author, AwardEntry, AwardLevel, Paper

# The last migration before award levels and ordered affiliations.
BEFORE_LEVELS = [("papers", "0006_content_generation")]


@pytest.mark.django_db(transaction=True)
def test_levels_and_affiliation_order_are_carried_over(migrate_to):
    old = migrate_to(BEFORE_LEVELS)
    venue = old.get_model("papers", "Venue").objects.create(
        slug="cil", acronym="CIL", name="Conference on Imaginary Learning"
    )
    conference = old.get_model("papers", "Conference").objects.create(
        venue=venue, slug="cil-2031", year=2031, name="CIL 2031", name_en="CIL 2031"
    )
    award = old.get_model("papers", "Award").objects.create(
        conference=conference, slug="best", name="Best Paper", name_en="Best Paper"
    )
    old.get_model("papers", "Award").objects.create(
        conference=conference, slug="quiet", name="Quiet", name_en="Quiet"
    )
    Paper_ = old.get_model("papers", "Paper")
    winner = Paper_.objects.create(slug="w", title="W", title_en="W", conference=conference)
    mention = Paper_.objects.create(slug="m", title="M", title_en="M", conference=conference)
    Entry = old.get_model("papers", "AwardEntry")
    Entry.objects.create(award=award, paper=winner, level="winner")
    Entry.objects.create(award=award, paper=mention, level="honourable-mention")
    Institution = old.get_model("papers", "Institution")
    zeta = Institution.objects.create(slug="zeta", name="Zeta", name_en="Zeta")
    alpha = Institution.objects.create(slug="alpha", name="Alpha", name_en="Alpha")
    author = old.get_model("papers", "Author").objects.create(slug="ada", name="Ada")
    authorship = old.get_model("papers", "Authorship").objects.create(
        paper=winner, author=author, position=1
    )
    authorship.affiliations.set([zeta, alpha])

    migrate_to()

    levels = AwardLevel.objects.order_by("award__slug", "position")
    assert [
        (level.award.slug, level.slug, level.position, level.name_en, level.name_plural_zh_hans)
        for level in levels
    ] == [
        ("best", "winner", 1, "Winner", "获奖论文"),
        ("best", "honourable-mention", 2, "Honourable mention", "荣誉提及"),
        ("quiet", "winner", 1, "Winner", "获奖论文"),
    ]
    assert sorted(AwardEntry.objects.values_list("paper__slug", "level__slug")) == [
        ("m", "honourable-mention"),
        ("w", "winner"),
    ]
    # As the pages showed them before: by slug.
    ordered = Paper.objects.for_detail().get(slug="w").ordered_authorships[0]
    assert [institution.slug for institution in ordered.affiliations.all()] == ["alpha", "zeta"]


# The last migration before award levels had positions of their own.
BEFORE_UNIQUE_POSITIONS = [("papers", "0025_one_line_names_and_text_limits")]


@pytest.mark.django_db(transaction=True)
def test_shared_level_positions_are_separated_keeping_the_order_shown(migrate_to):
    old = migrate_to(BEFORE_UNIQUE_POSITIONS)
    venue = old.get_model("papers", "Venue").objects.create(
        slug="cil", acronym="CIL", name="Conference on Imaginary Learning"
    )
    conference = old.get_model("papers", "Conference").objects.create(
        venue=venue, slug="cil-2031", year=2031, name="CIL 2031", name_en="CIL 2031"
    )
    Award_ = old.get_model("papers", "Award")
    best = Award_.objects.create(conference=conference, slug="best", name="B", name_en="B")
    other = Award_.objects.create(conference=conference, slug="other", name="O", name_en="O")
    Level = old.get_model("papers", "AwardLevel")
    for award, slug, position in [
        (best, "winner", 1),
        (best, "runner-up", 2),
        (best, "honourable-mention", 2),
        (best, "finalist", 3),
        (other, "winner", 1),
        (other, "runner-up", 2),
    ]:
        Level.objects.create(award=award, slug=slug, position=position, name=slug, name_en=slug)

    migrate_to()

    assert list(
        AwardLevel.objects.order_by("award__slug", "position").values_list(
            "award__slug", "slug", "position"
        )
    ) == [
        ("best", "winner", 1),
        ("best", "honourable-mention", 2),
        ("best", "runner-up", 3),
        ("best", "finalist", 4),
        ("other", "winner", 1),
        ("other", "runner-up", 2),
    ]


@pytest.mark.django_db(transaction=True)
def test_authors_get_the_split_citations_made_as_their_names(migrate_to):
    old = migrate_to([("papers", "0027_review_and_publish_at")])
    Author_ = old.get_model("papers", "Author")
    for slug, name in [
        ("unai", "Unai Fischer Abaigar"),
        ("mihaela", "Mihaela van der Schaar"),
        ("king", "Martin Luther King Jr."),
        ("zhang", "张伟"),
    ]:
        Author_.objects.create(slug=slug, name=name)

    migrate_to()

    authors = Author.objects.order_by("sort_name")
    assert [
        (author.slug, author.given_name, author.family_name, author.name_suffix, author.sort_name)
        for author in authors
    ] == [
        ("unai", "Unai Fischer", "Abaigar", "", "abaigar unai-fischer"),
        ("king", "Martin Luther", "King", "Jr.", "king martin-luther"),
        ("mihaela", "Mihaela", "van der Schaar", "", "van-der-schaar mihaela"),
        ("zhang", "", "张伟", "", "zhang-wei"),
    ]
