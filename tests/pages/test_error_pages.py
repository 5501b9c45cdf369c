"""Friendly error pages in both languages; the 500 page needs neither the database
nor context processors."""

import pytest
from django.test import Client, override_settings
from django.urls import path

from tests.html import visible_text


def _fail(request):
    raise RuntimeError("boom")


urlpatterns = [path("boom/", _fail)]


@pytest.mark.parametrize(
    ("language", "heading", "search"),
    [("en", "Page not found", "Search the papers"), ("zh-hans", "页面不存在", "搜索论文")],
)
def test_404_page_offers_home_and_search(client, db, language, heading, search):
    response = client.get(f"/{language}/no/such/page/")

    assert response.status_code == 404
    html = response.content.decode()
    assert f"<h1>{heading}</h1>" in html
    assert f'<a href="/{language}/search/">{search}</a>' in html


@override_settings(ROOT_URLCONF=__name__, DEBUG=False)
def test_500_page_is_bilingual_without_the_database(client, django_db_blocker):
    client.raise_request_exception = False
    with django_db_blocker.block():
        response = client.get("/boom/")

    assert response.status_code == 500
    text = visible_text(response.content.decode())
    assert "Server error" in text
    assert "服务器错误" in text
    assert '<a href="/en/">Go to the list of conferences</a>' in response.content.decode()
    assert '<a href="/zh-hans/" lang="zh-hans">前往会议列表</a>' in response.content.decode()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_csrf_failure_is_our_bilingual_403_page_without_inline_style(db, language):
    client = Client(enforce_csrf_checks=True, headers={"accept-language": language})

    response = client.post("/admin/login/", {"username": "mei", "password": "x"})

    assert response.status_code == 403
    html = response.content.decode()
    text = visible_text(html)
    assert "Your session or form has expired; reload the page and try again." in text
    assert "您的会话或表单已过期，请重新加载页面后再试。" in text
    assert "拒绝访问" in text
    assert "DEBUG" not in html
    assert "<style" not in html
    assert "style=" not in html


@pytest.mark.parametrize(
    ("language", "other", "link"),
    [
        ("en", "zh-hans", '<a href="/zh-hans/" hreflang="zh-hans" lang="zh-hans">简体中文</a>'),
        ("zh-hans", "en", '<a href="/en/" hreflang="en" lang="en">English</a>'),
    ],
)
def test_404_language_switcher_leads_to_the_other_languages_home(client, db, language, other, link):
    """An address that matches no route has no equivalent in the other language: the
    switcher leads to that language's home page, never back to the same 404."""
    response = client.get(f"/{language}/no/such/page/")

    html = response.content.decode()
    assert response.status_code == 404
    assert link in html
    assert f'href="/{language}/no/such/page/"' not in html


def test_404_of_a_known_route_switches_to_its_equivalent(client, db):
    html = client.get("/en/papers/no-such-paper/").content.decode()

    assert 'href="/zh-hans/papers/no-such-paper/" hreflang="zh-hans"' in html
