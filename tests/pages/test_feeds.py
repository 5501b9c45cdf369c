"""The Atom feeds of newly published awards (pages/feeds.py)."""

import datetime
import xml.etree.ElementTree as ET

import pytest
import reversion

from catalogue.models import Award, Status
from tests import factories

ATOM = {"a": "http://www.w3.org/2005/Atom"}
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def _feed(client, language):
    response = client.get(f"/{language}/feeds/awards.atom")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/atom+xml; charset=utf-8"
    return ET.fromstring(response.content)


@pytest.mark.parametrize(
    ("language", "title", "entry"),
    [
        ("en", "Newly published conference awards", "ICML 2025: Outstanding Paper Award"),
        ("zh-hans", "最新发布的会议奖项", "ICML 2025：杰出论文奖"),
    ],
)
def test_feed_per_language_declares_its_language(icml, client, language, title, entry):
    feed = _feed(client, language)

    assert feed.get(XML_LANG) == language
    assert feed.find("a:title", ATOM).text == title
    entries = feed.findall("a:entry", ATOM)
    assert [e.find("a:title", ATOM).text for e in entries][0] == entry
    assert len(entries) == 3
    link = entries[0].find("a:link", ATOM).get("href")
    assert link == f"http://testserver/{language}/conferences/icml-2025/awards/outstanding-paper/"
    assert entries[0].find("a:updated", ATOM).text == "2025-07-13T00:00:00+00:00"


def test_feed_lists_newest_conference_first_and_only_published(client, db):
    old = factories.award(
        conference=factories.conference(start_date=datetime.date(2015, 7, 6), end_date=None),
        name_en="Old",
    )
    new = factories.award(
        conference=factories.conference(start_date=datetime.date(2025, 7, 13)), name_en="New"
    )
    factories.award(status=Status.DRAFT, name_en="Draft")
    factories.award(conference=factories.conference(status=Status.DRAFT), name_en="Hidden")

    titles = [e.find("a:title", ATOM).text for e in _feed(client, "en").findall("a:entry", ATOM)]

    assert titles == [f"{new.conference.name_en}: New", f"{old.conference.name_en}: Old"]


def test_entry_without_any_date_is_dated_by_its_year_never_now(client, db):
    """A conference without dates and an award without an announcement date: the entry
    is dated 1 January of the conference's year, the same on every request (the
    feed's build time changed with each request and sorted the entry last)."""
    factories.award(conference=factories.conference(year=2031, start_date=None, end_date=None))

    dates = [
        [entry.find(f"a:{tag}", ATOM).text for tag in ("updated", "published")]
        for entry in _feed(client, "en").findall("a:entry", ATOM)
    ]

    assert dates == [["2031-01-01T00:00:00+00:00", "2031-01-01T00:00:00+00:00"]]


def test_entry_is_dated_by_the_awards_announcement_date(client, db):
    conference = factories.conference(
        year=2031, start_date=datetime.date(2031, 7, 13), end_date=datetime.date(2031, 7, 19)
    )
    factories.award(conference=conference, announced_on=datetime.date(2031, 7, 16))

    [entry] = _feed(client, "en").findall("a:entry", ATOM)

    assert entry.find("a:updated", ATOM).text == "2031-07-16T00:00:00+00:00"
    assert entry.find("a:published", ATOM).text == "2031-07-16T00:00:00+00:00"


def test_entries_are_ordered_by_announcement_then_conference_date(client, db):
    conference = factories.conference(
        year=2031, start_date=datetime.date(2031, 7, 13), end_date=datetime.date(2031, 7, 19)
    )
    factories.award(conference=conference, name_en="Opening", position=1)
    factories.award(
        conference=conference,
        name_en="Closing",
        position=2,
        announced_on=datetime.date(2031, 7, 19),
    )
    undated = factories.conference(year=2031, start_date=None, end_date=None)
    factories.award(conference=undated, name_en="Undated")

    entries = _feed(client, "en").findall("a:entry", ATOM)

    assert [entry.find("a:title", ATOM).text.split(": ")[1] for entry in entries] == [
        "Closing",
        "Opening",
        "Undated",
    ]


def test_feed_entry_lists_the_award_papers(client, db):
    award = factories.award()
    paper = factories.paper(conference=award.conference, title_en="Winning <paper>")
    factories.award_entry(award, paper)

    [entry] = _feed(client, "en").findall("a:entry", ATOM)

    assert "<li>Winning &lt;paper&gt;</li>" in entry.find("a:summary", ATOM).text


def test_pages_link_to_the_feed_in_their_language(icml, client):
    html = client.get("/zh-hans/papers/collabllm/").content.decode()

    assert (
        '<link rel="alternate" type="application/atom+xml" title="最新发布的会议奖项" '
        'href="http://testserver/zh-hans/feeds/awards.atom">'
    ) in html


def test_feed_queries_do_not_grow_with_awards(client, db, django_assert_num_queries):
    factories.award_entry(factories.award(), factories.paper(authors=[factories.author()]))
    with django_assert_num_queries(2):
        _feed(client, "en")
    for _ in range(5):
        award = factories.award()
        for _ in range(3):
            factories.award_entry(award, factories.paper(authors=[factories.author()]))

    with django_assert_num_queries(2):
        _feed(client, "en")
    assert Award.objects.count() == 6


@pytest.mark.parametrize(
    ("language", "author"), [("en", "Conference Awards"), ("zh-hans", "会议奖项")]
)
def test_feed_names_its_author_as_atom_requires(icml, client, language, author):
    feed = _feed(client, language)

    assert feed.find("a:author/a:name", ATOM).text == author


def test_feed_entry_names_each_level_top_level_first(client, db):
    award = factories.award()
    for slug, title in [("finalist", "A finalist"), ("winner", "The winner")]:
        paper = factories.paper(conference=award.conference, title_en=title)
        factories.award_entry(award, paper, level=slug)

    [entry] = _feed(client, "en").findall("a:entry", ATOM)

    summary = entry.find("a:summary", ATOM).text
    assert summary.index("<p>Winner</p>") < summary.index("<li>The winner</li>")
    assert summary.index("<li>The winner</li>") < summary.index("<p>Finalist</p>")
    assert summary.index("<p>Finalist</p>") < summary.index("<li>A finalist</li>")


def _saved_at(obj, when):
    """Save ``obj`` in a revision of its history dated ``when`` (as the admin would)."""
    with reversion.create_revision():
        reversion.set_date_created(when)
        obj.save()


def test_entry_is_updated_when_its_award_last_changed(client, db):
    day = datetime.date(2031, 5, 1)
    conference = factories.conference(start_date=day, end_date=None)
    edited = factories.award(conference=conference, position=1, name_en="Edited")
    again = factories.award(conference=conference, position=2, name_en="Edited twice")
    untouched = factories.award(conference=conference, position=3, name_en="Untouched")
    _saved_at(edited, datetime.datetime(2031, 6, 2, 9, 30, tzinfo=datetime.UTC))
    _saved_at(again, datetime.datetime(2031, 6, 2, 9, 30, tzinfo=datetime.UTC))
    _saved_at(again, datetime.datetime(2031, 7, 3, 18, 5, tzinfo=datetime.UTC))

    entries = _feed(client, "en").findall("a:entry", ATOM)

    dates = {
        e.find("a:title", ATOM).text.split(": ")[1]: (
            e.find("a:updated", ATOM).text,
            e.find("a:published", ATOM).text,
        )
        for e in entries
    }
    assert dates == {
        "Edited": ("2031-06-02T09:30:00+00:00", "2031-05-01T00:00:00+00:00"),
        "Edited twice": ("2031-07-03T18:05:00+00:00", "2031-05-01T00:00:00+00:00"),
        "Untouched": ("2031-05-01T00:00:00+00:00", "2031-05-01T00:00:00+00:00"),
    }
    assert untouched.pk
