"""Lists of papers: their data (catalogue/listing.py), queries and markup
(templates/papers/lists/, rendered by Jinja2 through pages/templatetags/paper_lists.py)."""

import re

import pytest
from django.template import engines
from django.utils import translation

from catalogue import listing
from catalogue.models import AwardEntry, Paper, PaperLink, Status
from tests import factories

pytestmark = pytest.mark.django_db


def _listed(*papers, badges=True, links=True):
    lists = listing.PageLists()
    queryset = Paper.objects.filter(pk__in=[p.pk for p in papers]).order_by("pk")
    listed = lists.papers(listing.papers(queryset), badges=badges, links=links)
    lists.fetch()
    return listed


def test_lists_give_authors_in_order_links_in_kind_order_and_badges_top_level_first():
    first, second = factories.author(name="Zoe First"), factories.author(name="Adam Second")
    paper = factories.paper(
        authors=[first, second],
        links=[(PaperLink.Kind.CODE, "https://c.example/"), ("pmlr", "https://p.example/")],
    )
    mention = factories.award(name_en="Older Award", conference=factories.conference(year=1990))
    best = factories.award(name_en="Best Paper", conference=factories.conference(year=1980))
    factories.award_level(mention, "winner")
    factories.award_entry(mention, paper, level="honourable-mention")
    factories.award_entry(best, paper, level="winner")

    (listed,) = _listed(paper)

    authors = [(author["name"], author["slug"]) for author in listed.listed_authors]
    assert authors == [("Zoe First", first.slug), ("Adam Second", second.slug)]
    links = [(link.kind, link.url) for link in listed.listed_links]
    assert links == [("pmlr", "https://p.example/"), ("code", "https://c.example/")]
    # The top level first, whatever the year; then each badge's rank and level.
    assert [(b.award.name_en, b.level_rank, b.is_top_level) for b in listed.listed_badges] == [
        ("Best Paper", 0, True),
        ("Older Award", 1, False),
    ]


def test_page_lists_fetch_in_three_queries_however_many_papers(django_assert_num_queries):
    def papers(count):
        made = []
        for n in range(count):
            paper = factories.paper(
                authors=[factories.author(), factories.author()],
                links=[("arxiv", f"https://arxiv.org/abs/{n}")],
            )
            factories.award_entry(factories.award(), paper)
            made.append(paper)
        return listing.papers(Paper.objects.filter(pk__in=[p.pk for p in made]))

    for count in (1, 12):
        rows = papers(count)
        lists = listing.PageLists()
        lists.papers(rows)

        with django_assert_num_queries(3):  # authors, links, badges
            lists.fetch()

        assert [len(row.listed_authors) for row in rows] == [2] * count
        assert [len(row.listed_badges) for row in rows] == [1] * count


def test_nothing_to_list_costs_no_query(django_assert_num_queries):
    lists = listing.PageLists()

    with django_assert_num_queries(0):
        awards = lists.awards([], AwardEntry.objects.published())
        lists.papers([])
        lists.fetch()

    assert awards == []


def test_a_paper_in_two_awards_of_a_conference_lists_its_authors_under_both(client):
    conference = factories.conference()
    person = factories.author(name="Ada Twice")
    paper = factories.paper(conference=conference, authors=[person])
    for name in ("Best Paper", "Test of Time"):
        factories.award_entry(factories.award(conference=conference, name_en=name), paper)

    html = client.get(conference.get_absolute_url()).content.decode()

    assert html.count(f'<a href="{person.get_absolute_url()}">Ada Twice</a>') == 2


def _jinja(name, **values):
    return engines["jinja2"].get_template(f"papers/lists/{name}.html").render(values)


def _render(paper, language, heading=4, **options):
    """The list item of ``paper`` in ``language``, as a conference page lists it, its
    runs of white space made one space (none between tags), as browsers show it."""
    with translation.override(language):
        (row,) = _listed(paper)
        return _spaces(_jinja("paper_list", papers=[row], heading=heading, **options))


def _spaces(html):
    return re.sub(r"> <", "><", re.sub(r"\s+", " ", html)).strip()


def test_a_list_item_has_the_markup_of_the_lists():
    conference = factories.conference(name_en="ICML 2031", name_zh_hans="")
    paper = factories.paper(
        conference=conference,
        slug="a-paper",
        title_en="A <b>bold</b> paper",
        title_zh_hans="",
        abstract_en="A lead & more. Rest.",
        abstract_zh_hans="",
        authors=[factories.author(slug="ann", name="Ann O'Neil"), factories.author(slug="bo")],
        links=[("arxiv", "https://arxiv.org/abs/1?a=1&b=2")],
    )
    award = factories.award(conference=conference, slug="best", name_en="Best", name_zh_hans="")
    factories.award_level(award, "winner")
    factories.award_entry(award, paper, level="runner-up")

    html = _render(paper, "zh-hans", heading=3, show_awards=True)

    icon = _jinja("award_icon", tier=2)
    assert html == _spaces(
        '<article class="paper-item">\n'
        '  <h3 class="paper-title"><a href="/zh-hans/papers/a-paper/">'
        '<span lang="en" class="untranslated">A &lt;b&gt;bold&lt;/b&gt; paper</span></a></h3>\n'
        '  <p class="authors"><span class="visually-hidden">作者： </span>'
        '<a href="/zh-hans/authors/ann/">Ann O&#x27;Neil</a>、'
        f'<a href="/zh-hans/authors/bo/">{paper.authors.get(slug="bo").name}</a></p>\n'
        '  <p class="paper-lead"><span lang="en" class="untranslated">A lead &amp; more.</span>'
        "</p>\n"
        f'  <p class="award-badge"><span class="badge tier-2">{icon}'
        '<a href="/zh-hans/conferences/{conference}/awards/best/"><span lang="en">ICML 2031</span> '
        '<span lang="en" class="untranslated">Best</span></a>'
        '<span class="award-badge-level level-runner-up">（亚军论文）</span></span></p>\n'
        '  <ul class="links"><li><a href="https://arxiv.org/abs/1?a=1&amp;b=2" rel="external">'
        "arXiv</a></li></ul>\n"
        "</article>\n"
    ).replace("{conference}", conference.slug)


def test_a_list_item_shows_maths_in_its_title_as_mathml():
    paper = factories.paper(title_en="Bounds for $x^2$")

    html = _render(paper, "en")

    assert "<math" in html
    assert "$x^2$" not in html


def test_an_author_page_item_says_where_and_with_which_affiliation(client):
    person = factories.author()
    paper = factories.paper(
        authors=[person], affiliations=[factories.institution(name_en="MIT", name_zh_hans="")]
    )

    html = client.get("/zh-hans" + person.get_absolute_url().removeprefix("/en")).content.decode()

    conference = paper.conference.name_zh_hans
    assert (
        f'<p class="paper-meta">发表于 {conference} · 所属机构： <span lang="en">MIT</span></p>'
    ) in html


def test_with_level_rank_counts_the_levels_above_as_in_level_order_does():
    award = factories.award()
    factories.award_level(award, "winner", position=1)
    factories.award_level(award, "runner-up", position=5)
    factories.award_level(award, "finalist", position=9)
    for slug in ("winner", "runner-up", "finalist"):
        factories.award_entry(award, factories.paper(), level=slug)
    entries = AwardEntry.objects.filter(award=award)

    counted = {
        row["level__slug"]: row["level_rank"]
        for row in entries.with_level_rank().values("level__slug", "level_rank")
    }
    annotated = {entry.level.slug: entry.level_rank for entry in entries.in_level_order()}

    assert counted == annotated == {"winner": 0, "runner-up": 1, "finalist": 2}


def test_the_paper_page_badges_and_links_have_the_list_markup(client):
    paper = factories.paper(links=[("code", "https://c.example/"), ("pmlr", "https://p.example/")])
    award = factories.award(slug="best")
    factories.award_entry(award, paper)

    html = client.get(paper.get_absolute_url()).content.decode()

    assert (
        '<ul class="links"><li><a href="https://p.example/" rel="external">PMLR proceedings</a>'
        '</li><li><a href="https://c.example/" rel="external">Code</a></li></ul>'
    ) in html
    assert (
        f'<dd class="award-badge"><span class="badge tier-1">{_jinja("award_icon", tier=1)}'
        f'<a href="{award.get_absolute_url()}">{award.conference.name_en} {award.name_en}</a>'
        "</span></dd>"
    ) in html


def test_other_papers_count_sets_aside_each_paper_awarded_there_once(client):
    conference = factories.conference()
    first, second = factories.award(conference=conference), factories.award(conference=conference)
    twice = factories.paper(conference=conference)
    factories.award_entry(first, twice)
    factories.award_entry(second, twice)
    # Honoured here, published elsewhere (a test-of-time award): not this conference's.
    factories.award_entry(first, factories.paper())
    # Awarded by a draft award: still among the other papers.
    factories.award_entry(
        factories.award(conference=conference, status=Status.DRAFT),
        factories.paper(conference=conference),
    )
    # A draft paper in a published award: neither listed nor counted.
    factories.award_entry(second, factories.paper(conference=conference, status=Status.DRAFT))
    elsewhere = factories.paper(conference=conference)
    factories.award_entry(factories.award(), elsewhere)
    queryset = Paper.objects.published().published_without_award_at(conference)

    page = client.get(conference.get_absolute_url()).context["page_obj"]

    assert page.paginator.count == queryset.count() == 2


def test_other_papers_of_a_conference_without_any_is_one_empty_page(client):
    conference = factories.conference()

    page = client.get(conference.get_absolute_url()).context["page_obj"]

    assert (page.number, list(page)) == (1, [])


def test_badges_are_those_of_published_awards_at_published_conferences():
    paper = factories.paper()
    shown = factories.award(name_en="Shown Award")
    factories.award_entry(shown, paper)
    factories.award_entry(factories.award(name_en="Draft Award", status=Status.DRAFT), paper)
    hidden = factories.conference(status=Status.DRAFT)
    factories.award_entry(factories.award(name_en="Hidden Award", conference=hidden), paper)
    draft = factories.paper(status=Status.DRAFT)
    factories.award_entry(shown, draft)

    listed, listed_draft = _listed(paper, draft)

    assert [badge.award.name_en for badge in listed.listed_badges] == ["Shown Award"]
    assert listed_draft.listed_badges == []
    assert list(AwardEntry.objects.published().values_list("award__name_en", flat=True)) == [
        "Shown Award"
    ]
