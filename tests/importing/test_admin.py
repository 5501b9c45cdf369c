"""Import in the admin (importing/admin.py): who may, the dry-run report in the
editor's language, the import as draft with who imported in the history, and what is
refused (a broken or too large file, another editor's upload, another venue's conference,
publishing without the publish right)."""

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from reversion.models import Version

from catalogue.models import Award, Conference, Paper, Status
from editorial.models import ConferenceImport
from editorial.roles import create_editor
from importing import uploads
from tests import factories

DATA = Path(__file__).parents[1] / "data"
PASSWORD = "a-long-editor-passphrase"
URL = "/admin/editorial/conferenceimport/"


def draft_cil(name="cil-2031.yaml"):
    """The made-up CIL 2031 (tests/data), as a draft: bytes of the compact file."""
    text = (DATA / name).read_text(encoding="utf-8")
    return text.replace("status: published", "status: draft").encode()


def upload(client, data=None, name="cil-2031.yaml", **extra):
    """POST the compact file ``data`` (default: the draft CIL 2031) for a dry run."""
    files = {"compact_file": SimpleUploadedFile(name, draft_cil() if data is None else data)}
    return client.post(URL, {**files, **extra})


def pending(user):
    """The tokens of ``user``'s uploads waiting for their import."""
    return list(ConferenceImport.objects.filter(user=user).values_list("token", flat=True))


@pytest.fixture
def editor(db):
    return create_editor("mei", "mei@example.org", PASSWORD)


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


@pytest.fixture(autouse=True)
def _private_folder(settings, tmp_path):
    """Uploads kept in this test's own folder (Django's FILE_UPLOAD_TEMP_DIR)."""
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)


def folders(settings):
    return sorted(Path(settings.FILE_UPLOAD_TEMP_DIR).glob(f"{uploads.PREFIX}*"))


# Who may -----------------------------------------------------------------------------


def test_import_page_sends_anonymous_visitors_to_the_login(client, db):
    response = client.get(URL)

    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_import_page_refuses_staff_without_the_permission(client, db):
    user = get_user_model().objects.create_user("sam", password=PASSWORD, is_staff=True)
    client.force_login(user)

    assert client.get(URL).status_code == 403
    assert upload(client).status_code == 403
    assert Conference.objects.count() == 0


def test_import_page_is_linked_from_the_admin_index_for_editors(editor_client):
    index = editor_client.get("/admin/").content.decode()

    assert f'href="{URL}"' in index
    assert editor_client.get(URL).status_code == 200


def test_venue_editors_and_editors_hold_the_import_permission(editor, db):
    venue = factories.venue(slug="icml", acronym="ICML")
    team_editor = create_editor("ada", "ada@example.org", PASSWORD, venues=[venue.slug])

    assert editor.has_perm("editorial.import_conference")
    assert team_editor.has_perm("editorial.import_conference")


def test_team_editor_cannot_import_a_conference_of_another_venue(client, settings, db):
    factories.venue(slug="cil", acronym="CIL", name_en="Conference on Imaginary Learning")
    factories.venue(slug="icml", acronym="ICML")
    user = create_editor("ada", "ada@example.org", PASSWORD, venues=["icml"])
    client.force_login(user)

    response = upload(client)

    assert response.status_code == 200
    assert "cil-2031" in str(response.context["refusals"])
    assert "is not one of the venues you edit" in response.content.decode()
    assert pending(user) == []
    assert folders(settings) == []


def test_team_editor_imports_a_conference_of_their_venue(client, db):
    factories.venue(slug="cil", acronym="CIL", name_en="Conference on Imaginary Learning")
    user = create_editor("ada", "ada@example.org", PASSWORD, venues=["cil"])
    client.force_login(user)

    response = upload(client)

    assert response.context["refusals"] == []
    [token] = pending(user)
    assert client.post(f"{URL}{token}/").status_code == 200
    assert Conference.objects.get().slug == "cil-2031"


# The dry run ---------------------------------------------------------------------------


def test_dry_run_reports_what_would_be_new_and_writes_nothing(editor_client, editor, settings):
    response = upload(editor_client)

    assert response.status_code == 200
    page = response.content.decode()
    assert "Dry run: nothing has been written yet." in page
    report = response.context["report"]
    assert (len(report.new), report.changed, report.kept) == (140, [], [])
    assert "Conference: cil-2031" in page
    assert Conference.objects.count() == 0
    assert len(pending(editor)) == 1
    [folder] = folders(settings)
    assert sorted(path.name for path in folder.iterdir()) == ["cil-2031.yaml"]


def test_dry_run_report_is_in_the_editors_language(editor_client):
    editor_client.cookies["django_language"] = "zh-hans"

    page = upload(editor_client).content.decode()

    assert "试运行：尚未写入任何内容。" in page
    assert "导入为草稿" in page
    for english in ("Dry run", "Import as draft", "New", "Discard"):
        assert f">{english}" not in page


def test_dry_run_of_a_file_already_imported_reports_it_kept(editor_client, editor):
    upload(editor_client)
    editor_client.post(f"{URL}{pending(editor)[0]}/")

    report = upload(editor_client).context["report"]

    assert (report.new, report.changed, len(report.kept)) == ([], [], 140)


def test_dry_run_with_the_bibtex_file_it_names(editor_client, editor):
    files = {
        "compact_file": SimpleUploadedFile("cil-2031-bib.yaml", draft_cil("cil-2031-bib.yaml")),
        "bibliography": SimpleUploadedFile("cil-2031.bib", (DATA / "cil-2031.bib").read_bytes()),
    }

    response = editor_client.post(URL, files)

    assert response.context["problems"] == []
    assert "Conference: cil-2031" in response.content.decode()
    assert len(pending(editor)) == 1


def test_import_with_an_image_the_file_names(editor_client, editor, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    teaser = "  - key: gradients\n    image: card.png\n    image_alt: A card.\n"
    data = (
        draft_cil()
        .decode()
        .replace("  - key: gradients\n", teaser + "    image_alt_zh_hans: 一张卡片。\n")
    )
    image = (DATA / "images" / "learning-from-examples.png").read_bytes()
    files = {
        "compact_file": SimpleUploadedFile("cil-2031.yaml", data.encode()),
        "images": [SimpleUploadedFile("card.png", image)],
    }

    editor_client.post(URL, files)
    editor_client.post(f"{URL}{pending(editor)[0]}/")

    paper = Paper.objects.get(image_alt_en="A card.")
    assert paper.image.name.startswith("papers/card")
    assert paper.image.storage.exists(paper.image.name)


# Refused files -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"conference: [unclosed\n",
        b"conference:\n  name: X\n  start_date: 2024-12-32\n",
        b"\xff\xfe\x00not text",
    ],
)
def test_a_broken_file_is_refused_with_a_message(editor_client, editor, settings, data):
    response = upload(editor_client, data)

    assert response.status_code == 200
    assert response.context["problems"]
    assert "Nothing was written" in response.content.decode()
    assert pending(editor) == []
    assert folders(settings) == []
    assert Conference.objects.count() == 0


def test_a_file_over_the_limit_is_refused(editor_client, editor, settings, monkeypatch):
    monkeypatch.setattr(uploads, "MAX_FILE_SIZE", 1000)

    response = upload(editor_client)

    assert response.status_code == 200
    assert "over the limit of 1000" in response.content.decode().replace("\xa0", " ")
    assert pending(editor) == []
    assert folders(settings) == []


def test_a_file_of_another_kind_is_refused(editor_client, editor):
    response = upload(editor_client, b"conference: {}", name="cil.exe")

    assert "compact_file" in response.context["form"].errors
    assert pending(editor) == []


def test_a_file_name_too_long_is_refused(editor_client, editor):
    response = upload(editor_client, name=f"{'x' * 100}.yaml")

    assert response.context["form"].non_field_errors() == [
        "A file name may have at most 100 characters."
    ]
    assert pending(editor) == []


def test_an_editor_without_the_publish_right_cannot_import_a_published_conference(
    editor_client, editor
):
    data = (DATA / "cil-2031.yaml").read_bytes()  # status: published

    response = upload(editor_client, data)

    assert "only publishers publish" in response.content.decode()
    assert pending(editor) == []


def test_a_publisher_imports_a_published_conference(client, db):
    publisher = create_editor("li", "li@example.org", PASSWORD, publisher=True)
    client.force_login(publisher)

    upload(client, (DATA / "cil-2031.yaml").read_bytes())
    client.post(f"{URL}{pending(publisher)[0]}/")

    assert Conference.objects.get().status == Status.PUBLISHED


# The import ----------------------------------------------------------------------------


def test_import_writes_drafts_records_the_editor_and_removes_the_files(
    editor_client, editor, settings
):
    upload(editor_client)
    [token] = pending(editor)

    response = editor_client.post(f"{URL}{token}/")

    assert response.status_code == 200
    conference = Conference.objects.get()
    assert conference.status == Status.DRAFT
    assert Paper.objects.count() == 7
    assert set(Award.objects.values_list("status", flat=True)) == {Status.DRAFT}
    page = response.content.decode()
    assert f'href="{conference.get_absolute_url()}?{settings.PREVIEW_PARAMETER}=1"' in page
    assert f'href="/admin/papers/paper/?conference__id__exact={conference.pk}"' in page
    revision = Version.objects.get_for_object(conference).get().revision
    assert revision.user == editor
    assert revision.comment == "import_conference cil-2031.yaml (uploaded in the admin)"
    assert pending(editor) == []
    assert folders(settings) == []


def test_import_refuses_a_token_of_another_editor(editor_client, editor, settings):
    other = create_editor("li", "li@example.org", PASSWORD)
    client = Client()
    client.force_login(other)
    upload(client)
    [token] = pending(other)

    response = editor_client.post(f"{URL}{token}/")

    assert response.status_code == 404
    assert Conference.objects.count() == 0
    assert pending(other) == [token]
    assert len(folders(settings)) == 1


def test_import_refuses_a_get_and_an_unknown_token(editor_client, editor):
    upload(editor_client)
    [token] = pending(editor)

    assert editor_client.get(f"{URL}{token}/").status_code == 405
    assert editor_client.post(f"{URL}{'x' * 32}/").status_code == 404
    assert Conference.objects.count() == 0


def test_import_of_files_no_longer_kept_asks_to_upload_again(editor_client, editor, settings):
    upload(editor_client)
    [folder] = folders(settings)
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()

    response = editor_client.post(f"{URL}{pending(editor)[0]}/")

    assert response.status_code == 200
    assert "upload them again" in response.content.decode()
    assert pending(editor) == []
    assert Conference.objects.count() == 0


def test_discard_removes_the_upload(editor_client, editor, settings):
    upload(editor_client)
    [token] = pending(editor)

    response = editor_client.post(f"{URL}{token}/discard/")

    assert response.status_code == 302
    assert pending(editor) == []
    assert folders(settings) == []


def test_dry_run_lists_what_the_file_no_longer_lists_and_what_editors_added(editor_client, editor):
    # What import_conference --dry-run prints as remove and kept lines: the admin's
    # report showed neither, and its import then removed rows unannounced.
    upload(editor_client)
    editor_client.post(f"{URL}{pending(editor)[0]}/")
    paper = Paper.objects.get(links__url="https://code.example.org/imaginary-gradients")
    paper.links.create(kind="video", url="https://video.example.org/gradients")
    without_code = draft_cil().replace(
        b"      code: https://code.example.org/imaginary-gradients\n", b""
    )

    response = upload(editor_client, without_code)

    report = response.context["report"]
    assert len(report.removed) == 1 and "imaginary-gradients" in report.removed[0]
    assert len(report.added_by_editors) == 1 and "video" in report.added_by_editors[0]
    html = response.content.decode()
    assert 'id="import-removed"' in html and 'id="import-added-by-editors"' in html
