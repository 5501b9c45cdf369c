"""The strict Content-Security-Policy in Chromium (issue 8): every public page in both
languages and every admin page an editor uses work under it, with no violation report
and no console error. The `context` fixture (conftest.py) fails any browser test on a
violation; these tests visit every page and do what an editor does."""

import json

import pytest
import reversion
from PIL import Image
from playwright.sync_api import expect
from reversion.models import Version

from catalogue.models import Award, Paper, PaperLink
from tests.checked_pages import URLS

pytestmark = pytest.mark.browser

SLUG = "conformal-prediction-as-bayesian-quadrature"
CHANGELISTS = [
    "venue",
    "conference",
    "institution",
    "author",
    "paper",
    "award",
    "awardentry",
    "authorship",
    "paperlink",
]


def _unexpected(errors, expected_failures):
    """``errors`` less the load failures of documents expected to answer 4xx."""
    return [
        (text, url)
        for text, url in errors
        if not (text.startswith("Failed to load resource") and url in expected_failures)
    ]


def _settle(page):
    """A round trip to the page, so that violation reports already sent arrive."""
    page.evaluate("0")


def test_the_violation_listener_reports_what_the_policy_blocks(page, site, csp_violations):
    """The guard itself: an inline style and an inline script are refused and reported."""
    page.goto(f"{site}/en/")
    page.evaluate("document.body.insertAdjacentHTML('beforeend', '<p style=\"color: red\">x</p>')")
    page.evaluate(
        "document.body.append(Object.assign(document.createElement('script'),"
        " {textContent: 'window.inlineRan = true'}))"
    )
    _settle(page)

    assert page.evaluate("window.inlineRan === undefined")
    assert sorted(v["directive"] for v in csp_violations) == ["script-src-elem", "style-src-attr"]
    csp_violations.clear()  # expected here; any other test fails on them


def test_public_pages_in_both_languages_break_no_policy(page, site, console_errors):
    not_found = set()
    for url in URLS:
        response = page.goto(site + url)
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
        if response.status == 404:
            not_found.add(site + url)
    for language in ["en", "zh-hans"]:
        page.goto(f"{site}/{language}/papers/{SLUG}/")
        # The schema.org data block is data, not a script: the policy leaves it alone.
        data = page.evaluate(
            "JSON.parse(document.querySelector('script[type=\"application/ld+json\"]').text)"
        )
        assert (data["@type"], data["name"]) == (
            "ScholarlyArticle",
            "Conformal Prediction as Bayesian Quadrature",
        )
    _settle(page)

    assert not_found == {f"{site}/{language}/no/such/page/" for language in ["en", "zh-hans"]}
    assert _unexpected(console_errors, not_found) == []


def _two_award_versions_one_unreadable():
    """An award with two versions, the older no longer loadable (a field's value is
    invalid): django-reversion-compare then falls back to comparing raw data."""
    award = Award.objects.get(conference__slug="icml-2025", slug="test-of-time")
    for position in [7, 8]:
        with reversion.create_revision():
            award.position = position
            award.save()
    older, newer = Version.objects.get_for_object(award).order_by("pk")
    data = json.loads(older.serialized_data)
    data[0]["fields"]["position"] = "not a number"
    Version.objects.filter(pk=older.pk).update(serialized_data=json.dumps(data))
    return award, older, newer


def test_editor_works_through_the_admin_under_the_policy(
    editor_page, site, tmp_path, console_errors, csp_violations
):
    page = editor_page
    for name in CHANGELISTS:
        page.goto(f"{site}/admin/papers/{name}/")
        expect(page.locator("#changelist")).to_be_visible()
    page.goto(f"{site}/admin/papers/paper/recover/")
    page.goto(f"{site}/admin/papers/paper/add/")
    page.locator("#id_title_en").press_sequentially("A New Paper")
    expect(page.locator("#id_slug")).to_have_value("a-new-paper")  # prepopulated by script

    # Change form: language tabs, drag-and-drop author order, "+" popup, autocomplete,
    # image upload.
    paper = Paper.objects.get(slug=SLUG)
    page.goto(f"{site}/admin/papers/paper/{paper.pk}/change/")
    page.get_by_role("tab", name="ZH-HANS").first.click()
    page.fill("#id_title_zh_hans", "共形预测即贝叶斯求积（新译）")
    handles = page.locator("#authorships-group tbody tr.has_original td.original p")
    handles.nth(1).drag_to(handles.nth(0))
    page.click("#authorships-group .add-row a")
    row = page.locator("#authorships-2")
    with page.expect_popup() as popup_info:
        row.locator("a.add-related[data-popup='yes']").first.click()
    popup = popup_info.value
    popup.fill("#id_name", "Ada Newcomer")
    with popup.expect_event("close"):  # set up first: the popup may close at once
        popup.click("input[name=_save]")
    expect(row.locator(".field-author .select2-selection__rendered")).to_have_text("Ada Newcomer")
    row.locator(".field-affiliations .select2-selection").click()
    page.keyboard.type("Prince")
    page.locator(".select2-results__option", has_text="Princeton University").click()
    Image.new("RGB", (320, 200), (20, 110, 200)).save(tmp_path / "teaser.png")
    page.set_input_files("#id_image", str(tmp_path / "teaser.png"))
    page.get_by_role("tab", name="EN").nth(3).click()
    page.fill("#id_image_alt_en", "A blue rectangle")
    page.get_by_role("tab", name="ZH-HANS").nth(3).click()
    page.fill("#id_image_alt_zh_hans", "蓝色矩形")
    page.click("input[name=_continue]")
    expect(page.locator(".messagelist .success")).to_have_count(1)
    positions = list(paper.authorships.values_list("author__name", flat=True))
    assert positions[:3] == ["Thomas Griffiths", "Jake Snell", "Ada Newcomer"]
    assert page.locator(".field-teaser_thumbnail img").evaluate("img => img.naturalWidth") > 0

    # A second save, then history, compare and an old version (restore form).
    page.get_by_role("tab", name="ZH-HANS").first.click()
    page.fill("#id_title_zh_hans", "共形预测即贝叶斯求积")
    page.click("input[name=_continue]")
    expect(page.locator(".messagelist .success")).to_have_count(1)
    page.goto(f"{site}/admin/papers/paper/{paper.pk}/history/")
    page.click("#change-history input[type=submit]")
    expect(page.locator("#content-main")).to_contain_text("共形预测即贝叶斯求积（新译）")
    page.goto(f"{site}/admin/papers/paper/{paper.pk}/history/")
    page.locator("#change-history tbody th a").last.click()
    expect(page.locator("#id_title_zh_hans")).to_have_value("共形预测即贝叶斯求积（新译）")
    award, older, newer = _two_award_versions_one_unreadable()
    page.goto(
        f"{site}/admin/papers/award/{award.pk}/history/compare/"
        f"?version_id1={older.pk}&version_id2={newer.pk}"
    )
    expect(page.locator("pre.highlight")).to_be_visible()

    # A conference: the date widget's calendar, and an award added with its tabs.
    page.goto(f"{site}/admin/papers/conference/{award.conference.pk}/change/")
    page.locator(".field-start_date .date-icon").click()
    expect(page.locator(".calendarbox").first).to_be_visible()
    page.keyboard.press("Escape")
    page.click("#awards-group .add-row a")
    expect(page.locator("#awards-group .inline-related:not(.empty-form)").last).to_be_visible()

    # A list action, a delete confirmation, and logging out.
    page.goto(f"{site}/admin/papers/paper/?q=conformal")
    page.locator("#result_list input.action-select").first.check()
    page.select_option("select[name=action]", "unpublish")
    page.click("button[name=index]")
    expect(page.locator(".messagelist .success")).to_have_count(1)
    page.goto(f"{site}/admin/papers/paperlink/{PaperLink.objects.first().pk}/delete/")
    expect(page.locator("input[type=submit]")).to_be_visible()
    page.click("#logout-form button")
    expect(page.locator("#content")).to_be_visible()
    _settle(page)

    assert csp_violations == []
    assert _unexpected(console_errors, set()) == []


def test_lockout_page_breaks_no_policy(page, site, settings, console_errors):
    from editorial.roles import create_editor

    create_editor("mei", "mei@example.org", "a-long-editor-passphrase")
    page.goto(f"{site}/admin/login/")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        page.fill("#id_username", "mei")
        page.fill("#id_password", "wrong password")
        page.click("input[type=submit]")

    expect(page.locator("h1")).to_have_text("Login locked")
    _settle(page)
    assert _unexpected(console_errors, {f"{site}/admin/login/"}) == []


def test_api_docs_work_under_the_policy_from_our_own_files(page, site, console_errors):
    """Swagger UI at /api/v1/docs (django-ninja's static files) lists every operation
    and tries one out, with no violation (the context fixture), no console error and no
    request to another host (the page fixture)."""
    response = page.goto(f"{site}/api/v1/docs")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    expect(page.locator(".opblock-summary-path").first).to_be_visible()
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    page.locator("#operations-default-papers_api_endpoints_venues").click()
    page.get_by_role("button", name="Try it out").click()
    page.get_by_role("button", name="Execute").click()
    expect(page.locator(".live-responses-table tbody .response-col_status").first).to_contain_text(
        "200", timeout=30_000
    )
    _settle(page)

    assert "/api/v1/papers/{slug}" in [path.replace("\u200b", "") for path in paths]
    assert console_errors == []
