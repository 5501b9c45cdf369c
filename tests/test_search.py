"""The search page (papers/views.py SearchView, papers/forms.py, PaperQuerySet.search)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers.models import Paper, PaperLink, Status

from . import factories
from .html import visible_text


def _titles(response):
    return [paper.title_en for paper in response.context["papers"]]


def test_chinese_substring_finds_the_paper(icml, client):
    response = client.get("/zh-hans/search/", {"q": "共形预测"})

    assert response.status_code == 200
    assert _titles(response) == ["Conformal Prediction as Bayesian Quadrature"]
    assert "找到 1 篇论文" in visible_text(response.content.decode())


@pytest.mark.parametrize(
    ("field", "value", "query"),
    [
        ("title_en", "Quadrature of Things", "quadrature"),
        ("title_zh_hans", "求积之道", "求积"),
        ("abstract_en", "We study dragons.", "DRAGONS"),
        ("abstract_zh_hans", "我们研究龙。", "研究龙"),
        ("summary_en", "A gentle tour of wyverns.", "wyvern"),
        ("summary_zh_hans", "飞龙导读。", "飞龙"),
    ],
)
def test_search_looks_in_prose_in_both_languages(client, db, field, value, query):
    wanted = factories.paper(**{field: value})
    factories.paper(title_en="Unrelated", title_zh_hans="无关")

    response = client.get("/en/search/", {"q": query})

    assert list(response.context["papers"]) == [wanted]


def test_search_finds_author_names_and_institutions_in_both_languages(client, db):
    person = factories.author(name="Zhang Wei", other_names="张伟")
    place = factories.institution(name_en="Tsinghua University", name_zh_hans="清华大学")
    wanted = factories.paper(authors=[person], affiliations=[place])
    factories.paper(authors=[factories.author()])

    for query in ["zhang wei", "张伟", "tsinghua", "清华"]:
        assert list(client.get("/en/search/", {"q": query}).context["papers"]) == [wanted], query


def test_every_word_must_match_and_a_paper_is_listed_once(client, db):
    people = [factories.author(name="Jake Snell"), factories.author(name="Jake Other")]
    both = factories.paper(title_en="Bayesian quadrature", authors=people)
    factories.paper(title_en="Bayesian optimisation", authors=[factories.author()])

    response = client.get("/en/search/", {"q": "jake bayesian"})

    assert list(response.context["papers"]) == [both]


def test_drafts_are_never_found(client, db):
    factories.paper(title_en="Secret draft", status=Status.DRAFT)
    factories.paper(title_en="Secret conference", conference=factories.conference(status="draft"))

    assert list(client.get("/en/search/", {"q": "secret"}).context["papers"]) == []


def test_filters_by_conference_year_and_award(client, db):
    old, new = factories.conference(year=2015), factories.conference(year=2025, venue=None)
    test_of_time = factories.award(conference=new, slug="test-of-time")
    classic = factories.paper(conference=old, title_en="Classic learning")
    factories.paper(conference=new, title_en="Fresh learning")
    factories.paper(conference=old, title_en="Forgotten learning")
    factories.award_entry(test_of_time, classic)

    def found(**params):
        response = client.get("/en/search/", {"q": "learning", **params})
        return sorted(_titles(response))

    # A conference lists its own papers and the papers its awards went to.
    assert found(conference=new.slug) == ["Classic learning", "Fresh learning"]
    assert found(year="2015") == ["Classic learning", "Forgotten learning"]
    assert found(award="test-of-time") == ["Classic learning"]
    # A year lists papers published or awarded that year.
    assert found(award="test-of-time", year="2025") == ["Classic learning"]
    assert found(conference=old.slug, year="2025") == []


def test_filters_alone_list_papers_without_text(client, db):
    award = factories.award(slug="best-paper")
    winner = factories.paper(conference=award.conference)
    factories.award_entry(award, winner)
    factories.paper()

    assert list(client.get("/en/search/", {"award": "best-paper"}).context["papers"]) == [winner]


def test_empty_search_shows_the_form_and_no_results(client, db):
    factories.paper()

    response = client.get("/en/search/", {"q": "   "})

    assert response.status_code == 200
    assert response.context["searched"] is False
    assert "found" not in visible_text(response.content.decode())


def test_results_are_paginated_by_twenty(client, db):
    conference = factories.conference()
    for n in range(45):
        factories.paper(conference=conference, title_en=f"Kernel paper {n:02d}")

    first = client.get("/en/search/", {"q": "kernel"})
    last = client.get("/en/search/", {"q": "kernel", "page": "3"})

    assert len(first.context["papers"]) == 20
    assert len(last.context["papers"]) == 5
    assert first.context["paginator"].count == 45
    html = first.content.decode()
    assert '<a href="?q=kernel&amp;page=2" rel="next">Next page</a>' in html
    assert "Page 1 of 3" in visible_text(html)


@pytest.mark.parametrize("number", ["abc", "-1", "0", "4", str(10**9), "1.5", "1e3"])
def test_malformed_page_is_a_404(client, db, number):
    conference = factories.conference()
    for n in range(45):
        factories.paper(conference=conference, title_en=f"Kernel paper {n}")

    response = client.get("/en/search/", {"q": "kernel", "page": number})

    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in response.content.decode()


@pytest.mark.parametrize(
    "params",
    [
        {"q": "x" * 201},
        {"q": "共" * 5000},
        {"q": "a\x00b"},
        {"year": "abc"},
        {"year": "99999999999999999999"},
        {"conference": "no-such-conference"},
        {"award": "no-such-award"},
        {"conference": "../../etc/passwd"},
    ],
)
def test_invalid_parameters_are_form_errors_on_a_normal_page(client, db, params):
    factories.paper()

    response = client.get("/en/search/", params)

    assert response.status_code == 200
    assert response.context["form"].errors
    assert response.context["searched"] is False
    assert 'class="errorlist"' in response.content.decode()


@pytest.mark.parametrize(
    "query_string",
    [
        "q=%ED%A0%80",  # a lone surrogate, UTF-8 encoded
        "q=%FF%FE",  # not UTF-8 at all
        "q=%F0%9F%98%80%E2%80%8F%EF%BF%BF",  # emoji, right-to-left mark, a non-character
        "q=%25%5F%5C",  # LIKE wildcards and the escape character
        "q=" + "%E2%80%8B" * 150,  # 150 zero-width spaces
        "q[]=a&q=b&q=c",
    ],
)
def test_odd_unicode_and_wildcards_never_fail(client, db, query_string):
    factories.paper(title_en="Plain title")

    response = client.get(f"/en/search/?{query_string}")

    assert response.status_code == 200


def test_like_wildcards_match_literally(client, db):
    literal = factories.paper(title_en="Gains of 50% and more")
    factories.paper(title_en="Gains of 500 and more")

    assert list(client.get("/en/search/", {"q": "50%"}).context["papers"]) == [literal]


def test_search_queries_do_not_grow_with_results(client, db):
    def queries():
        with CaptureQueriesContext(connection) as captured:
            response = client.get("/en/search/", {"q": "needle"})
        assert response.status_code == 200
        return len(captured), len(response.context["papers"])

    award = factories.award()
    single = factories.paper(
        title_en="needle 0", authors=[factories.author()], conference=award.conference
    )
    factories.award_entry(award, single)
    one, shown = queries()
    assert shown == 1
    institution = factories.institution()
    for n in range(15):
        paper = factories.paper(
            title_en=f"needle {n + 1}",
            authors=[factories.author(), factories.author()],
            affiliations=[institution],
            links=[(PaperLink.Kind.ARXIV, f"https://arxiv.org/abs/2501.{n:05d}")],
        )
        factories.award_entry(factories.award(), paper, level="honourable-mention")

    many, shown = queries()
    assert shown == 16
    assert many == one


def test_header_search_box_on_every_page_in_both_languages(icml, client):
    english = client.get("/en/").content.decode()
    chinese = client.get("/zh-hans/").content.decode()

    assert '<form class="site-search" role="search" method="get" action="/en/search/">' in english
    assert 'action="/zh-hans/search/"' in chinese
    assert '<button type="submit">搜索</button>' in chinese


def test_search_results_are_not_indexed(client, db):
    assert (
        '<meta name="robots" content="noindex">' in client.get("/en/search/?q=x").content.decode()
    )
    assert 'name="robots"' not in client.get("/en/search/").content.decode()


def test_paper_factory_is_published_by_default(db):
    # The search tests above rely on it; a draft default would make them vacuous.
    paper = factories.paper()

    assert list(Paper.objects.published()) == [paper]
