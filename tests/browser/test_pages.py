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
    assert page.locator("h1").inner_text() == "Near-Optimal Decision Trees in a SPLIT Second"
    assert title.evaluate("e => getComputedStyle(e).borderBottomStyle") == "dotted"
    expect(page.locator(".untranslated-notice")).to_have_count(1)


# 320: the width at which WCAG's reflow criterion (1.4.10) asks for no horizontal scroll
# (a 1280-pixel window at 400% zoom, the narrowest phones).
@pytest.mark.parametrize("width", [320, 360])
def test_phone_width_has_no_horizontal_scroll(page, site, width):
    page.set_viewport_size({"width": width, "height": 740})
    for path in [
        "/en/",
        "/zh-hans/",
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

    # expect() waits for the results page; is_visible() asked at once, before it loaded
    # on a busy machine.
    expect(page.get_by_role("heading", name="找到 1 篇论文")).to_be_visible()
    page.get_by_role("link", name="共形预测作为贝叶斯求积").click()
    expect(page.locator("h1")).to_have_text("共形预测作为贝叶斯求积")


def test_paper_page_prints_without_navigation(page, site):
    page.goto(f"{site}/en/papers/trust-region-policy-optimization/")
    page.emulate_media(media="print")

    assert page.locator(".site-header").is_hidden()
    # The cite section prints the formatted citation alone (tests/browser/test_cite_panel.py).
    assert page.locator(".cite .links").is_hidden()
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


# Latin words split over two lines: a word whose Range has more than one line box. A
# citation's text (the cite panel's) is left out: its URLs must wrap, at a hyphen or
# anywhere, as in any list of references, or they would not fit a phone.
BROKEN_WORDS = """selector => {
  const broken = [];
  for (const element of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest(".cite-text")) continue;
      for (const match of node.data.matchAll(/[A-Za-z0-9\u00c0-\u024f'-]+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (lines.size > 1) broken.push(match[0]);
      }
    }
  }
  return broken;
}"""

# An element's text as drawn, with the text CSS adds before elements (the separators).
WITH_GENERATED_TEXT = """element => {
  const parts = [];
  const walk = node => {
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) { parts.push(child.data); continue; }
      const before = getComputedStyle(child, "::before").content;
      if (before.startsWith('"')) parts.push(JSON.parse(before));
      walk(child);
    }
  };
  walk(element);
  return parts.join("").replace(/\\s+/g, " ").trim();
}"""


@pytest.mark.parametrize("width", [375, 1280])
def test_imaginary_conference_reads_cleanly_in_chinese(page, site, width, tmp_path):
    """A new conference whose name is the same in both languages and whose award and
    paper titles are not translated yet: no label inside headings, breadcrumbs or badges,
    one notice, clean separators, no word broken over two lines, no sideways scroll."""
    from tests import factories

    venue = factories.venue(slug="cil", acronym="CIL", name_en="Conference on Imaginary Learning")
    conference = factories.conference(
        venue=venue,
        slug="cil-2031",
        year=2031,
        name_en="CIL 2031",
        name_zh_hans="",
        city_en="Nowhere Bay",
        city_zh_hans="",
        country_en="Atlantis",
        country_zh_hans="",
        proceedings_en="Imaginary Proceedings, volume 1",
        proceedings_zh_hans="",
    )
    award = factories.award(
        conference=conference,
        slug="best",
        name_en="Outstanding Imaginary Paper Award",
        name_zh_hans="",
    )
    for slug, title in [
        ("winner", "Counterfactual Daydreams for Unsupervised Representation Learning"),
        ("runner-up", "Hallucinated Gradients"),
        ("honourable-mention", "Imaginary Numbers Are Real Enough"),
    ]:
        paper = factories.paper(
            conference=conference, title_en=title, title_zh_hans="", abstract_zh_hans=""
        )
        factories.award_entry(award, paper, level=slug)
    page.set_viewport_size({"width": width, "height": 900})
    runner_up = award.entries.get(level__slug="runner-up").paper

    for path in [
        "/zh-hans/",
        f"/zh-hans/conferences/{conference.slug}/",
        f"/zh-hans/conferences/{conference.slug}/awards/best/",
        f"/zh-hans/papers/{runner_up.slug}/",
        "/zh-hans/venues/cil/",
    ]:
        page.goto(site + path)
        name = path.strip("/").replace("/", "_")
        page.screenshot(path=str(tmp_path / f"{width}-{name}.png"), full_page=True)
        text = page.locator("body").inner_text()
        assert "（英文原文）" not in text, path
        for part in page.locator("h1, .breadcrumbs, .award-badge").all():
            assert "（" not in part.inner_text() or "award-badge" in (
                part.get_attribute("class") or ""
            ), path
        marked = page.locator(".untranslated").count()
        expect(page.locator(".untranslated-notice")).to_have_count(1 if marked else 0)
        assert page.evaluate(BROKEN_WORDS, "main, .breadcrumbs") == [], path
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, path

    page.goto(f"{site}/zh-hans/conferences/{conference.slug}/")
    meta = page.locator("main .conference-meta").first.evaluate(WITH_GENERATED_TEXT)
    assert meta.startswith("Nowhere Bay，Atlantis · ")
    assert meta.endswith(" · Imaginary Proceedings, volume 1")
    assert meta.count("·") == 2
    expect(page.locator("h1")).to_have_text("CIL 2031")
    assert page.locator("h1 .untranslated").count() == 0
    headings = page.locator(".award-level h3").all_inner_texts()
    assert headings == ["获奖论文", "亚军论文", "荣誉提名"]
    page.goto(f"{site}/zh-hans/papers/{runner_up.slug}/")
    assert page.locator(".award-badge").inner_text() == (
        "CIL 2031 Outstanding Imaginary Paper Award（亚军论文）"
    )


# Issue 10: names never broken, a dark scheme, badges with an icon -------------------

NAMES_ON_TWO_LINES = """() => [...document.querySelectorAll(
  '.authors a, .author-affiliations li > a, .coauthors a, .author-index a')]
  .filter(a => new Set([...a.getClientRects()].map(r => Math.round(r.top))).size > 1)
  .map(a => a.textContent)"""


@pytest.mark.parametrize("width", [360, 1440])
def test_author_names_are_never_broken_across_lines(page, site, width):
    page.set_viewport_size({"width": width, "height": 800})
    for path in [
        "/en/conferences/icml-2025/",
        "/zh-hans/papers/collabllm/",
        "/en/papers/train-worst-plan-best-masked-diffusions/",
        "/en/authors/michael-i-jordan/",
        "/zh-hans/authors/",
    ]:
        page.goto(site + path)
        assert page.evaluate(NAMES_ON_TWO_LINES) == [], path
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, path


def test_dark_scheme_is_honoured(page, site):
    page.emulate_media(color_scheme="dark")
    page.goto(f"{site}/en/conferences/icml-2025/")

    background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    text = page.evaluate("getComputedStyle(document.documentElement).color")
    assert background == "rgb(19, 23, 30)"
    assert text == "rgb(228, 232, 239)"


def test_award_level_headings_have_an_icon_hidden_from_screen_readers(page, site):
    page.goto(f"{site}/en/conferences/icml-2025/awards/test-of-time/")

    heading = page.locator(".award-level.tier-1 > h2")
    expect(heading).to_have_text("Winner")
    assert heading.locator("svg").get_attribute("aria-hidden") == "true"
    assert heading.locator("svg").bounding_box()["width"] > 0
    expect(page.get_by_role("heading", name="Honourable mentions")).to_be_visible()
