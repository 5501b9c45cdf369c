"""Award kinds: the kind as data (AwardKind), its page at every venue (AwardKindView),
the awards index's section of kinds, and the sitemap and static site that list them."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.models import AwardKind, Status
from pages import distill
from pages.sitemaps import SITEMAPS
from tests import factories
from tests.html import visible_text


def _kind(**fields):
    values = {
        "slug": "test-of-time",
        "name_en": "Test of time award",
        "name_zh_hans": "时间检验奖",
        "description_en": "An award for papers of an earlier edition.",
        "description_zh_hans": "表彰往届论文的奖项。",
    }
    return AwardKind.objects.create(**{**values, **fields})


def _given(kind, venue, year, winners=1, mentions=0, **fields):
    """An award of ``kind`` at ``venue``'s conference of ``year``, with its papers."""
    conference = factories.conference(
        venue=venue,
        year=year,
        name_en=f"{venue.acronym} {year}",
        name_zh_hans=f"{venue.acronym} {year}",
        start_date=datetime.date(year, 7, 1),
        end_date=datetime.date(year, 7, 5),
    )
    award = factories.award(
        conference=conference,
        kind=kind,
        name_en=f"{venue.acronym} Test of Time Award",
        name_zh_hans=f"{venue.acronym} 时间检验奖",
        **fields,
    )
    for n in range(winners + mentions):
        level = "winner" if n < winners else "honourable-mention"
        paper = factories.paper(
            title_en=f"Paper {venue.acronym} {year}-{n}",
            authors=[factories.author(), factories.author()],
            links=[("arxiv", f"https://arxiv.org/abs/{year}.{n:05d}")],
        )
        factories.award_entry(award, paper, level=level, position=n)
    return award


def test_kind_is_named_keyed_by_slug_and_published_by_its_awards(db):
    kind = _kind()
    other = _kind(slug="best-paper", name_en="Best paper award")

    assert str(kind) == "Test of time award"
    assert kind.natural_key() == ("test-of-time",)
    assert AwardKind.objects.get_by_natural_key("test-of-time") == kind
    assert kind.get_absolute_url() == "/en/awards/kinds/test-of-time/"
    assert list(AwardKind.objects.published()) == []

    _given(kind, factories.venue(), 2025)
    _given(other, factories.venue(), 2024, status=Status.DRAFT)

    assert list(AwardKind.objects.published()) == [kind]


def test_kind_page_lists_every_venue_newest_first_winners_before_mentions(client, db):
    kind = _kind()
    icml, acl = factories.venue(acronym="ICML"), factories.venue(acronym="ACL")
    _given(kind, icml, 2023)
    _given(kind, acl, 2025, winners=1, mentions=1)
    _given(kind, icml, 2024)
    factories.award(conference=factories.conference(venue=acl, year=2026))  # no kind

    response = client.get("/en/awards/kinds/test-of-time/")
    text = visible_text(response.content.decode())

    assert [award.conference.name_en for award in response.context["awards"]] == [
        "ACL 2025",
        "ICML 2024",
        "ICML 2023",
    ]
    assert "Test of time award" in text
    assert "3 awards at every venue, the newest first" in text
    assert text.index("ACL 2025") < text.index("ICML 2024") < text.index("ICML 2023")
    assert text.index("Winner Paper ACL 2025-0") < text.index("Honourable mention")
    assert text.index("Honourable mention") < text.index("Paper ACL 2025-1")


def test_kind_page_in_chinese(client, db):
    _given(_kind(), factories.venue(acronym="ICML"), 2025)

    text = visible_text(client.get("/zh-hans/awards/kinds/test-of-time/").content.decode())

    assert "时间检验奖" in text
    assert "共 1 个奖项，按时间由新到旧" in text
    assert "表彰往届论文的奖项。" in text
    assert "ICML 时间检验奖" in text


def test_kind_page_leaves_out_draft_awards_and_conferences(client, db):
    kind, venue = _kind(), factories.venue()
    _given(kind, venue, 2025)
    _given(kind, venue, 2024, status=Status.DRAFT)
    hidden = _given(kind, venue, 2023)
    hidden.conference.status = Status.DRAFT
    hidden.conference.save()

    response = client.get("/en/awards/kinds/test-of-time/")

    assert [award.conference.year for award in response.context["awards"]] == [2025]


@pytest.mark.parametrize("slug", ["nope", "best-paper"])
def test_unknown_kind_or_one_without_published_awards_is_404(client, db, slug):
    _given(_kind(), factories.venue(), 2025)
    _given(_kind(slug="best-paper", name_en="Best paper award"), factories.venue(), 2024)
    AwardKind.objects.get(slug="best-paper").awards.update(status=Status.DRAFT)

    assert client.get(f"/en/awards/kinds/{slug}/").status_code == 404


def test_kind_page_has_collection_page_metadata(client, db):
    _given(_kind(), factories.venue(acronym="ICML"), 2025)

    html = client.get("/en/awards/kinds/test-of-time/").content.decode()

    assert '"@type":"CollectionPage"' in html
    assert '"name":"ICML 2025 ICML Test of Time Award"' in html
    assert '<meta property="og:title" content="Test of time award">' in html


def test_kind_page_queries_do_not_grow_with_awards_and_papers(client, db):
    def queries():
        with CaptureQueriesContext(connection) as captured:
            response = client.get("/en/awards/kinds/test-of-time/")
        assert response.status_code == 200
        return len(captured)

    kind = _kind()
    _given(kind, factories.venue(), 2010)
    one = queries()
    for year in range(2011, 2016):
        _given(kind, factories.venue(), year, winners=2, mentions=2)

    # The kind; its awards; their entries; the entries' authorships and links.
    assert queries() == one == 5


def test_awards_index_links_each_kind_with_its_count(client, db):
    kind = _kind()
    _given(kind, factories.venue(), 2025)
    _given(kind, factories.venue(), 2024)
    _kind(slug="best-paper", name_en="Best paper award")  # no award: not listed

    text = visible_text(client.get("/en/awards/").content.decode())
    html = client.get("/zh-hans/awards/").content.decode()

    assert "Kinds of award, at every venue Test of time award 2 awards" in text
    assert "Best paper award" not in text
    assert '<a class="index-name" href="/zh-hans/awards/kinds/test-of-time/">时间检验奖</a>' in html


def test_sitemap_and_static_site_list_the_published_kinds(client, db):
    _given(_kind(), factories.venue(), 2025)
    _kind(slug="best-paper", name_en="Best paper award")

    xml = client.get("/sitemap-award-kinds.xml").content.decode()

    assert list(distill.award_kinds()) == [{"slug": "test-of-time"}]
    assert list(SITEMAPS["award-kinds"].items()) == ["test-of-time"]
    assert "http://testserver/en/awards/kinds/test-of-time/" in xml
    assert "http://testserver/zh-hans/awards/kinds/test-of-time/" in xml
    assert "best-paper" not in xml


def test_shipped_awards_have_their_kinds(icml, client):
    response = client.get("/en/awards/kinds/test-of-time/")
    awards = {kind.slug: [a.slug for a in kind.awards.all()] for kind in AwardKind.objects.all()}

    assert awards == {
        "best-paper": ["outstanding-paper"],
        "best-position-paper": ["outstanding-position-paper"],
        "test-of-time": ["test-of-time"],
    }
    assert [award.slug for award in response.context["awards"]] == ["test-of-time"]


def test_award_page_links_to_its_kind(client, db):
    award = _given(_kind(), factories.venue(acronym="ICML"), 2025)
    plain = factories.award(conference=award.conference, slug="prize")

    html = client.get(award.get_absolute_url()).content.decode()
    chinese = client.get(f"/zh-hans{award.get_absolute_url().removeprefix('/en')}")

    assert 'Kind of award: <a href="/en/awards/kinds/test-of-time/">Test of time award</a>' in html
    assert '奖项类型： <a href="/zh-hans/awards/kinds/test-of-time/">时间检验奖</a>' in (
        chinese.content.decode()
    )
    assert "Kind of award:" not in client.get(plain.get_absolute_url()).content.decode()
