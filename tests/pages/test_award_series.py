"""The award series page: one award across a venue's editions (AwardSeriesView)."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.models import Status
from tests import factories
from tests.html import visible_text


def _edition(venue, year, winners=1, mentions=0, **fields):
    conference = factories.conference(
        venue=venue,
        year=year,
        name_en=f"ICML {year}",
        name_zh_hans=f"ICML {year}",
        start_date=datetime.date(year, 7, 1),
        end_date=datetime.date(year, 7, 5),
    )
    award = factories.award(
        conference=conference,
        slug="test-of-time",
        name_en="Test of Time Award",
        name_zh_hans="时间检验奖",
        **fields,
    )
    for n in range(winners + mentions):
        level = "winner" if n < winners else "honourable-mention"
        paper = factories.paper(
            title_en=f"Paper {year}-{n}",
            authors=[factories.author(), factories.author()],
            affiliations=[factories.institution()],
            links=[("arxiv", f"https://arxiv.org/abs/{year}.{n:05d}")],
        )
        factories.award_entry(award, paper, level=level, position=n)
    return award


def test_series_lists_every_year_newest_first(client, db):
    venue = factories.venue(slug="icml", acronym="ICML")
    _edition(venue, 2023)
    _edition(venue, 2025, winners=1, mentions=2)
    _edition(venue, 2024)
    _edition(factories.venue(), 2022)  # the same slug at another venue is another series

    text = visible_text(client.get("/en/venues/icml/awards/test-of-time/").content.decode())

    assert "Test of Time Award" in text
    assert "Awarded at ICML: 3 years" in text
    assert text.index("ICML 2025") < text.index("ICML 2024") < text.index("ICML 2023")
    assert "Winner Paper 2025-0" in text
    assert "Honourable mentions Paper 2025-1" in text
    assert "Paper 2022-0" not in text


def test_series_in_chinese(client, db):
    _edition(factories.venue(slug="icml", acronym="ICML"), 2025)

    text = visible_text(client.get("/zh-hans/venues/icml/awards/test-of-time/").content.decode())

    assert "时间检验奖" in text
    assert "ICML 颁发：共 1 届" in text


def test_series_leaves_out_draft_editions_and_conferences(client, db):
    venue = factories.venue(slug="icml")
    _edition(venue, 2025)
    _edition(venue, 2024, status=Status.DRAFT)
    hidden = _edition(venue, 2023)
    hidden.conference.status = Status.DRAFT
    hidden.conference.save()

    response = client.get("/en/venues/icml/awards/test-of-time/")

    assert [award.conference.year for award in response.context["awards"]] == [2025]


@pytest.mark.parametrize(
    "path",
    ["venues/icml/awards/nope/", "venues/nope/awards/test-of-time/", "venues/icml/awards/draft/"],
)
def test_unknown_or_unpublished_series_is_404(client, db, path):
    _edition(factories.venue(slug="icml"), 2025)
    _edition(factories.venue(), 2024).__class__.objects.filter(conference__year=2024).update(
        slug="draft", status=Status.DRAFT
    )

    assert client.get(f"/en/{path}").status_code == 404


def test_award_page_links_to_its_series(icml, client):
    html = client.get("/en/conferences/icml-2025/awards/test-of-time/").content.decode()

    assert '<a href="/en/venues/icml/awards/test-of-time/">This award at every ICML</a>' in html


def test_series_queries_do_not_grow_with_years_and_papers(client, db):
    def queries():
        with CaptureQueriesContext(connection) as captured:
            response = client.get("/en/venues/icml/awards/test-of-time/")
        assert response.status_code == 200
        return len(captured)

    venue = factories.venue(slug="icml")
    _edition(venue, 2010)
    one = queries()
    for year in range(2011, 2020):
        _edition(venue, year, winners=2, mentions=3)

    # The editions; their entries, the entries' authorships and links.
    assert queries() == one == 4
