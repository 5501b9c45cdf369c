"""The published site's search in Chromium (issue 12): a static host serving the
published files with the live site's Content-Security-Policy; the search runs in the
browser, in both languages, with no violation (the ``context`` fixture fails a test on
one) and no console error; without JavaScript the search box leads to the lists."""

import pytest
from playwright.sync_api import expect

from catalogue.models import Paper
from tests import factories
from tests.static_site import publish, serve

from .test_accessibility import AXE

pytestmark = pytest.mark.browser

TITLE_EN = "Conformal Prediction as Bayesian Quadrature"
TITLE_ZH = "共形预测作为贝叶斯求积"


@pytest.fixture(scope="module")
def published_copies():
    """The module's published copies of the site by the papers they hold (their slugs):
    the shipped content is published once, not for every test."""
    return {}


@pytest.fixture
def static_site(icml, client, settings, published_copies, tmp_path_factory):
    """The base URL of a static host serving ``publish_site``'s output for the papers
    in the test database (the shipped content, and whatever the test added)."""
    papers = tuple(Paper.objects.order_by("slug").values_list("slug", flat=True))
    if papers not in published_copies:
        published_copies[papers] = publish(settings, tmp_path_factory.mktemp("published"))
    policy = client.get("/en/")["Content-Security-Policy"]
    # The live policy, whatever the order django-csp writes its directives in.
    assert "script-src 'self'" in [part.strip() for part in policy.split(";")]
    with serve(published_copies[papers], policy) as base:
        yield base


@pytest.fixture
def reader(context, static_site, console_errors):
    """A page of the ``context`` (which fails the test on a CSP violation) that fails
    the test on a request to another host and on a console error (the host answers 404
    for the favicon.ico no page names: Chromium asks for it anyway)."""
    foreign = []
    page = context.new_page()
    page.on(
        "request",
        lambda request: (
            foreign.append(request.url) if not request.url.startswith(static_site) else None
        ),
    )
    yield page
    page.evaluate("0")
    assert foreign == []
    assert [(text, url) for text, url in console_errors if not url.endswith("/favicon.ico")] == []


def test_search_from_the_header_finds_an_english_paper(reader, static_site):
    reader.goto(f"{static_site}/en/")
    reader.get_by_role("searchbox", name="Search papers").fill("bayesian quadrature")
    reader.get_by_role("button", name="Search").first.click()

    expect(reader).to_have_url(f"{static_site}/en/search/?q=bayesian+quadrature")
    expect(reader.get_by_role("heading", name="1 paper found")).to_be_visible()
    expect(reader.locator(".paper-item .snippet mark").first).to_have_text("Bayesian")
    expect(reader.locator("#search-fallback")).to_be_hidden()
    reader.get_by_role("link", name=TITLE_EN).click()
    expect(reader.locator("h1")).to_have_text(TITLE_EN)


def test_search_in_chinese_finds_a_chinese_title(reader, static_site):
    reader.goto(f"{static_site}/zh-hans/search/")
    reader.get_by_role("searchbox", name="搜索内容").fill("贝叶斯求积")
    reader.locator(".search-form").get_by_role("button", name="搜索").click()

    expect(reader.get_by_role("heading", name="找到 1 篇论文")).to_be_visible()
    expect(reader.get_by_role("link", name=TITLE_ZH)).to_be_visible()
    expect(reader.locator(".paper-item .snippet mark").first).to_have_text("贝叶斯求积")


@pytest.fixture
def three_more_papers(icml):
    """Three papers besides the shipped 19, all with an "a" in their titles."""
    return [factories.paper() for _ in range(3)]


def test_search_lists_twenty_a_page(three_more_papers, reader, static_site):
    reader.goto(f"{static_site}/en/search/?q=a")  # every title has an "a"

    expect(reader.get_by_role("heading", name="22 papers found")).to_be_visible()
    expect(reader.locator(".paper-item")).to_have_count(20)
    expect(reader.get_by_text("Page 1 of 2")).to_be_visible()
    expect(reader).to_have_title("Search: a")
    reader.get_by_role("link", name="Next page").click()

    expect(reader).to_have_url(f"{static_site}/en/search/?q=a&page=2")
    expect(reader.locator(".paper-item")).to_have_count(2)
    expect(reader.get_by_role("link", name="Previous page")).to_be_visible()


def test_search_says_when_nothing_matches(reader, static_site):
    reader.goto(f"{static_site}/zh-hans/search/?q=zzzqqq")

    expect(reader.get_by_role("heading", name="找到 0 篇论文")).to_be_visible()
    expect(reader.locator("#search-suggestions")).to_be_visible()
    expect(reader.locator("#search-suggestions")).to_contain_text("没有论文同时包含所有搜索词")


def test_a_word_is_found_inside_a_longer_one_whatever_its_case(reader, static_site):
    # As the live search's substring match: "AYESIAN" is in "Bayesian", "uadra" in
    # "Quadrature".
    reader.goto(f"{static_site}/en/search/?q=AYESIAN+uadra")

    expect(reader.get_by_role("heading", name="1 paper found")).to_be_visible()
    expect(reader.get_by_role("link", name=TITLE_EN)).to_be_visible()
    expect(reader.locator(".paper-item .snippet mark").first).to_have_text("ayesian")


@pytest.mark.parametrize(
    ("path", "heading", "suggestion"),
    [
        ("/en/search/?q=%3F%21", "0 papers found", "No paper matches every word"),
        ("/zh-hans/search/?q=%E2%80%BD", "找到 0 篇论文", "没有论文同时包含所有搜索词"),
    ],
)
def test_a_query_of_punctuation_alone_says_what_the_live_page_says(
    reader, static_site, client, path, heading, suggestion
):
    live = client.get(path).content.decode()
    assert heading in live and suggestion in live

    reader.goto(static_site + path)

    expect(reader.get_by_role("heading", name=heading)).to_be_visible()
    expect(reader.locator("#search-suggestions")).to_contain_text(suggestion)


def test_a_query_of_white_space_alone_is_no_search(reader, static_site, client):
    assert 'id="results-heading"' not in client.get("/en/search/?q=+++").content.decode()

    reader.goto(f"{static_site}/en/search/?q=+++")

    expect(reader.locator("#search-fallback")).to_be_hidden()
    expect(reader.locator("#search-results")).to_be_hidden()


def test_without_javascript_the_search_box_leads_to_the_lists(browser, static_site):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{static_site}/en/")
    page.get_by_role("searchbox", name="Search papers").fill("bayesian")
    page.get_by_role("button", name="Search").first.click()

    expect(page).to_have_url(f"{static_site}/en/search/?q=bayesian")
    expect(page.locator("#search-fallback")).to_contain_text("needs JavaScript")
    page.locator("#search-fallback").get_by_role("link", name="conferences").click()
    expect(page.get_by_role("heading", name="Conferences", level=1)).to_be_visible()
    expect(page.get_by_role("link", name="ICML 2025")).to_be_visible()
    context.close()


@pytest.mark.parametrize(
    "path", ["/en/search/?q=bayesian+quadrature", "/zh-hans/search/?q=贝叶斯求积"]
)
def test_results_have_no_axe_violations(reader, static_site, path):
    reader.goto(static_site + path)
    expect(reader.locator(".paper-item")).to_have_count(1)
    reader.evaluate(AXE.read_text())  # no request: the script runs in the page itself

    results = reader.evaluate("axe.run(document, {resultTypes: ['violations']})")

    assert [violation["id"] for violation in results["violations"]] == []


def test_the_index_is_loaded_only_for_a_search(reader, static_site):
    requested = []
    reader.on("request", lambda request: requested.append(request.url.rsplit("/", 1)[-1]))
    reader.goto(f"{static_site}/en/search/")

    expect(reader.locator("#search-fallback")).to_be_hidden()
    expect(reader.locator("#search-results")).to_be_hidden()
    assert [name for name in requested if name.endswith(".json")] == []


def test_filters_as_on_the_live_page(reader, static_site):
    reader.goto(f"{static_site}/en/search/?q=&award=test-of-time")

    expect(reader.get_by_role("heading", name="3 papers found")).to_be_visible()
    expect(reader.get_by_label("Award")).to_have_value("test-of-time")

    reader.get_by_label("Search for").fill("bayesian")
    reader.locator(".search-form").get_by_role("button", name="Search").click()
    expect(reader.get_by_role("heading", name="0 papers found")).to_be_visible()
    reader.get_by_role("link", name="Search every conference, year and award.").click()

    expect(reader).to_have_url(f"{static_site}/en/search/?q=bayesian")
    expect(reader.get_by_role("heading", name="1 paper found")).to_be_visible()


def test_a_year_filter_lists_the_papers_a_conference_of_that_year_honoured(reader, static_site):
    reader.goto(f"{static_site}/zh-hans/search/?q=&year=2015")

    expect(reader.get_by_role("heading", name="找到 3 篇论文")).to_be_visible()


def test_results_with_untranslated_text_say_what_its_mark_means(reader, static_site, client):
    """As the live page: a Chinese page whose results show English text (marked) says
    once, at the top, what the mark means; one whose results are all translated, and an
    English page, say nothing of it."""
    notice = client.get("/zh-hans/search/?q=policy").content.decode()
    assert 'class="untranslated-notice"' in notice

    reader.goto(f"{static_site}/zh-hans/search/?q=policy")
    expect(reader.get_by_role("heading", name="找到 4 篇论文")).to_be_visible()
    expect(reader.locator("#search-items .untranslated").first).to_be_visible()
    expect(reader.get_by_role("note")).to_have_text(
        "本页部分内容尚无中文译文，以英文原文显示，并以虚线下划线或左侧竖线标出。"
    )

    reader.goto(f"{static_site}/zh-hans/search/?q=贝叶斯求积")
    expect(reader.get_by_role("heading", name="找到 1 篇论文")).to_be_visible()
    expect(reader.locator("#search-items .untranslated")).to_have_count(0)
    expect(reader.locator(".untranslated-notice")).to_be_hidden()

    reader.goto(f"{static_site}/en/search/?q=policy")
    expect(reader.get_by_role("heading", name="4 papers found")).to_be_visible()
    expect(reader.locator(".untranslated-notice")).to_have_count(0)
