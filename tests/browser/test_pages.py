"""The public pages as a reader sees them in Chromium, in both languages."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_reader_switches_language_on_a_paper_page(page, site):
    page.goto(f"{site}/en/papers/trust-region-policy-optimization/")
    assert page.locator("h1").inner_text() == "Trust Region Policy Optimization"

    page.get_by_role("link", name="简体中文").click()

    expect(page).to_have_url(f"{site}/zh-hans/papers/trust-region-policy-optimization/")
    expect(page.locator("h1")).to_have_text("信任区域策略优化")
    assert page.locator("html").get_attribute("lang") == "zh-hans"


def test_chinese_home_leads_to_the_award_papers(page, site):
    page.goto(f"{site}/zh-hans/")
    page.get_by_role("link", name="ICML 2025").click()
    page.get_by_role("link", name="共形预测作为贝叶斯求积").click()

    expect(page.get_by_role("heading", name="摘要")).to_be_visible()
    expect(page.get_by_role("link", name="Jake Snell")).to_be_visible()


def test_untranslated_title_is_marked_as_english(page, site):
    page.goto(f"{site}/zh-hans/papers/near-optimal-decision-trees-split-second/")

    title = page.locator('h1 [lang="en"]')
    assert title.inner_text() == "Near-Optimal Decision Trees in a SPLIT Second"
    assert page.locator("h1 .fallback-note").inner_text() == "（英文原文）"


def test_phone_width_has_no_horizontal_scroll(page, site):
    page.set_viewport_size({"width": 360, "height": 740})
    for path in [
        "/en/conferences/icml-2025/",
        "/zh-hans/papers/collabllm/",
        "/en/papers/statistical-query-hardness-multiclass-linear-classification/",
        "/zh-hans/venues/icml/awards/test-of-time/",
        "/zh-hans/search/?q=learning",
        "/en/search/?q=" + "x" * 300,
    ]:
        page.goto(site + path)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, path


def test_search_from_the_header_in_chinese(page, site):
    page.goto(f"{site}/zh-hans/")
    page.get_by_role("searchbox", name="搜索论文").fill("共形预测")
    page.get_by_role("button", name="搜索").click()

    assert page.get_by_role("heading", name="找到 1 篇论文").is_visible()
    page.get_by_role("link", name="共形预测作为贝叶斯求积").click()
    assert page.locator("h1").inner_text() == "共形预测作为贝叶斯求积"


def test_paper_page_prints_without_navigation(page, site):
    page.goto(f"{site}/en/papers/trust-region-policy-optimization/")
    page.emulate_media(media="print")

    assert page.locator(".site-header").is_hidden()
    assert page.locator(".cite").is_hidden()
    assert page.locator("h1").is_visible()
    link = page.locator(".links a").first
    after = link.evaluate("a => getComputedStyle(a, '::after').content")
    assert after == '" <https://proceedings.mlr.press/v37/schulman15.html>"'


def test_maths_is_laid_out_as_mathml(page, site):
    page.goto(f"{site}/en/papers/statistical-query-hardness-multiclass-linear-classification/")

    math = page.locator("math").first
    assert math.evaluate("m => m.constructor.name") == "MathMLElement"
    assert math.bounding_box()["width"] > 0


def test_award_page_keeps_paper_titles_in_their_own_case(page, site):
    page.goto(f"{site}/en/conferences/icml-2025/awards/test-of-time/")

    title = page.locator(".paper-title").first
    level = page.locator(".award-level > h2").first
    assert title.evaluate("el => getComputedStyle(el).textTransform") == "none"
    assert level.evaluate("el => getComputedStyle(el).textTransform") == "uppercase"
