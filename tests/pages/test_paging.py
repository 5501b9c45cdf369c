"""Pages of long lists at paths of their own (pages/paging.py): page N at ``page/<N>/``
in both languages, old ``?page=N`` links and ``page/1/`` sent there with a 301, bad page
numbers a 404, and every link of page N (prev/next, canonical, hreflang, the language
switcher) naming page N's path."""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from pages.views import AUTHOR_PAGE_SIZE, LIST_PAGE_SIZE
from tests import factories
from tests.pages.test_views import _author_with_papers, _other_papers


def _two_pages(name):
    """The URL kwargs of a list of URL name ``name`` made to have two pages, the second
    with one item: a conference's other papers, an author's papers, the author index or
    its letter N."""
    if name == "conference-detail":
        conference = factories.conference()
        _other_papers(conference, LIST_PAGE_SIZE + 1)
        return {"slug": conference.slug}
    if name == "author-detail":
        return {"slug": _author_with_papers(LIST_PAGE_SIZE + 1).slug}
    # The factories' authors are "Author Number<n>": all under N (their family name).
    factories.paper(authors=[factories.author() for _ in range(AUTHOR_PAGE_SIZE + 1)])
    return {"letter": "n"} if name == "author-list-letter" else {}


@pytest.fixture
def lists(db, request):
    """``{name: URL kwargs}`` for the list of the test's ``name`` parameter (see
    ``_two_pages``), or for the conference page when the test has none."""
    callspec = getattr(request.node, "callspec", None)
    name = callspec.params.get("name", "conference-detail") if callspec else "conference-detail"
    return {name: _two_pages(name)}


LISTS = ["conference-detail", "author-detail", "author-list", "author-list-letter"]
LANGUAGES = ["en", "zh-hans"]


def url(name, language, **kwargs):
    with translation.override(language):
        return reverse(f"papers:{name}", kwargs=kwargs)


def _items(response):
    """The items of the page's list (other papers, papers or authors)."""
    for key in ("other_papers", "papers", "authors"):
        if key in response.context:
            return list(response.context[key])
    raise AssertionError("no list in the context")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", LISTS)
def test_page_two_is_served_at_its_path(client, lists, name, language):
    base = url(name, language, **lists[name])
    second_path = url(f"{name}-page", language, page=2, **lists[name])

    first = client.get(base)
    second = client.get(second_path)

    assert second_path == f"{base}page/2/"
    assert (first.status_code, second.status_code) == (200, 200)
    assert second.context["page_obj"].number == 2
    assert len(_items(second)) == 1
    assert _items(second)[0] not in _items(first)


@pytest.mark.parametrize("name", LISTS)
def test_page_one_path_redirects_to_the_list(client, lists, name):
    base = url(name, "en", **lists[name])

    response = client.get(f"{base}page/1/")
    with_query = client.get(f"{base}page/1/?utm_source=feed")

    assert (response.status_code, response["Location"]) == (301, base)
    assert (with_query.status_code, with_query["Location"]) == (301, f"{base}?utm_source=feed")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", LISTS)
def test_old_page_query_redirects_to_the_path_keeping_other_parameters(
    client, lists, name, language
):
    base = url(name, language, **lists[name])

    second = client.get(base, {"page": "2"})
    kept = client.get(f"{base}?utm_source=feed&page=2&utm_medium=mail")
    first = client.get(base, {"page": "1"})
    empty = client.get(f"{base}?page=")

    assert (second.status_code, second["Location"]) == (301, f"{base}page/2/")
    assert (kept.status_code, kept["Location"]) == (
        301,
        f"{base}page/2/?utm_source=feed&utm_medium=mail",
    )
    assert (first.status_code, first["Location"]) == (301, base)
    assert (empty.status_code, empty["Location"]) == (301, base)
    assert client.get(second["Location"]).status_code == 200


@pytest.mark.parametrize("language", LANGUAGES)
def test_old_author_index_letter_query_redirects_to_the_letters_path(client, db, language):
    index = url("author-list", language)

    letter = client.get(index, {"letter": "a"})
    paged = client.get(f"{index}?letter=a&utm_source=feed&page=2")
    digits = client.get(index, {"letter": "0", "page": "1"})
    every = client.get(index, {"letter": ""})

    assert (letter.status_code, letter["Location"]) == (301, f"{index}letter/a/")
    assert (paged.status_code, paged["Location"]) == (
        301,
        f"{index}letter/a/page/2/?utm_source=feed",
    )
    assert (digits.status_code, digits["Location"]) == (301, f"{index}letter/0/")
    assert (every.status_code, every["Location"]) == (301, index)


@pytest.mark.parametrize("query", ["letter=ab", "letter=A", "letter=%C3%A9", "letter=a&page=x"])
def test_old_author_index_query_with_a_bad_letter_or_page_is_404(client, db, query):
    assert client.get(f"/en/authors/?{query}").status_code == 404


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", ["author-list", "author-list-letter"])
def test_header_marks_the_authors_section_on_every_page_of_the_index(client, lists, name, language):
    index = url("author-list", language)
    pages = [
        url(name, language, **lists[name]),
        url(f"{name}-page", language, page=2, **lists[name]),
    ]

    for page in pages:
        html = client.get(page).content.decode()
        # The header's sections and the phone's menu.
        assert re.findall(r'<a href="([^"]+)" aria-current="page">', html) == [index, index]


def test_author_index_letters_link_to_their_paths(client, db):
    factories.paper(authors=[factories.author(slug="wang-fang", name="王芳")])

    english = client.get("/en/authors/").content.decode()
    chinese = client.get("/zh-hans/authors/letter/w/").content.decode()

    # Each letter with its number of authors.
    assert '<a href="/en/authors/letter/w/">W <small>1</small></a>' in english
    assert '<span aria-current="page">W <small>1</small></span>' in chinese
    assert '<li><a href="/zh-hans/authors/">全部 <small>1</small></a></li>' in chinese
    assert '<link rel="canonical" href="http://testserver/zh-hans/authors/letter/w/">' in chinese


@pytest.mark.parametrize("page", ["0", "3", "02", "x", "1.5", "-1", "9" * 30])
@pytest.mark.parametrize("name", LISTS)
def test_page_path_out_of_range_or_not_a_whole_number_is_404(client, lists, name, page):
    response = client.get(f"{url(name, 'en', **lists[name])}page/{page}/")

    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in response.content.decode()


@pytest.mark.parametrize("page", ["0", "x", "1.5", "-1", "last", "２"])
@pytest.mark.parametrize("name", LISTS)
def test_old_page_query_not_a_whole_number_is_404(client, lists, name, page):
    response = client.get(url(name, "en", **lists[name]), {"page": page})

    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in response.content.decode()


@pytest.mark.parametrize("name", LISTS)
def test_old_page_query_out_of_range_ends_in_404(client, lists, name):
    response = client.get(url(name, "en", **lists[name]), {"page": "3"}, follow=True)

    assert response.redirect_chain == [(f"{url(name, 'en', **lists[name])}page/3/", 301)]
    assert response.status_code == 404


def test_a_page_of_one_page_lists_has_no_page_two(client, db):
    conference = factories.conference()
    _other_papers(conference, 2)

    assert client.get(f"{conference.get_absolute_url()}page/2/").status_code == 404


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", LISTS)
def test_page_two_links_name_its_path_in_each_language(client, lists, name, language):
    paths = {code: url(f"{name}-page", code, page=2, **lists[name]) for code in LANGUAGES}
    base = url(name, language, **lists[name])
    other = next(code for code in LANGUAGES if code != language)
    x_default = paths["en"].removeprefix("/en")

    html = client.get(paths[language]).content.decode()

    assert f'<link rel="canonical" href="http://testserver{paths[language]}">' in html
    for code in LANGUAGES:
        assert (
            f'<link rel="alternate" hreflang="{code}" href="http://testserver{paths[code]}">'
            in (html)
        )
    assert f'<link rel="alternate" hreflang="x-default" href="http://testserver{x_default}">' in (
        html
    )
    assert f'<a href="{paths[other]}" hreflang="{other}" lang="{other}">' in html
    assert f'<a href="{base}" rel="prev">' in html
    assert 'rel="next"' not in html
    assert "?page=" not in html


@pytest.mark.parametrize("language", LANGUAGES)
def test_first_page_links_to_the_second_by_path(client, lists, language):
    base = url("conference-detail", language, **lists["conference-detail"])

    html = client.get(base).content.decode()

    assert f'<a href="{base}page/2/" rel="next">' in html
    assert 'rel="prev"' not in html
    assert f'<link rel="canonical" href="http://testserver{base}">' in html


def test_middle_page_links_to_both_neighbours_and_keeps_the_query(client, db):
    conference = factories.conference()
    _other_papers(conference, 2 * LIST_PAGE_SIZE + 1)
    base = conference.get_absolute_url()

    html = client.get(f"{base}page/2/?utm_source=feed").content.decode()

    assert f'<a href="{base}?utm_source=feed" rel="prev">' in html
    assert f'<a href="{base}page/3/?utm_source=feed" rel="next">' in html


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_letters_first_page_names_its_versions_in_both_languages(client, db, language):
    """Found by a fresh tester: page 1 of a letter (``authors/letter/w/``) named itself as
    its Chinese and English versions, and its language switcher led to the other
    language's home page: reverse_slugs' placeholder slug does not fit the one-character
    letter converter, and the NoReverseMatch fell back to the page's own path."""
    factories.paper(authors=[factories.author(slug="wang-fang", name="王芳")])

    html = client.get(f"/{language}/authors/letter/w/").content.decode()

    versions = re.findall(r'<link rel="alternate" hreflang="([^"]+)" href="([^"]+)"', html)
    assert versions == [
        ("en", "http://testserver/en/authors/letter/w/"),
        ("zh-hans", "http://testserver/zh-hans/authors/letter/w/"),
        ("x-default", "http://testserver/authors/letter/w/"),
    ]
    other = "zh-hans" if language == "en" else "en"
    assert f'<a href="/{other}/authors/letter/w/" hreflang="{other}"' in html
