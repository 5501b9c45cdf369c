"""The editors' admin: roles, changelists, publishing, preview, history, authors, images."""

import datetime
import io
import re

import pytest
import reversion
from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.db.models.fields.files import FieldFile
from django.test.utils import CaptureQueriesContext
from PIL import Image
from reversion.models import Version

from catalogue.models import Award, AwardKind, AwardLevel, Conference, Paper, Status
from editorial.roles import EDITORS, create_editor
from tests import factories

PASSWORD = "a-long-editor-passphrase"
CHANGELISTS = [
    "venue",
    "conference",
    "institution",
    "author",
    "paper",
    "award",
    "awardkind",
    "awardentry",
    "authorship",
    "paperlink",
]
# Edited only inline: an award's levels, an authorship's affiliations.
INLINE_ONLY = ["awardlevel", "affiliation"]


@pytest.fixture
def editor(db):
    return create_editor("editor", "editor@example.org", PASSWORD)


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


def _populate(count):
    """``count`` papers, each with two authors, a link and an award entry (of an award
    of one of two kinds)."""
    institution = factories.institution(name_zh_hans="")
    kinds = [
        AwardKind.objects.get_or_create(slug=slug, defaults={"name_en": slug})[0]
        for slug in ("best-paper", "test-of-time")
    ]
    for n in range(count):
        paper = factories.paper(
            authors=[factories.author(), factories.author()],
            affiliations=[institution],
            links=[("arxiv", f"https://arxiv.org/abs/2501.{n:05d}")],
            title_zh_hans="" if n % 2 else "有中文",
        )
        award = factories.award(conference=paper.conference, kind=kinds[n % 2])
        factories.award_entry(award, paper)


def _changelist_queries(client, name):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/admin/papers/{name}/")
    assert response.status_code == 200
    return len(queries)


# Roles -------------------------------------------------------------------------


@pytest.mark.django_db
def test_editors_group_has_exactly_the_content_permissions_but_the_publish_right():
    group = Group.objects.get(name=EDITORS)

    granted = set(group.permissions.values_list("content_type__app_label", "codename"))
    content = set(
        Permission.objects.filter(content_type__app_label="papers")
        .exclude(codename__startswith="publish_")
        .values_list("content_type__app_label", "codename")
    )
    # Editors are site-wide: they edit every venue (editorial/teams.py), and import
    # conferences in the admin (importing/admin.py).
    assert granted == content | {
        ("editorial", "edit_every_venue"),
        ("editorial", "import_conference"),
    }
    assert {codename.split("_")[0] for _, codename in content} == {
        "add",
        "change",
        "delete",
        "view",
    }
    assert len(granted) == 4 * len(CHANGELISTS + INLINE_ONLY) + 2


def test_editor_is_staff_but_not_superuser(editor):
    assert (editor.is_staff, editor.is_superuser) == (True, False)
    assert list(editor.groups.values_list("name", flat=True)) == [EDITORS]


@pytest.mark.parametrize(
    "url",
    [
        "/admin/auth/user/",
        "/admin/auth/group/",
        "/admin/auth/user/add/",
        "/admin/auth/group/1/change/",
    ],
)
def test_editor_cannot_reach_user_management(editor_client, url):
    assert editor_client.get(url).status_code in {403, 404}


def test_editor_admin_index_lists_no_user_management(editor_client):
    html = editor_client.get("/admin/").content.decode()

    assert "/admin/papers/paper/" in html
    assert "/admin/auth/" not in html


@pytest.mark.parametrize("name", CHANGELISTS)
def test_editor_can_add_and_list_every_content_model(editor_client, name):
    assert editor_client.get(f"/admin/papers/{name}/add/").status_code == 200
    assert editor_client.get(f"/admin/papers/{name}/").status_code == 200


# Changelists: query counts do not grow with rows --------------------------------


@pytest.mark.parametrize("name", CHANGELISTS)
def test_changelist_queries_do_not_grow_with_rows(editor_client, name):
    # Two rows, not one: a related-object filter with a single choice hides itself
    # (and its facet counts), which would be a difference in filters, not in rows.
    _populate(2)
    few = _changelist_queries(editor_client, name)
    _populate(10)

    assert _changelist_queries(editor_client, name) == few


# Missing Chinese translations ----------------------------------------------------


def test_missing_chinese_filter_column_and_count(editor_client):
    complete = factories.paper(title_en="Complete", title_zh_hans="完整")
    missing = factories.paper(title_en="Untranslated", title_zh_hans="")
    Paper.objects.exclude(pk__in=[complete.pk, missing.pk]).delete()

    listed = editor_client.get("/admin/papers/paper/?chinese=missing")
    html = listed.content.decode()

    assert list(listed.context["cl"].result_list) == [missing]
    assert "1 item still misses a Chinese translation." in html
    assert "Missing: title" in html
    assert "Missing (1)" in html and "Complete (1)" in html


# Publishing and preview -------------------------------------------------------


def test_publish_action_publishes_and_records_history(client, db):
    client.force_login(create_editor("editor", "editor@example.org", PASSWORD, publisher=True))
    paper = factories.paper(status=Status.DRAFT)

    response = client.post(
        "/admin/papers/paper/", {"action": "publish", "_selected_action": [paper.pk]}
    )

    assert response.status_code == 302
    paper.refresh_from_db()
    assert paper.status == Status.PUBLISHED
    assert Version.objects.get_for_object(paper).get().revision.user.username == "editor"


def test_draft_is_hidden_from_visitors_and_previewed_for_editors(client, editor):
    paper = factories.paper(status=Status.DRAFT, title_en="Secret draft")
    url = paper.get_absolute_url()

    assert client.get(url).status_code == 404
    assert client.get(f"{url}?preview=1").status_code == 404
    client.force_login(editor)
    assert client.get(url).status_code == 404
    preview = client.get(f"{url}?preview=1")

    html = preview.content.decode()
    assert preview.status_code == 200
    assert "Secret draft" in html
    assert 'class="preview-banner"' in html
    assert '<meta name="robots" content="noindex, nofollow">' in html
    assert preview["X-Robots-Tag"] == "noindex, nofollow"
    assert "no-store" in preview["Cache-Control"] and "private" in preview["Cache-Control"]


def _links_in_main(html):
    """The site's own addresses the page's breadcrumbs and main content link to."""
    body = html[html.index('<nav class="breadcrumbs') : html.index("</main>")]
    return sorted({href.replace("&amp;", "&") for href in re.findall(r'href="(/[^"]*)"', body)})


def _draft(obj):
    obj.status = Status.DRAFT
    obj.save()  # as the admin saves it (which updates the authors' published flag)
    return obj


def test_links_in_a_draft_papers_preview_work_for_the_editor(editor_client, icml):
    paper = _draft(Paper.objects.get(slug="batch-normalization"))
    conference = _draft(paper.conference)

    html = editor_client.get(f"{paper.get_absolute_url()}?preview=1").content.decode()
    links = _links_in_main(html)
    dead = [url for url in links if editor_client.get(url).status_code != 200]

    assert dead == []
    assert f"{paper.get_absolute_url()}cite.bib?preview=1" in links
    assert f"{conference.get_absolute_url()}?preview=1" in links
    assert "<li>Sergey Ioffe" in html  # no published paper: named, not linked
    download = editor_client.get(f"{paper.get_absolute_url()}cite.bib?preview=1")
    assert "Batch Normalization" in download.content.decode()
    assert "no-store" in download["Cache-Control"]
    assert editor_client.get(f"{paper.get_absolute_url()}cite.bib").status_code == 404


@pytest.mark.parametrize("kind", ["conference", "award"])
def test_links_in_a_draft_conference_or_awards_preview_work_for_the_editor(
    editor_client, icml, kind
):
    if kind == "conference":
        obj = _draft(Conference.objects.get(slug="icml-2015"))
    else:
        obj = _draft(Award.objects.get(conference__slug="icml-2025", slug="outstanding-paper"))

    html = editor_client.get(f"{obj.get_absolute_url()}?preview=1").content.decode()
    links = _links_in_main(html)
    dead = [url for url in links if editor_client.get(url).status_code != 200]

    assert dead == []
    assert any(url.startswith("/en/papers/") and url.endswith("?preview=1") for url in links)
    assert any(url.startswith("/en/authors/") for url in links)


def test_a_draft_awards_preview_links_to_its_draft_conferences_preview(editor_client):
    award = factories.award(
        status=Status.DRAFT, conference=factories.conference(status=Status.DRAFT)
    )
    factories.award_entry(award, factories.paper(conference=award.conference))

    html = editor_client.get(f"{award.get_absolute_url()}?preview=1").content.decode()

    assert f'href="{award.conference.get_absolute_url()}?preview=1"' in html
    assert "/cite.bib" not in html  # no preview of an award's downloads: not links
    assert "<li>BibTeX</li>" in html


def test_citation_preview_needs_the_view_permission(client, django_user_model):
    paper = factories.paper(status=Status.DRAFT)
    client.force_login(django_user_model.objects.create_user("staff", is_staff=True))

    assert client.get(f"{paper.get_absolute_url()}cite.bib?preview=1").status_code == 404


def test_staff_without_view_permission_gets_no_preview(client, django_user_model):
    paper = factories.paper(status=Status.DRAFT)
    client.force_login(django_user_model.objects.create_user("staff", is_staff=True))

    assert client.get(f"{paper.get_absolute_url()}?preview=1").status_code == 404


@pytest.mark.parametrize("kind", ["conference", "award"])
def test_draft_conference_and_award_can_be_previewed(editor_client, kind):
    award = factories.award(
        status=Status.DRAFT, conference=factories.conference(status=Status.DRAFT)
    )
    paper = factories.paper(conference=award.conference, title_en="Awarded paper")
    factories.award_entry(award, paper)
    obj = award if kind == "award" else award.conference
    if kind == "conference":
        Award.objects.filter(pk=award.pk).update(status=Status.PUBLISHED)

    assert editor_client.get(obj.get_absolute_url()).status_code == 404
    preview = editor_client.get(f"{obj.get_absolute_url()}?preview=1")

    assert preview.status_code == 200
    # Listed once on the page (the head's JSON-LD names it too).
    assert preview.content.decode().split("<body>")[1].count("Awarded paper") == 1


def test_view_on_site_of_a_draft_opens_the_preview(editor_client):
    paper = factories.paper(status=Status.DRAFT)

    html = editor_client.get(f"/admin/papers/paper/{paper.pk}/change/").content.decode()

    assert f'href="{paper.get_absolute_url()}?preview=1"' in html


# History: compare and restore ---------------------------------------------------


def _two_versions(paper):
    for title in ["First title", "Second title"]:
        with reversion.create_revision():
            paper.title_en = title
            paper.save()
    return list(Version.objects.get_for_object(paper).order_by("pk"))


def test_editor_compares_two_versions(editor_client):
    paper = factories.paper()
    first, second = _two_versions(paper)

    response = editor_client.get(
        f"/admin/papers/paper/{paper.pk}/history/compare/",
        {"version_id1": first.pk, "version_id2": second.pk},
    )

    html = " ".join(response.content.decode().split())
    assert response.status_code == 200
    assert (
        '<h3>title [en]</h3> <div class="module"> <pre class="highlight">'
        "<del>- First title</del> <ins>+ Second title</ins></pre>"
    ) in html


def test_chinese_history_page_headings_are_chinese(editor_client):
    paper = factories.paper()
    first, second = _two_versions(paper)

    response = editor_client.get(
        f"/admin/papers/paper/{paper.pk}/history/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )

    html = response.content.decode()
    start = html.index('<table id="change-history">')
    table = html[start : html.index("</table>", start)]
    headings = re.findall(r'<th scope="col">\s*(.*?)\s*</th>', table, re.DOTALL)
    assert response.status_code == 200
    assert headings == ['<input type="submit" value="比较">', "日期/时间", "用户", "备注"]
    dates = re.findall(r'<a href="[^"]*/history/\d+/">(.*?)</a>', html)
    assert len(dates) == 2
    assert all("年" in date and "DATETIME_FORMAT" not in date for date in dates)


def test_compare_needs_the_models_view_permission(client, django_user_model):
    paper = factories.paper()
    first, second = _two_versions(paper)
    client.force_login(django_user_model.objects.create_user("staff", is_staff=True))

    response = client.get(
        f"/admin/papers/paper/{paper.pk}/history/compare/",
        {"version_id1": first.pk, "version_id2": second.pk},
    )

    assert response.status_code == 403


def test_editor_restores_an_old_version(editor_client):
    paper = factories.paper()
    first, _second = _two_versions(paper)
    url = f"/admin/papers/paper/{paper.pk}/history/{first.pk}/"
    form = editor_client.get(url)
    assert form.status_code == 200

    response = editor_client.post(url, _form_data(form))

    assert response.status_code == 302
    paper.refresh_from_db()
    assert paper.title_en == "First title"


# The paper form: slugs, authors, images -------------------------------------------


def _form_data(response):
    """The POST data a browser would send for the admin form in ``response``."""
    data = {}
    adminform = response.context["adminform"]
    for name, field in adminform.form.fields.items():
        value = adminform.form[name].value()
        if name in adminform.form.initial or value is not None:
            data[name] = _wire(field, value)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        management = formset.management_form
        for name in management.fields:
            data[management.add_prefix(name)] = management[name].value()
        for form in formset.forms:
            for name, field in form.fields.items():
                value = form[name].value()
                if value is not None:
                    data[form.add_prefix(name)] = _wire(field, value)
    return data


def _wire(field, value):
    if isinstance(value, list | tuple):
        return [str(item) for item in value]
    if isinstance(value, bool):
        return "on" if value else ""
    if isinstance(value, FieldFile):  # a stored file: a browser sends nothing for it
        return ""
    return value if value is not None else ""


def _change_url(paper):
    return f"/admin/papers/paper/{paper.pk}/change/"


def test_editor_swaps_two_authors(editor_client):
    first, second = factories.author(name="First Author"), factories.author(name="Second Author")
    paper = factories.paper(authors=[first, second])
    data = _form_data(editor_client.get(_change_url(paper)))
    data["authorships-0-position"], data["authorships-1-position"] = "2", "1"

    response = editor_client.post(_change_url(paper), data)

    assert response.status_code == 302, response.context["errors"] if response.context else ""
    assert [a.author.name for a in paper.ordered_authorships] == ["Second Author", "First Author"]


def test_duplicate_author_positions_are_a_form_error(editor_client):
    paper = factories.paper(authors=[factories.author(), factories.author()])
    data = _form_data(editor_client.get(_change_url(paper)))
    data["authorships-0-position"] = data["authorships-1-position"] = "1"

    response = editor_client.post(_change_url(paper), data)

    assert response.status_code == 200
    assert "Two authors have position 1." in response.content.decode()


def _png(color=(10, 120, 200)):
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), color).save(buffer, format="PNG")
    buffer.name = "teaser.png"
    buffer.seek(0)
    return buffer


def test_editor_uploads_an_image_with_both_alt_texts(
    editor_client, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.MEDIA_ROOT = tmp_path
    paper = factories.paper()
    data = _form_data(editor_client.get(_change_url(paper)))
    data.update(image=_png(), image_alt_en="A blue square", image_alt_zh_hans="蓝色方块")

    with django_capture_on_commit_callbacks(execute=True):  # thumbnails, made after commit
        response = editor_client.post(_change_url(paper), data)

    assert response.status_code == 302
    paper.refresh_from_db()
    assert paper.image.name.startswith("papers/teaser")
    page = editor_client.get(f"/zh-hans/papers/{paper.slug}/").content.decode()
    assert 'alt="蓝色方块"' in page
    assert (
        '<img src="/media/papers/teaser.png.960x0_q85.png" alt="蓝色方块" width="64" height="48" '
        'fetchpriority="high">'
    ) in page


def test_image_without_chinese_alt_text_is_a_form_error(editor_client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    paper = factories.paper()
    data = _form_data(editor_client.get(_change_url(paper)))
    data.update(image=_png(), image_alt_en="A blue square", image_alt_zh_hans="")

    response = editor_client.post(_change_url(paper), data)

    assert response.status_code == 200
    assert response.context["adminform"].form.errors["image_alt_zh_hans"] == [
        "Describe the image for readers who cannot see it."
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "SVG drawings are not accepted"),
        (b"GIF89a but not really", "This file is not an image"),
    ],
)
def test_bad_upload_is_a_form_error_not_a_500(editor_client, settings, tmp_path, content, message):
    settings.MEDIA_ROOT = tmp_path
    paper = factories.paper()
    data = _form_data(editor_client.get(_change_url(paper)))
    upload = io.BytesIO(content)
    upload.name = "teaser.png"
    data.update(image=upload, image_alt_en="x", image_alt_zh_hans="x")

    response = editor_client.post(_change_url(paper), data)

    assert response.status_code == 200
    assert message in str(response.context["adminform"].form.errors["image"])


def test_paper_slug_is_made_from_the_english_title(editor_client):
    conference = factories.conference()
    form = editor_client.get("/admin/papers/paper/add/")
    data = _form_data(form)
    data.update(title_en="Attention Is All You Need", conference=conference.pk, slug="")

    response = editor_client.post("/admin/papers/paper/add/", data)

    assert response.status_code == 302
    assert Paper.objects.get(title_en="Attention Is All You Need").slug == (
        "attention-is-all-you-need"
    )


def test_chinese_only_titles_get_readable_unique_slugs(db):
    conference = factories.conference()
    first = Paper.objects.create(title_en="信任区域策略优化", conference=conference)
    second = Paper.objects.create(title_en="信任区域策略优化", conference=conference)
    symbols = Paper.objects.create(title_en="？！", conference=conference)

    assert (first.slug, second.slug, symbols.slug) == (
        "xin-ren-qu-yu-ce-lue-you-hua",
        "xin-ren-qu-yu-ce-lue-you-hua-2",
        "paper",
    )


def test_award_slugs_are_unique_per_conference(db):
    conference, other = factories.conference(), factories.conference()
    here = Award.objects.create(conference=conference, name_en="Best Paper")
    again = Award.objects.create(conference=conference, name_en="Best Paper")
    elsewhere = Award.objects.create(conference=other, name_en="Best Paper")

    assert (here.slug, again.slug, elsewhere.slug) == ("best-paper", "best-paper-2", "best-paper")


def test_conference_form_has_award_rows_with_language_tabs(editor_client):
    conference = factories.conference()
    factories.award(conference=conference)

    html = editor_client.get(f"/admin/papers/conference/{conference.pk}/change/").content.decode()

    assert 'name="awards-0-name_zh_hans"' in html
    assert 'name="awards-__prefix__-name_zh_hans"' in html
    assert "tabbed_translation_fields.js" in html


def test_editor_restores_an_earlier_author_order(editor_client):
    first, second = factories.author(name="First Author"), factories.author(name="Second Author")
    paper = factories.paper(authors=[first, second])
    # A first version (as the importer writes), then the swapped order saved in the admin.
    # (An untouched save through the admin records nothing: see tests/editorial/test_edits.py.)
    with reversion.create_revision():
        paper.save()
    data = _form_data(editor_client.get(_change_url(paper)))
    data["authorships-0-position"], data["authorships-1-position"] = "2", "1"
    editor_client.post(_change_url(paper), data)
    original = Version.objects.get_for_object(paper).order_by("pk").first()
    url = f"/admin/papers/paper/{paper.pk}/history/{original.pk}/"

    response = editor_client.post(url, _form_data(editor_client.get(url)))

    assert response.status_code == 302
    assert [a.author.name for a in paper.ordered_authorships] == ["First Author", "Second Author"]


@pytest.mark.parametrize(
    "url",
    [
        "/admin/papers/paper/abc/history/1/",
        "/admin/papers/paper/999/history/1/",
        "/admin/papers/paper/999/history/compare/?version_id1=1&version_id2=2",
        "/admin/papers/paper/999/change/",
    ],
)
def test_unknown_objects_in_the_admin_are_not_errors(editor_client, url):
    assert editor_client.get(url).status_code in {302, 404}


def test_refused_upload_keeps_showing_the_stored_teaser(editor_client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    paper = factories.paper()
    data = _form_data(editor_client.get(_change_url(paper)))
    data.update(image=_png(), image_alt_en="A blue square", image_alt_zh_hans="蓝色方块")
    editor_client.post(_change_url(paper), data)
    data = _form_data(editor_client.get(_change_url(paper)))
    data.update(image=_png(), image_alt_zh_hans="")

    response = editor_client.post(_change_url(paper), data)

    assert response.status_code == 200
    assert '<img src="/media/papers/teaser.png.120x80_q85.png" alt="A blue square">' in (
        response.content.decode()
    )


def test_editor_deletes_a_link(editor_client):
    paper = factories.paper(links=[("arxiv", "https://arxiv.org/abs/2501.00001")])
    link = paper.links.get()

    response = editor_client.post(f"/admin/papers/paperlink/{link.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert list(paper.links.all()) == []


def test_draft_award_is_not_shown_on_a_published_papers_page(client, db):
    paper = factories.paper()
    factories.award_entry(factories.award(name_en="Secret award", status=Status.DRAFT), paper)

    html = client.get(paper.get_absolute_url()).content.decode()

    assert "Secret award" not in html


def test_preview_of_a_draft_paper_shows_its_published_awards(editor_client):
    paper = factories.paper(status=Status.DRAFT)
    factories.award_entry(factories.award(name_en="Public award"), paper)

    html = editor_client.get(f"{paper.get_absolute_url()}?preview=1").content.decode()

    assert "Public award" in html


# A stored image whose file is gone (issue 8) --------------------------------------------


def _paper_whose_image_file_is_gone(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    paper = factories.paper(image_alt_en="A blue square", image_alt_zh_hans="蓝色方块")
    paper.image.save("teaser.png", _png(), save=True)
    for stored in (tmp_path / "papers").iterdir():
        stored.unlink()
    return paper


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_missing_image_file_shows_no_img_on_the_paper_page(
    db, client, settings, tmp_path, language
):
    paper = _paper_whose_image_file_is_gone(settings, tmp_path)

    response = client.get(f"/{language}/papers/{paper.slug}/")

    assert response.status_code == 200
    assert "<img" not in response.content.decode()
    assert "<figure" not in response.content.decode()


def test_admin_flags_a_missing_image_file(editor_client, settings, tmp_path):
    paper = _paper_whose_image_file_is_gone(settings, tmp_path)
    with_file = factories.paper(image_alt_en="x", image_alt_zh_hans="x")
    with_file.image.save("other.png", _png(), save=True)
    factories.paper()  # no image at all

    listed = editor_client.get("/admin/papers/paper/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    changed = editor_client.get(_change_url(paper), HTTP_ACCEPT_LANGUAGE="zh-hans")

    cells = re.findall(r'<td class="field-teaser_state">(.*?)</td>', listed.content.decode())
    assert sorted(cells) == sorted(["<strong>文件缺失</strong>", "已存储", "–"])
    assert "<strong>无法读取已存储的图片。</strong>" in changed.content.decode()


# Award levels, link kinds, affiliation order (issue 9) ------------------------------

ALLOWED_KINDS = (
    "pmlr, proceedings, openreview, arxiv, poster, pdf, doi, project, code, dataset, video, slides"
)


def test_unknown_link_kind_is_a_form_error_listing_the_kinds(editor_client):
    paper = factories.paper(links=[("arxiv", "https://arxiv.org/abs/2501.00001")])
    data = _form_data(editor_client.get(_change_url(paper)))
    data["links-0-kind"] = "website"

    response = editor_client.post(_change_url(paper), data)

    assert response.status_code == 200
    assert (
        f"Select a valid choice. website is not one of the allowed values: {ALLOWED_KINDS}."
        in response.content.decode()
    )


def test_editor_gives_affiliations_in_the_papers_order(editor_client):
    zeta = factories.institution(slug="zeta", name_en="Zeta Institute")
    alpha = factories.institution(slug="alpha", name_en="Alpha University")
    paper = factories.paper(authors=[factories.author()], affiliations=[alpha])
    data = _form_data(editor_client.get(_change_url(paper)))
    data["authorships-0-affiliations"] = [str(zeta.pk), str(alpha.pk)]

    response = editor_client.post(_change_url(paper), data)

    assert response.status_code == 302, response.context["errors"] if response.context else ""
    rows = paper.authorships.get().affiliation_rows.all()
    assert [(row.institution, row.position) for row in rows] == [(zeta, 1), (alpha, 2)]
    shown = editor_client.get(_change_url(paper)).content.decode()
    assert shown.index(">Zeta Institute</option>") < shown.index(">Alpha University</option>")


def test_award_form_offers_only_the_awards_own_levels(editor_client):
    award, other = factories.award(), factories.award()
    entry = factories.award_entry(award, factories.paper(), level="runner-up")
    foreign = factories.award_level(other, "finalist")

    html = editor_client.get(f"/admin/papers/award/{award.pk}/change/").content.decode()

    assert f'<option value="{entry.level.pk}" selected>' in html
    assert f'<option value="{foreign.pk}"' not in html
    assert 'name="levels-0-name_plural_zh_hans"' in html


def test_editor_sets_an_awards_announcement_date(editor_client):
    award = factories.award()
    url = f"/admin/papers/award/{award.pk}/change/"
    data = _form_data(editor_client.get(url))
    data["announced_on"] = "2031-07-16"

    response = editor_client.post(url, data)

    assert response.status_code == 302, response.context["errors"] if response.context else ""
    award.refresh_from_db()
    assert award.announced_on.isoformat() == "2031-07-16"


# Autocomplete ---------------------------------------------------------------------


def test_award_autocomplete_queries_do_not_grow_with_awards(
    editor_client, django_assert_num_queries
):
    url = "/admin/autocomplete/?app_label=papers&model_name=awardentry&field_name=award&term=award"
    factories.award()
    # Session, user and permissions, then the count and the page of results.
    with django_assert_num_queries(6):
        one = editor_client.get(url).json()["results"]
    for _ in range(12):
        factories.award(conference=factories.conference())
    with django_assert_num_queries(6):
        many = editor_client.get(url).json()["results"]

    assert len(one) == 1
    assert len(many) == 13
    assert many[0]["text"].startswith("Conference ")


# NUL characters in the query string (PostgreSQL cannot compare text holding NUL) ---


@pytest.mark.parametrize("name", CHANGELISTS)
def test_nul_in_a_changelist_search_is_a_form_error(editor_client, name):
    _populate(2)

    response = editor_client.get(f"/admin/papers/{name}/", {"q": "a\x00b"})

    assert response.status_code == 200
    assert [str(message) for message in response.context["messages"]] == [
        "Null characters are not allowed."
    ]
    assert response.context["cl"].result_count == response.context["cl"].full_result_count


@pytest.mark.parametrize(
    ("name", "query"),
    [
        ("paper", "status__exact=a%00b"),
        ("paper", "awards__slug=%00"),
        ("conference", "status__exact=%00"),
        ("conference", "venue__id__exact=1&chinese=%00"),
        ("award", "slug=x%00"),
        ("awardentry", "level__slug=%00"),
        ("paperlink", "kind__exact=arxiv%00"),
    ],
)
def test_nul_in_a_changelist_filter_is_a_400(editor_client, name, query):
    editor_client.raise_request_exception = False
    _populate(2)

    response = editor_client.get(f"/admin/papers/{name}/?{query}")

    assert response.status_code == 400
    assert "<h1>Bad request</h1>" in response.content.decode()


# Issue 10: the admin's name, the award filter, sorting by the shown title, language ----


@pytest.mark.parametrize(
    ("language", "header", "title"),
    [
        ("en", "Conference Awards", "Awards, papers and authors"),
        ("zh-hans", "会议奖项", "奖项、论文与作者"),
    ],
)
def test_admin_is_branded_in_the_editors_language(editor_client, language, header, title):
    editor_client.cookies["django_language"] = language

    html = editor_client.get("/admin/").content.decode()

    assert f'<div id="site-name"><a href="/admin/">{header}</a></div>' in html
    assert f"<title>{title} | {header}</title>" in html
    assert f"<h1>{title}</h1>" in html
    assert "Django" not in html


def test_paper_list_filters_by_award_named_as_shown(editor_client):
    award = factories.award(slug="best-paper", name_en="Best Paper Award")
    winner = factories.paper(conference=award.conference, title_en="The Winner")
    factories.award_entry(award, winner)
    factories.paper(title_en="Another Paper")

    html = editor_client.get("/admin/papers/paper/").content.decode()
    filtered = editor_client.get("/admin/papers/paper/", {"award": "best-paper"})

    assert "By slug" not in html
    assert "By award" in html
    assert '<a href="?award=best-paper">Best Paper Award' in html
    assert list(filtered.context["cl"].result_list) == [winner]


def test_paper_list_award_filter_names_a_series_by_its_newest_edition(editor_client):
    """Two editions in one year: the one whose conference starts later names the series
    (the one conference order, catalogue.models.querysets.conference_order()), whatever
    the awards' positions."""
    july = factories.conference(year=2025, start_date=datetime.date(2025, 7, 13))
    december = factories.conference(
        year=2025, start_date=datetime.date(2025, 12, 2), end_date=datetime.date(2025, 12, 7)
    )
    factories.award(conference=july, slug="best-paper", name_en="Best Paper (July)", position=0)
    factories.award(
        conference=december, slug="best-paper", name_en="Best Paper (December)", position=1
    )

    html = editor_client.get("/admin/papers/paper/").content.decode()

    assert '<a href="?award=best-paper">Best Paper (December)' in html
    assert "Best Paper (July)" not in html


def test_chinese_paper_list_sorts_by_the_title_it_shows(editor_client):
    """In Chinese, a paper without a Chinese title shows its English one: sorting by the
    title column puts it where that English title falls, not first."""
    for english, chinese in [("Beta", "丙"), ("Alpha", ""), ("Gamma", "")]:
        factories.paper(title_en=english, title_zh_hans=chinese)
    editor_client.cookies["django_language"] = "zh-hans"

    response = editor_client.get("/admin/papers/paper/", {"o": "1"})

    shown = [paper.title for paper in response.context["cl"].result_list]
    assert shown == ["Alpha", "Gamma", "丙"]


def test_editor_switches_the_admins_language(editor_client):
    html = editor_client.get("/admin/papers/").content.decode()
    assert '<form class="admin-language" method="post" action="/i18n/setlang/">' in html
    assert (
        '<button type="submit" name="language" value="zh-hans" lang="zh-hans">简体中文</button>'
        in (html)
    )

    response = editor_client.post(
        "/i18n/setlang/", {"language": "zh-hans", "next": "/admin/papers/"}
    )

    assert response.status_code == 302
    assert response["Location"] == "/admin/papers/"
    chinese = editor_client.get("/admin/papers/").content.decode()
    assert '<html lang="zh-hans"' in chinese
    assert '<button type="submit" name="language" value="en" lang="en">English</button>' in chinese


# The conference form: the model's constraints, as the importer checks them too -------


def _conference_form(editor_client, conference, **changes):
    url = f"/admin/papers/conference/{conference.pk}/change/"
    data = {**_form_data(editor_client.get(url)), **changes}
    return editor_client.post(url, data)


def test_editor_cannot_end_a_conference_before_it_starts(editor_client):
    conference = factories.conference()

    response = _conference_form(editor_client, conference, end_date="2025-07-12")

    assert response.status_code == 200
    assert response.context["adminform"].form.non_field_errors() == [
        "The end date is before the start date."
    ]


def test_editor_cannot_give_a_venue_two_conferences_in_one_year(editor_client):
    first = factories.conference(year=2031)
    second = factories.conference(venue=first.venue, year=2032)

    response = _conference_form(editor_client, second, year="2031")

    assert response.status_code == 200
    assert response.context["adminform"].form.non_field_errors() == [
        "This venue already has a conference in this year."
    ]


# Award levels ---------------------------------------------------------------------


def test_award_level_slug_left_blank_is_made_from_the_english_name(editor_client):
    conference = factories.conference()
    data = _form_data(editor_client.get("/admin/papers/award/add/"))
    data.update(conference=conference.pk, name_en="Outstanding Paper", slug="")
    data["levels-TOTAL_FORMS"] = "3"
    for n, name in enumerate(["Honourable mention", "Runner-up", "Runner-up"]):
        data.update(
            {
                f"levels-{n}-slug": "",
                f"levels-{n}-name_en": name,
                f"levels-{n}-name_plural_en": name + "s",
                f"levels-{n}-position": str(n),
            }
        )

    response = editor_client.post("/admin/papers/award/add/", data)

    assert response.status_code == 302, response.context["errors"] if response.context else ""
    award = Award.objects.get(name_en="Outstanding Paper")
    assert list(award.levels.values_list("slug", flat=True)) == [
        "honourable-mention",
        "runner-up",
        "runner-up-2",
    ]


def test_award_level_slugs_are_unique_within_their_award(db):
    award, other = factories.award(), factories.award()
    here = AwardLevel.objects.create(award=award, name_en="Finalist", position=1)
    again = AwardLevel.objects.create(award=award, name_en="Finalist", position=2)
    elsewhere = AwardLevel.objects.create(award=other, name_en="入围")

    assert (here.slug, again.slug, elsewhere.slug) == ("finalist", "finalist-2", "ru-wei")


# The paper form's award entries -----------------------------------------------------


def _paper_form_queries(client, paper):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(_change_url(paper))
    assert response.status_code == 200
    return response.content.decode(), len(queries)


def test_paper_form_groups_levels_by_award(editor_client):
    award = factories.award(name_en="Test of Time Award")
    other = factories.award(name_en="Outstanding Paper Award")
    paper = factories.paper()
    entry = factories.award_entry(award, paper, level="runner-up")
    foreign = factories.award_level(other, "finalist")

    html, _queries = _paper_form_queries(editor_client, paper)
    row = html[html.index('name="award_entries-0-level"') :]
    row = row[: row.index("</select>")]

    assert f'<optgroup label="{award.conference.name_en}: Test of Time Award">' in row
    assert f'<option value="{entry.level.pk}" selected>Runner-up</option>' in row
    group = row[row.index(f'<optgroup label="{other.conference.name_en}: Outstanding') :]
    assert group.index(f'<option value="{foreign.pk}">Finalist</option>') < group.index(
        "</optgroup>"
    )


def test_paper_form_queries_do_not_grow_with_award_entries(editor_client):
    paper = factories.paper()
    factories.award_entry(factories.award(conference=paper.conference), paper)
    _html, one = _paper_form_queries(editor_client, paper)
    for _ in range(4):
        factories.award_entry(factories.award(conference=factories.conference()), paper)

    html, five = _paper_form_queries(editor_client, paper)

    assert html.count('name="award_entries-4-level"') == 1
    assert five == one


def test_paper_form_refuses_a_level_of_another_award(editor_client):
    award, other = factories.award(), factories.award()
    paper = factories.paper()
    factories.award_entry(award, paper)
    foreign = factories.award_level(other, "finalist")
    data = _form_data(editor_client.get(_change_url(paper)))
    data["award_entries-0-level"] = str(foreign.pk)

    response = editor_client.post(_change_url(paper), data)

    assert response.status_code == 200
    assert "This level belongs to another award" in str(response.context["errors"])


@pytest.mark.parametrize(
    ("language", "labels"),
    [
        ("en", ["Given name:", "Family name:", "Name suffix:", "Name in native script:"]),
        ("zh-hans", ["名:", "姓:", "姓名后缀:", "母语文字姓名:"]),
    ],
)
def test_author_form_has_the_name_fields_in_both_languages(client, db, language, labels):
    client.force_login(create_editor("editor", "editor@example.org", PASSWORD))
    client.cookies["django_language"] = language
    author = factories.author(
        name="Unai Fischer Abaigar", given_name="Unai", family_name="Fischer Abaigar"
    )

    html = client.get(f"/admin/papers/author/{author.pk}/change/").content.decode()

    found = re.findall(
        r'<label[^>]*for="id_(given_name|family_name|name_suffix|native_name)"'
        r"[^>]*>([^<]*)</label>",
        html,
    )
    assert [label for _field, label in found] == labels
    assert 'name="family_name" value="Fischer Abaigar"' in html


def test_author_list_shows_the_split_in_the_author_index_order(client, db):
    """Editors check the given and family names the citations use; the list is in the
    author index's order (family name first), and a search finds a name in native script."""
    client.force_login(create_editor("editor", "editor@example.org", PASSWORD))
    factories.author(name="Unai Fischer Abaigar", given_name="Unai", family_name="Fischer Abaigar")
    factories.author(name="John Schulman", native_name="约翰")

    html = client.get("/admin/papers/author/").content.decode()
    found = client.get("/admin/papers/author/?q=约翰").context["cl"].result_list

    rows = re.findall(
        r'<td class="field-family_name">([^<]*)</td><td class="field-given_name">([^<]*)</td>',
        html,
    )
    assert rows == [("Fischer Abaigar", "Unai"), ("Schulman", "John")]
    assert [author.name for author in found] == ["John Schulman"]
