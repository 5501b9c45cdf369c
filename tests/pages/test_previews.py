"""Previews of drafts (issue 29, item 5): a draft conference or award, imported as a draft
with its awards and papers, shows its editors everything its public page will show once
published, and none of it reaches visitors, the cache, feeds, sitemaps or the API."""

import pytest

from catalogue.models import Status
from editorial.roles import create_editor
from tests import factories


@pytest.fixture
def editor_client(client, db):
    client.force_login(create_editor("editor", "editor@example.org", "a-long-editor-passphrase"))
    return client


@pytest.fixture
def imported_draft(db):
    """A conference imported as a draft: its award, level and papers are drafts too, and
    its Test-of-Time paper was published at an earlier edition created as a draft."""
    draft = Status.DRAFT
    conference = factories.conference(status=draft, name_en="Draft Conference 2026")
    earlier = factories.conference(status=draft, name_en="Draft Conference 2016")
    award = factories.award(conference=conference, status=draft, name_en="Outstanding Paper")
    test_of_time = factories.award(conference=conference, status=draft, name_en="Test of Time")
    new = factories.paper(conference=conference, status=draft, title_en="A Draft Outstanding Paper")
    old = factories.paper(conference=earlier, status=draft, title_en="A Paper of Long Ago")
    factories.award_entry(award, new)
    factories.award_entry(test_of_time, old)
    other = factories.paper(conference=conference, status=draft, title_en="An Unawarded Draft")
    return {
        "conference": conference,
        "award": award,
        "test_of_time": test_of_time,
        "papers": [new, old, other],
    }


def test_preview_of_a_draft_conference_shows_its_draft_awards_and_papers(
    editor_client, imported_draft
):
    url = imported_draft["conference"].get_absolute_url()

    html = editor_client.get(f"{url}?preview=1").content.decode()
    body = html.split("<body", 1)[1]  # the head's JSON-LD names them too

    assert [name in body for name in ("Outstanding Paper", "Test of Time")] == [True, True]
    titles = [paper.title_en for paper in imported_draft["papers"]]
    assert [body.count(title) for title in titles] == [1, 1, 1]


@pytest.mark.parametrize(
    ("award", "title"),
    [("award", "A Draft Outstanding Paper"), ("test_of_time", "A Paper of Long Ago")],
)
def test_preview_of_a_draft_award_shows_its_draft_papers(
    editor_client, imported_draft, award, title
):
    url = imported_draft[award].get_absolute_url()

    html = editor_client.get(f"{url}?preview=1").content.decode()

    assert html.split("<body", 1)[1].count(title) == 1  # the head's JSON-LD names it too


def test_a_published_conference_shows_no_draft_award_or_paper(client, editor_client, db):
    conference = factories.conference()
    award = factories.award(conference=conference, status=Status.DRAFT, name_en="Secret award")
    factories.award_entry(award, factories.paper(conference=conference, title_en="Public paper"))
    public_award = factories.award(conference=conference, name_en="Public award")
    draft = factories.paper(conference=conference, status=Status.DRAFT, title_en="Secret paper")
    factories.award_entry(public_award, draft)

    html = client.get(conference.get_absolute_url()).content.decode()

    assert ["Secret award" in html, "Secret paper" in html] == [False, False]
    assert ["Public award" in html, "Public paper" in html] == [True, True]


def test_nothing_previewed_reaches_visitors(client, editor_client, imported_draft):
    urls = [imported_draft[name].get_absolute_url() for name in ("conference", "award")]
    urls += [paper.get_absolute_url() for paper in imported_draft["papers"]]
    for url in urls:
        assert editor_client.get(f"{url}?preview=1").status_code == 200
    client.logout()

    public = [client.get(url).status_code for url in urls]
    pages = ["/en/", "/en/conferences/", "/en/awards/", "/en/feeds/awards.atom", "/sitemap.xml"]
    pages += ["/sitemap-papers.xml", "/api/v1/conferences", "/api/v1/papers", "/api/v1/awards"]
    texts = [client.get(url).content.decode() for url in pages]

    assert public == [404] * len(urls)
    leaked = [
        (url, name)
        for url, text in zip(pages, texts, strict=True)
        for name in ("Draft Conference", "Outstanding Paper", "A Draft", "Long Ago")
        if name in text
    ]
    assert leaked == []
