"""The admin's layout in Chromium, in both languages: no form wider than a 1,280 px
window, the paper list's Chinese column in view beside the filters, title inputs wide
enough for a title. Screenshots of the Chinese admin pages go to $ADMIN_SCREENSHOTS
(a folder; by default the test's temporary one) for a person to look at."""

import os
from pathlib import Path

import pytest

from catalogue.models import Award, Conference, Paper

pytestmark = pytest.mark.browser

WIDTHS = [1280, 1366]
TITLE_INPUT_MIN_PX = 500  # a title of about 70 characters in view (the issue saw 274 px)


def _language(page, site, language):
    page.context.add_cookies([{"name": "django_language", "value": language, "url": site}])


def _forms(site):
    paper = Paper.objects.order_by("pk").first()
    award = Award.objects.filter(levels__isnull=False).order_by("pk").first()
    conference = Conference.objects.order_by("pk").first()
    return {
        "paper": f"{site}/admin/papers/paper/{paper.pk}/change/",
        "award": f"{site}/admin/papers/award/{award.pk}/change/",
        "conference": f"{site}/admin/papers/conference/{conference.pk}/change/",
        "paper-add": f"{site}/admin/papers/paper/add/",
        "award-add": f"{site}/admin/papers/award/add/",
    }


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("width", WIDTHS)
def test_admin_forms_fit_the_window_and_titles_have_room(editor_page, site, language, width):
    page = editor_page
    page.set_viewport_size({"width": width, "height": 900})
    _language(page, site, language)
    wider, narrow_titles = {}, {}
    for name, url in _forms(site).items():
        page.goto(url)
        scroll = page.evaluate("document.documentElement.scrollWidth")
        if scroll > width:
            wider[name] = scroll
        for field in page.locator("input[name^='title_']").all():
            box = field.bounding_box()
            if box is not None and box["width"] < TITLE_INPUT_MIN_PX:
                narrow_titles[f"{name} {field.get_attribute('name')}"] = round(box["width"])

    assert wider == {}
    assert narrow_titles == {}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("width", WIDTHS)
def test_paper_list_shows_the_chinese_column_beside_the_filters(editor_page, site, language, width):
    page = editor_page
    page.set_viewport_size({"width": width, "height": 900})
    _language(page, site, language)
    page.goto(f"{site}/admin/papers/paper/")

    column = page.locator("th.column-chinese_translation").bounding_box()
    filters = page.locator("#changelist-filter").bounding_box()
    scroll = page.evaluate("document.documentElement.scrollWidth")

    assert (scroll <= width, column["x"] + column["width"] <= filters["x"]) == (True, True)


def test_screenshots_of_the_chinese_admin(editor_page, site, tmp_path):
    """Screenshots of each admin page type in Chinese at 1,280 px, for a person to read."""
    folder = Path(os.environ.get("ADMIN_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page = editor_page
    page.set_viewport_size({"width": 1280, "height": 900})
    _language(page, site, "zh-hans")
    paper = Paper.objects.order_by("pk").first()
    pages = {
        "index": "/admin/",
        "app-index": "/admin/papers/",
        "changelist": "/admin/papers/paper/",
        "add": "/admin/papers/award/add/",
        "change": f"/admin/papers/paper/{paper.pk}/change/",
        "delete": f"/admin/papers/paper/{paper.pk}/delete/",
        "history": f"/admin/papers/paper/{paper.pk}/history/",
        "recover-list": "/admin/papers/paper/recover/",
        "password-change": "/admin/password_change/",
        "award-change": f"/admin/papers/award/{paper.award_entries.first().award_id}/change/",
        "week-changes": "/admin/editorial/team/changes/",
    }
    for name, path in pages.items():
        page.goto(f"{site}{path}")
        page.screenshot(path=str(folder / f"{name}.png"), full_page=True)
    # Compare and version pages need two versions: the editor saves the paper twice.
    for _ in range(2):
        page.goto(f"{site}/admin/papers/paper/{paper.pk}/change/")
        page.fill("#id_title_zh_hans", page.input_value("#id_title_zh_hans") + "。")
        page.click("input[name=_continue]")
        page.wait_for_load_state()
    page.screenshot(path=str(folder / "saved.png"), full_page=True)
    page.goto(f"{site}/admin/papers/paper/{paper.pk}/history/")
    page.screenshot(path=str(folder / "history-2.png"), full_page=True)
    page.locator("#change-history input[type=submit]").first.click()
    page.wait_for_load_state()
    page.screenshot(path=str(folder / "compare.png"), full_page=True)
    page.goto(f"{site}/admin/papers/paper/{paper.pk}/history/")
    page.locator("#change-history th a").first.click()
    page.wait_for_load_state()
    page.screenshot(path=str(folder / "revision.png"), full_page=True)

    assert sorted(path.name for path in folder.glob("*.png")) == sorted(
        [f"{name}.png" for name in pages]
        + ["saved.png", "history-2.png", "compare.png", "revision.png"]
    )
