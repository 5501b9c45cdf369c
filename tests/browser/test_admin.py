"""The editors' admin in Chromium: an editor (not a superuser) edits and publishes a paper."""

import pytest
from PIL import Image
from playwright.sync_api import expect

from catalogue.models import Conference, Paper, Status

pytestmark = pytest.mark.browser

SLUG = "conformal-prediction-as-bayesian-quadrature"
# How long the admin's add-author popup may take to save and close (Playwright's
# default is 30 s, which a loaded CI machine once exceeded).
POPUP_CLOSE_TIMEOUT_MS = 120_000


def _png(path):
    Image.new("RGB", (320, 200), (20, 110, 200)).save(path, format="PNG")
    return str(path)


def _open_paper(page, site):
    paper = Paper.objects.get(slug=SLUG)
    page.goto(f"{site}/admin/papers/paper/{paper.pk}/change/")
    return paper


def test_editor_retitles_reorders_illustrates_and_publishes_a_paper(editor_page, site, tmp_path):
    draft = Paper.objects.get(slug=SLUG)
    draft.status = Status.DRAFT
    draft.save()  # as the admin would: its authors' kept columns follow (update() would not)
    page = editor_page
    assert page.goto(f"{site}/zh-hans/papers/{SLUG}/").status == 404

    _open_paper(page, site)
    page.get_by_role("tab", name="ZH-HANS").first.click()
    page.fill("#id_title_zh_hans", "共形预测即贝叶斯求积（新译）")
    handles = page.locator("#authorships-group tbody tr.has_original td.original p")
    assert handles.nth(0).inner_text().startswith("Jake Snell")
    handles.nth(1).drag_to(handles.nth(0))
    page.set_input_files("#id_image", _png(tmp_path / "teaser.png"))
    page.get_by_role("tab", name="EN").nth(3).click()
    page.fill("#id_image_alt_en", "A blue rectangle")
    page.get_by_role("tab", name="ZH-HANS").nth(3).click()
    page.fill("#id_image_alt_zh_hans", "蓝色矩形")
    page.select_option("#id_status", "published")
    page.click("input[name=_save]")

    expect(page.locator(".messagelist .success")).to_have_count(1)
    page.goto(f"{site}/zh-hans/papers/{SLUG}/")
    assert page.locator("h1").inner_text() == "共形预测即贝叶斯求积（新译）"
    authors = page.locator(".author-affiliations li a").all_inner_texts()
    assert authors[:2] == ["Thomas Griffiths", "Jake Snell"]
    image = page.locator("figure.teaser img")
    assert image.get_attribute("alt") == "蓝色矩形"
    assert image.evaluate("img => img.complete && img.naturalWidth") == 320


def test_svg_upload_is_refused_in_the_form(editor_page, site, tmp_path):
    svg = tmp_path / "teaser.png"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
    page = editor_page
    _open_paper(page, site)

    page.set_input_files("#id_image", str(svg))
    page.click("input[name=_continue]")

    expect(page.locator(".field-image .errorlist")).to_contain_text("SVG drawings are not accepted")
    assert Paper.objects.get(slug=SLUG).image.name == ""


def test_award_rows_added_with_add_another_have_language_tabs(editor_page, site):
    page = editor_page
    conference = Conference.objects.get(slug="icml-2025")
    page.goto(f"{site}/admin/papers/conference/{conference.pk}/change/")
    existing = page.locator("#awards-group .inline-related:not(.empty-form)").count()

    page.click("#awards-group .add-row a")

    row = page.locator(f"#awards-{existing}")
    english, chinese = (
        row.locator(f"#id_awards-{existing}-name_en"),
        row.locator(f"#id_awards-{existing}-name_zh_hans"),
    )
    english.fill("Best Reviewer Award")
    row.get_by_role("tab", name="ZH-HANS").first.click()
    assert (chinese.is_visible(), english.is_visible()) == (True, False)
    chinese.fill("最佳审稿人奖")
    page.click("input[name=_continue]")

    expect(page.locator(".messagelist .success")).to_have_count(1)
    award = conference.awards.get(name_en="Best Reviewer Award")
    assert (award.name_zh_hans, award.slug, award.status) == (
        "最佳审稿人奖",
        "best-reviewer-award",
        Status.DRAFT,
    )


def test_editor_adds_a_new_author_from_the_paper_form(editor_page, site):
    page = editor_page
    paper = _open_paper(page, site)

    page.click("#authorships-group .add-row a")
    row = page.locator("#authorships-2")
    with page.expect_popup() as popup_info:
        row.locator("a.add-related[data-popup='yes']").first.click()
    popup = popup_info.value
    popup.fill("#id_name", "Ada Newcomer")
    # The popup closes itself once the author is saved (Django's popup_response page
    # hands the new author to this form, then calls window.close()). The wait starts
    # before the click: started after it, it missed a close that came first and waited
    # in vain. One long wait for that one event, as a loaded machine can take long.
    with popup.expect_event("close", timeout=POPUP_CLOSE_TIMEOUT_MS):
        popup.click("input[name=_save]")
    # Institutions are picked by typing part of the name (autocomplete).
    row.locator(".field-affiliations .select2-selection").click()
    page.keyboard.type("Prince")
    page.locator(".select2-results__option", has_text="Princeton University").click()
    page.click("input[name=_save]")

    expect(page.locator(".messagelist .success")).to_have_count(1)
    newcomer = paper.authorships.get(author__name="Ada Newcomer")
    assert (newcomer.position, newcomer.author.slug) == (3, "ada-newcomer")
    assert list(newcomer.affiliations.values_list("slug", flat=True)) == ["princeton-university"]
