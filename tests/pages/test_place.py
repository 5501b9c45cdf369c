"""A conference's place (issue 29, item 8): the city, then the country unless the country
is the city's own name ("Singapore", not "Singapore, Singapore"), wherever it is shown."""

import re

import pytest
from django.utils import translation

from catalogue.models import Paper
from pages.citations import csl_items, to_bibtex, to_ris
from tests import factories


def _city_state(**fields):
    return factories.conference(
        city_en="Singapore",
        city_zh_hans="新加坡",
        country_en="Singapore",
        country_zh_hans="新加坡",
        **fields,
    )


def _places(html):
    """The text of each conference's place on a page (conference_meta.html)."""
    metas = re.findall(r'<p class="conference-meta">\s*<span>(.*?)</span>', html)
    return [re.sub(r"<[^>]+>", "", meta) for meta in metas]


@pytest.mark.parametrize(("language", "place"), [("en", "Singapore"), ("zh-hans", "新加坡")])
def test_a_city_state_is_named_once_on_every_page_of_its_conference(client, db, language, place):
    conference = _city_state()
    award = factories.award(conference=conference)
    factories.award_entry(award, factories.paper(conference=conference))

    with translation.override(language):
        urls = [
            "/" + language + "/",
            "/" + language + "/conferences/",
            conference.get_absolute_url(),
            conference.venue.get_absolute_url(),
        ]
    places = [_places(client.get(url).content.decode()) for url in urls]

    assert places == [[place]] * 4


def test_a_country_other_than_the_city_is_still_shown(client, db):
    conference = factories.conference()

    html = client.get(conference.get_absolute_url()).content.decode()

    assert _places(html) == ["Vancouver, Canada"]


def test_citations_name_a_city_state_once(db):
    paper = factories.paper(conference=_city_state())
    paper = Paper.objects.for_citation().get(pk=paper.pk)
    urls = {paper.pk: "https://awards.example.org/en/papers/x/"}

    bibtex = re.search(r"address = \{(.*)\}", to_bibtex([paper], urls)).group(1)
    ris = re.search(r"^CY  - (.*)$", to_ris([paper], urls), re.M).group(1)
    csl = csl_items([paper], urls)[0]["event-place"]

    assert [bibtex, ris, csl] == ["Singapore"] * 3
