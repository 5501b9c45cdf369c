"""A conference imported from a compact file reads correctly, in both languages, on a
phone and on a desktop (the made-up CIL 2031 of tests/data/cil-2031.yaml)."""

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from .test_pages import BROKEN_WORDS

pytestmark = pytest.mark.browser

CIL = Path(__file__).parents[1] / "data" / "cil-2031.yaml"
PAGES = [
    "",
    "conferences/cil-2031/",
    "conferences/cil-2031/awards/best-paper/",
    "conferences/cil-2031/awards/outstanding-student-paper/",
    "papers/dreaming-in-imaginary-gradients/",
    "papers/learning-k-sparse-daydreams/",
    "authors/aino-karkkainen/",
    "venues/cil/",
]


@pytest.fixture
def cil(site):
    call_command("import_conference", str(CIL), stdout=io.StringIO())
    return site


@pytest.mark.parametrize("width", [375, 1280])
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_compact_conference_pages_fit_and_break_no_word(page, cil, width, language, tmp_path):
    page.set_viewport_size({"width": width, "height": 900})
    for path in PAGES:
        page.goto(f"{cil}/{language}/{path}")
        name = (path.strip("/").replace("/", "_") or "home") + f"-{language}-{width}.png"
        page.screenshot(path=str(tmp_path / name), full_page=True)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, path
        assert page.evaluate(BROKEN_WORDS, "main, .breadcrumbs") == [], path
        assert "（英文原文）" not in page.locator("body").inner_text(), path


@pytest.mark.parametrize(
    ("language", "levels", "third_author"),
    [
        (
            "en",
            ["Best Papers", "Runners-up"],
            "Lin Xiaoyu (University of Eldoria; Northwind Research)",
        ),
        ("zh-hans", ["最佳论文", "亚军论文"], "Lin Xiaoyu（埃尔多利亚大学；Northwind Research）"),
    ],
)
def test_compact_conference_shows_its_levels_authors_and_links(
    page, cil, language, levels, third_author
):
    page.goto(f"{cil}/{language}/conferences/cil-2031/awards/best-paper/")
    assert [
        text.strip() for text in page.locator(".award-level > h2").all_text_contents()
    ] == levels

    page.goto(f"{cil}/{language}/papers/dreaming-in-imaginary-gradients/")
    authors = page.locator(".author-affiliations > li")
    expect(authors).to_have_count(8)
    assert authors.nth(0).locator("a").inner_text() == "Aino Kärkkäinen"
    assert authors.nth(1).inner_text() == "Bo Sample"
    assert authors.nth(2).inner_text() == third_author
    code = page.locator("a[href='https://code.example.org/imaginary-gradients']")
    expect(code).to_be_visible()
    if language == "zh-hans":
        expect(page.locator("h1")).to_have_text("在虚构梯度中做梦")
        page.goto(f"{cil}/zh-hans/papers/learning-k-sparse-daydreams/")
        # The untranslated title: English, marked once, its maths laid out as MathML.
        expect(page.locator('h1 [lang="en"]')).to_have_count(1)
        expect(page.locator("h1 math")).to_have_count(1)
        expect(page.locator(".untranslated-notice")).to_have_count(1)
