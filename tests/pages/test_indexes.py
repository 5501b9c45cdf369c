"""The index pages' substance (issue 31): counts, years, latest winners, the letter
bar's counts, and the API's documentation inside the site's header and footer."""

import re

import pytest
from django.utils import translation

from catalogue.models import AwardKind, Status
from pages import distill
from pages.views import indexes
from pages.views.indexes import LATEST_WINNERS_SHOWN
from tests import factories
from tests.html import visible_text


def _venue_with_editions(years, awarded_per_edition=2):
    """A venue with a published conference each of ``years``, each with an award of
    ``awarded_per_edition`` winners, each with two authors."""
    venue = factories.venue()
    for year in years:
        conference = factories.conference(venue=venue, year=year)
        award = factories.award(conference=conference, slug="best")
        for n in range(awarded_per_edition):
            paper = factories.paper(
                conference=conference, authors=[factories.author(), factories.author()]
            )
            factories.award_entry(award, paper, position=n)
    return venue


# Venues ----------------------------------------------------------------------------


def test_venue_index_counts_editions_awards_and_awarded_papers(client, db):
    """Awarded papers are counted once however many awards they won at the venue; a
    draft conference, a draft award and a draft paper count for nothing."""
    venue = factories.venue(slug="neurips", acronym="NeurIPS", name_en="NeurIPS")
    old = factories.conference(venue=venue, year=2019, slug="neurips-2019")
    new = factories.conference(venue=venue, year=2024, slug="neurips-2024")
    factories.conference(venue=venue, year=2025, status=Status.DRAFT)
    twice = factories.paper(conference=old)
    factories.award_entry(factories.award(conference=old), twice)
    test_of_time = factories.award(conference=new)
    factories.award_entry(test_of_time, twice)
    factories.award_entry(test_of_time, factories.paper(conference=new))
    factories.award_entry(test_of_time, factories.paper(conference=new, status=Status.DRAFT))
    factories.award_entry(
        factories.award(conference=new, status=Status.DRAFT), factories.paper(conference=new)
    )

    response = client.get("/en/venues/")
    text = visible_text(response.content.decode())
    html = response.content.decode()

    assert "2 editions, 2019–2024 2 awards 2 awarded papers Latest edition:" in text
    assert re.findall(r'<li><a href="/en/conferences/([^/"]+)/">(\d+)</a></li>', html) == [
        ("neurips-2024", "2024"),
        ("neurips-2019", "2019"),
    ]
    venue_row = response.context["venues"][0]
    assert (venue_row.award_count, venue_row.awarded_count, venue_row.edition_count) == (2, 2, 2)


def test_venue_index_in_chinese_counts_in_chinese(client, db):
    _venue_with_editions([2030, 2031])

    text = visible_text(client.get("/zh-hans/venues/").content.decode())

    assert "2 届，2030–2031 年 2 个奖项 4 篇获奖论文 最新一届： 会议" in text


@pytest.mark.django_db
def test_venue_index_queries_do_not_grow_with_editions(assert_queries):
    _venue_with_editions([2030], awarded_per_edition=1)
    # The venues with their counts and years; their editions.
    assert_queries("/en/venues/", 2)
    for _ in range(3):
        _venue_with_editions([2030, 2031, 2032])

    response = assert_queries("/en/venues/", 2)

    assert sorted(len(venue.editions) for venue in response.context["venues"]) == [1, 3, 3, 3]


# Conferences ---------------------------------------------------------------------


def test_conference_index_counts_awards_awarded_and_published_papers(client, db):
    """A Test of Time award's papers are awarded at the conference that gave it, and
    published at the earlier one."""
    venue = factories.venue()
    old = factories.conference(venue=venue, year=2015, slug="v-2015")
    new = factories.conference(venue=venue, year=2025, slug="v-2025")
    classic = factories.paper(conference=old)
    factories.paper(conference=old)
    best, test_of_time = factories.award(conference=new), factories.award(conference=new)
    factories.award_entry(best, factories.paper(conference=new))
    factories.award_entry(best, factories.paper(conference=new), level="honourable-mention")
    factories.award_entry(test_of_time, classic)

    text = visible_text(client.get("/en/conferences/").content.decode())

    assert "2 awards 3 awarded papers 2 papers published there" in text
    assert "No awards of its own listed 2 papers published there" in text


# Awards --------------------------------------------------------------------------


def test_award_index_shows_the_newest_editions_winners_not_its_mentions(client, db):
    venue = factories.venue()
    old = factories.award(conference=factories.conference(venue=venue, year=2020), slug="best")
    new = factories.award(conference=factories.conference(venue=venue, year=2021), slug="best")
    factories.award_entry(old, factories.paper(title_en="Old winner"))
    winner = factories.paper(
        title_en="New winner",
        authors=[
            factories.author(slug="ada", name="Ada Lovelace"),
            factories.author(slug="alan", name="Alan Turing"),
        ],
    )
    factories.award_entry(new, winner)
    factories.award_entry(new, factories.paper(title_en="A mention"), level="honourable-mention")

    html = client.get("/en/awards/").content.decode()
    text = visible_text(html)

    assert "Latest winner, 2021 New winner Ada Lovelace, Alan Turing" in text
    assert "Old winner" not in text
    assert "A mention" not in text
    assert f'<a class="paper-title" href="/en/papers/{winner.slug}/">New winner</a>' in html
    assert '<a href="/en/authors/ada/">Ada Lovelace</a>' in html


def test_award_index_winners_are_the_top_level_whatever_its_name(client, db):
    """The top level is the level of the lowest position, not one named "winner"."""
    award = factories.award()
    gold = factories.award_level(award, "gold", position=0)
    factories.award_entry(award, factories.paper(title_en="Second place"), level="winner")
    factories.award_entry(award, factories.paper(title_en="First place"), level=gold)

    text = visible_text(client.get("/en/awards/").content.decode())

    assert "First place" in text
    assert "Second place" not in text


def test_award_index_without_a_winner_at_the_top_level_shows_none(client, db):
    award = factories.award()
    factories.award_level(award, "winner")
    factories.award_entry(award, factories.paper(title_en="A mention"), level="honourable-mention")

    text = visible_text(client.get("/en/awards/").content.decode())

    assert "Latest winner" not in text
    assert "A mention" not in text


def test_award_index_names_how_many_more_winners_the_award_page_lists(client, db):
    award = factories.award()
    for n in range(LATEST_WINNERS_SHOWN + 2):
        factories.award_entry(award, factories.paper(title_en=f"Winner {n}"), position=n)

    html = client.get("/en/awards/").content.decode()
    zh = visible_text(client.get("/zh-hans/awards/").content.decode())

    shown = re.findall(r'<a class="paper-title" href="[^"]+">Winner (\d)</a>', html)
    assert shown == [str(n) for n in range(LATEST_WINNERS_SHOWN)]
    with translation.override("en"):
        assert f'<a href="{award.get_absolute_url()}">and 2 more</a>' in html
    assert f"{award.conference.year} 年最新获奖论文" in zh
    assert "另有 2 篇" in zh


@pytest.mark.django_db
def test_award_index_queries_do_not_grow_with_series_and_winners(assert_queries):
    _venue_with_editions([2030], awarded_per_edition=1)
    # The awards; the newest editions' entries; their papers' authors; the kinds of award.
    assert_queries("/en/awards/", 4)
    for _ in range(3):
        _venue_with_editions([2030, 2031], awarded_per_edition=3)

    html = assert_queries("/en/awards/", 4).content.decode()

    shown = 1 + 3 * min(3, LATEST_WINNERS_SHOWN)
    assert html.count('<a class="paper-title"') == shown
    assert html.count('class="authors"') == shown


# Authors -------------------------------------------------------------------------


def test_award_index_pages_its_series_and_publishes_every_page(client, db, monkeypatch):
    monkeypatch.setattr(indexes, "AWARD_SERIES_PAGE_SIZE", 2)
    monkeypatch.setattr(distill, "AWARD_SERIES_PAGE_SIZE", 2)
    conference = factories.conference()
    kind = AwardKind.objects.create(slug="test-of-time", name_en="Test of time award")
    for slug in ("alpha", "beta", "gamma"):
        award = factories.award(conference=conference, slug=slug, name_en=slug, kind=kind)
        factories.award_entry(award, factories.paper(conference=conference))

    first = client.get("/en/awards/").content.decode()
    second = client.get("/en/awards/page/2/")

    assert re.findall(r'<a class="index-name"[^>]*>(\w+)</a>', first) == ["alpha", "beta"]
    assert '<nav class="pagination"' in first and 'href="/en/awards/page/2/"' in first
    assert "Test of time award" in first  # the kinds of award: on the first page only
    html = second.content.decode()
    assert re.findall(r'<a class="index-name"[^>]*>(\w+)</a>', html) == ["gamma"]
    assert "<title>Awards · Page 2 of 2" in html and "Test of time award" not in html
    assert client.get("/en/awards/page/3/").status_code == 404
    assert client.get("/en/awards/page/1/").status_code == 301
    assert list(distill.award_list_pages()) == [{"page": 2}]


def test_author_index_counts_authors_per_letter_and_awarded_papers(client, db):
    ada = factories.author(slug="ada", name="Ada Lovelace")
    alan = factories.author(slug="alan", name="Alan Lambert")
    bo = factories.author(slug="bo", name="Bo Zhang")
    award = factories.award()
    for _ in range(2):
        factories.award_entry(award, factories.paper(authors=[ada, bo]))
    factories.paper(authors=[ada, alan])  # published, no award
    draft_award = factories.award(status=Status.DRAFT)
    factories.award_entry(draft_award, factories.paper(authors=[alan]))

    response = client.get("/en/authors/")
    html = response.content.decode()
    counts = {item["code"]: item["count"] for item in response.context["letters"]}
    by_slug = {author.slug: author.awarded_papers for author in response.context["authors"]}

    assert (counts["l"], counts["z"], counts["a"], response.context["author_count"]) == (2, 1, 0, 3)
    assert '<a href="/en/authors/letter/l/">L <small>2</small></a>' in html
    assert '<span class="unused">A</span>' in html
    assert by_slug == {"ada": 2, "alan": 0, "bo": 2}
    assert (
        '<a href="/en/authors/ada/">Lovelace, Ada</a> <span class="count">2 awarded papers</span>'
        in html
    )
    assert '<a href="/en/authors/alan/">Lambert, Alan</a></li>' in html


def test_author_index_in_chinese_counts_awarded_papers_in_chinese(client, db):
    factories.award_entry(
        factories.award(), factories.paper(authors=[factories.author(name="Ada Lovelace")])
    )

    text = visible_text(client.get("/zh-hans/authors/").content.decode())

    assert "全部 1" in text
    assert "Lovelace, Ada 1 篇获奖论文" in text


# The API's documentation -------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "title", "home"),
    [
        ("/en/open-data/api/", "API documentation", "/en/"),
        ("/zh-hans/open-data/api/", "API 文档", "/zh-hans/"),
    ],
)
def test_api_docs_page_is_in_the_sites_header_and_footer(client, db, url, title, home):
    response = client.get(url)
    html = response.content.decode()

    assert response.status_code == 200
    assert f"<h1>{title}</h1>" in html
    assert f'<a class="site-name" href="{home}">' in html
    assert '<footer class="site-footer">' in html
    assert f'<a href="{home}open-data/">' in html  # the breadcrumb back to the open data
    assert '<script type="application/json" id="swagger-settings">' in html
    assert re.search(r'<script src="/static/ninja/swagger-ui-bundle(\.[0-9a-f]+)?\.js">', html)
    assert re.search(
        r'<link rel="stylesheet" href="/static/ninja/swagger-ui(\.[0-9a-f]+)?\.css">', html
    )
    assert "img-src 'self' data:" in response["Content-Security-Policy"]
    assert "script-src 'self';" in response["Content-Security-Policy"] + ";"


def test_api_docs_at_the_apis_own_address_has_the_site_around_it(client, db):
    html = client.get("/api/v1/docs").content.decode()

    assert '<header class="site-header">' in html
    assert '<footer class="site-footer">' in html
    assert '<div id="swagger-ui" class="api-docs" lang="en"></div>' in html


def test_open_data_page_links_to_the_api_docs_in_its_language(client, db):
    html = client.get("/zh-hans/open-data/").content.decode()

    assert '<a href="/zh-hans/open-data/api/">' in html
