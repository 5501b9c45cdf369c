"""The site's chrome (pages/templatetags/site_chrome.py) and the language links of
every page (pages/templatetags/awards.py ``language_paths``): rendered once and
reused, they must still follow the page, its language and the site's address."""

import re

import pytest
from django.test import override_settings

from tests import factories

NAV_CURRENT = re.compile(r'<a href="([^"]+)" aria-current="page">')


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_nav_marks_the_section_of_each_page_in_turn(db, client, language):
    factories.award_entry(factories.award(), factories.paper())
    marked = {}
    for section in ("conferences", "awards", "authors", "venues", "awards", ""):
        html = client.get(f"/{language}/{section + '/' if section else ''}").content.decode()
        marked[section] = NAV_CURRENT.findall(html)

    # Twice: in the header's sections and in the phone's menu (one shows at a time).
    assert marked == {
        "conferences": [f"/{language}/conferences/"] * 2,
        "awards": [f"/{language}/awards/"] * 2,
        "authors": [f"/{language}/authors/"] * 2,
        "venues": [f"/{language}/venues/"] * 2,
        "": [],
    }


def test_chrome_is_in_the_language_of_each_page(db, client):
    english = client.get("/en/").content.decode()
    chinese = client.get("/zh-hans/").content.decode()
    english_again = client.get("/en/").content.decode()

    name = r'<a class="site-name" href="/{}/">.*?<span>{}</span></a>'
    assert re.search(name.format("en", "Conference Awards"), english)
    assert re.search(name.format("zh-hans", "会议奖项"), chinese)
    assert english_again == english


@override_settings(ALLOWED_HOSTS=["one.example", "two.example"], SITE_URL="")
def test_feed_links_name_the_host_of_each_request(db, client):
    one = client.get("/en/", HTTP_HOST="one.example").content.decode()
    two = client.get("/en/", HTTP_HOST="two.example").content.decode()

    assert one.count('href="http://one.example/en/feeds/awards.atom"') == 2
    assert two.count('href="http://two.example/en/feeds/awards.atom"') == 2
    assert "one.example" not in two


def test_language_switcher_keeps_the_page_and_its_query(db, client):
    conference = factories.conference()
    path = conference.get_absolute_url()

    html = client.get(f"{path}?utm_source=feed").content.decode()

    other = path.replace("/en/", "/zh-hans/", 1)
    assert f'<a href="{other}?utm_source=feed" hreflang="zh-hans" lang="zh-hans">' in html
    assert f'<link rel="alternate" hreflang="zh-hans" href="http://testserver{other}">' in html
    assert f'<link rel="canonical" href="http://testserver{path}">' in html
