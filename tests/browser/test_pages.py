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
    for path in ["/en/conferences/icml-2025/", "/zh-hans/papers/collabllm/"]:
        page.goto(site + path)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, path
