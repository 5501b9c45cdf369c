"""A paper page's cite panel in Chromium: the Copy buttons (static/js/copy-citation.js)
copy the citation and announce it; without the Clipboard API they select it; without
scripts they are hidden and the text is there to select."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PAPER = "/papers/conformal-prediction-as-bayesian-quadrature/"


def test_copy_puts_the_formatted_citation_on_the_clipboard_and_announces_it(context, page, site):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    page.goto(f"{site}/en{PAPER}")
    button = page.locator("button[data-copy='cite-formatted']")
    expect(button).to_have_accessible_name("Copy")
    expect(button).to_have_accessible_description("APA (7th edition)")

    button.click()

    expect(page.get_by_role("status")).to_have_text("Copied")
    expect(button).to_have_text("Copied")
    clipboard = page.evaluate("navigator.clipboard.readText()")
    assert clipboard == page.locator("#cite-formatted").text_content().strip()
    assert clipboard.startswith("Snell, J., & Griffiths, T. (2025). Conformal Prediction")
    expect(button).to_have_text("Copy", timeout=5000)  # and back, for the next copy


def test_copy_puts_the_bibtex_download_on_the_clipboard_in_chinese(context, page, site):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    page.goto(f"{site}/zh-hans{PAPER}")
    download = page.request.get(f"{site}/zh-hans{PAPER}cite.bib").text()
    button = page.locator("button[data-copy='cite-bibtex']")

    expect(button).to_have_accessible_description("BibTeX")
    button.click()

    expect(page.get_by_role("status")).to_have_text("已复制")
    assert page.evaluate("navigator.clipboard.readText()") == download.strip()


def test_without_the_clipboard_api_copy_selects_the_text(context, page, site):
    context.add_init_script("Object.defineProperty(navigator, 'clipboard', {value: undefined})")
    page.goto(f"{site}/en{PAPER}")

    page.locator("button[data-copy='cite-bibtex']").click()

    expect(page.get_by_role("status")).to_have_text("Selected: copy it with your browser")
    selected = page.evaluate("window.getSelection().toString()")
    assert selected.strip() == page.locator("#cite-bibtex").text_content().strip()
    assert selected.startswith("@inproceedings{snell2025conformal,")


def test_without_scripts_the_buttons_are_hidden_and_the_text_is_shown(browser, site):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site}/en{PAPER}")

    expect(page.locator(".copy-button")).to_have_count(2)
    expect(page.locator(".copy-button").first).to_be_hidden()
    expect(page.locator(".copy-button").last).to_be_hidden()
    expect(page.locator("#cite-formatted")).to_be_visible()
    expect(page.locator("#cite-bibtex")).to_be_visible()
    context.close()


def test_phone_scrolls_the_bibtex_inside_its_box(page, site):
    page.set_viewport_size({"width": 390, "height": 800})
    page.goto(f"{site}/en{PAPER}")

    bibtex = page.locator("#cite-bibtex")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert bibtex.evaluate("pre => pre.scrollWidth > pre.clientWidth")
    assert bibtex.bounding_box()["x"] + bibtex.bounding_box()["width"] <= 390


def test_paper_page_prints_its_formatted_citation_alone(page, site):
    page.goto(f"{site}/en{PAPER}")
    page.emulate_media(media="print")

    expect(page.locator("#cite-formatted")).to_be_visible()
    expect(page.locator("#cite-bibtex")).to_be_hidden()
    expect(page.locator(".cite .links")).to_be_hidden()
    expect(page.locator(".copy-button").first).to_be_hidden()
