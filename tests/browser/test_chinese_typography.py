"""Chinese pages as Chromium draws them (issue 31, item 4): labels in weights every
common Chinese font has, and no heading whose last line holds one Chinese character.

Both are measured on the shipped content with this machine's Chinese font (WenQuanYi
Micro Hei, one weight, which Chromium draws bold only from 700 up).
"""

import re
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.browser

# Every rendered piece of text on the page whose weight is neither regular nor bold:
# [{weight, element, text}].
WEIGHTS_OUTSIDE_REGULAR_AND_BOLD = """() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!node.data.trim() || !element.getClientRects().length) continue;
    const weight = getComputedStyle(element).fontWeight;
    if (weight !== "400" && weight !== "700") {
      found.push({weight, element: element.tagName + "." + element.className,
                  text: node.data.trim().slice(0, 40)});
    }
  }
  return found;
}"""

# Every h1 to h4 drawn on more than one line whose last line holds one CJK character
# (punctuation and spaces aside): [{heading, last_line}]. Each character's box comes from
# a Range (Range.getClientRects); characters whose middles are less than half a line
# apart share a line. Visually hidden headings (1 px wide) are left out.
HEADINGS_ENDING_WITH_ONE_CJK_CHARACTER = r"""() => {
  const cjk = /[\u3400-\u9fff\uf900-\ufaff]/u;
  const ignored = /[\s\p{P}]/u;
  const found = [];
  for (const heading of document.querySelectorAll("h1, h2, h3, h4")) {
    if (heading.getBoundingClientRect().width <= 1) continue;
    const lines = [];  // [{middle, text}], in the order met
    const walker = document.createTreeWalker(heading, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.data.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = [...range.getClientRects()].find((rect) => rect.width > 0);
        if (!box) continue;
        const middle = box.top + box.height / 2;
        let line = lines.find((seen) => Math.abs(seen.middle - middle) < box.height / 2);
        if (!line) lines.push(line = {middle, text: ""});
        line.text += node.data[i];
      }
    }
    if (lines.length < 2) continue;
    const last = lines.reduce((low, line) => (line.middle > low.middle ? line : low));
    const characters = [...last.text].filter((character) => !ignored.test(character));
    if (characters.length === 1 && cjk.test(characters[0])) {
      found.push({heading: heading.textContent.trim(), last_line: last.text});
    }
  }
  return found;
}"""


def chinese_pages(page, site):
    """The addresses of every Chinese page of the site's sitemaps, index pages included.

    Read from /sitemap.xml and the sitemaps it lists, so a new kind of page is measured
    as soon as it is in a sitemap. Returns paths ("/zh-hans/..."), sorted.
    """
    index = page.request.get(f"{site}/sitemap.xml").text()
    paths = set()
    for sitemap in re.findall(r"<loc>([^<]+)</loc>", index):
        xml = page.request.get(site + urlsplit(sitemap).path).text()
        for address in re.findall(r"<loc>([^<]+)</loc>", xml):
            path = urlsplit(address).path
            if path.startswith("/zh-hans/"):
                paths.add(path)
    return sorted(paths)


@pytest.mark.parametrize("width", [390, 1280])
def test_chinese_pages_draw_text_only_regular_or_bold(page, site, width):
    # The issue found labels in bold Latin and regular Chinese: at 600, between the two,
    # the Latin font has a bold and the Chinese font none (nor is one drawn for it).
    page.set_viewport_size({"width": width, "height": 900})
    outside = {}
    for path in [
        "/zh-hans/",
        "/zh-hans/conferences/icml-2025/",
        "/zh-hans/conferences/icml-2025/awards/test-of-time/",
        "/zh-hans/papers/conformal-prediction-as-bayesian-quadrature/",
        "/zh-hans/authors/michael-i-jordan/",
        "/zh-hans/authors/",
        "/zh-hans/awards/",
        "/zh-hans/search/?q=learning",
    ]:
        page.goto(site + path)
        found = page.evaluate(WEIGHTS_OUTSIDE_REGULAR_AND_BOLD)
        if found:
            outside[path] = found

    assert outside == {}


def test_english_labels_keep_their_semibold(page, site):
    # The bold is for Chinese pages only: English labels stay between regular and bold.
    page.goto(f"{site}/en/conferences/icml-2025/")

    weight = page.locator(".links a").first.evaluate("e => getComputedStyle(e).fontWeight")

    assert weight == "600"


@pytest.mark.parametrize("width", [390, 768, 1280])
def test_no_chinese_heading_ends_with_one_character_alone(page, site, width):
    page.set_viewport_size({"width": width, "height": 900})
    paths = chinese_pages(page, site)
    assert len(paths) > 90  # every conference, award, series, paper and author page
    orphans = {}
    for path in paths:
        page.goto(site + path)
        found = page.evaluate(HEADINGS_ENDING_WITH_ONE_CJK_CHARACTER)
        if found:
            orphans[path] = found

    assert orphans == {}
